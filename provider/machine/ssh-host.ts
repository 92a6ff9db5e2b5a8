// A remote machine as GARM's host, over one SSH connection: files through SFTP (the lock a directory on that host
// with who, where and since inside; replacement by temp file and POSIX rename in the same directory), the restart
// command through exec, bounded by its timeout, which stops only the process group sshd gave that command.
import type { Client, SFTPWrapper } from "ssh2";
import { FileEditError } from "./errors";
import { fileOperations, type GarmHost } from "./host";
import { SftpFiles } from "./sftp-files";
import type { CommandResult } from "./shell";
import { connectSsh, where, type SshConnection } from "./ssh-connection";

/** Where Debian, Red Hat and Arch family systems install OpenSSH's sftp-server. */
const SFTP_SERVERS = ["/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/lib/ssh/sftp-server"];

const OUTPUT_KEEP_BYTES = 64 * 1024;

/** Single-quotes `s` for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export class SshHost implements GarmHost {
  readonly label: string;
  readonly files: SftpFiles;
  readonly readFile: GarmHost["readFile"];
  readonly realpath: GarmHost["realpath"];
  readonly stat: GarmHost["stat"];
  readonly writeNote: GarmHost["writeNote"];
  readonly remove: GarmHost["remove"];
  private client?: Promise<Client>;
  private sftpSession?: Promise<SFTPWrapper>;
  /** The open connection, held directly so the process's exit can end it synchronously. */
  private live?: Client;

  constructor(
    private readonly connection: SshConnection,
    readonly warn: (line: string) => void = (line) => console.warn(line),
  ) {
    this.label = where(connection);
    this.files = new SftpFiles(this.label, `user ${connection.user ?? "root"}`, () => this.sftp());
    ({ readFile: this.readFile, realpath: this.realpath, stat: this.stat, writeNote: this.writeNote, remove: this.remove } = fileOperations(this.files));
  }

  /** One connection for every operation on this host, opened on first use. */
  private connect(): Promise<Client> {
    if (!this.client) {
      const opened = connectSsh(this.connection, this.warn);
      this.client = opened;
      opened.then(
        (c) => {
          this.live = c;
          c.once("close", () => {
            if (this.client === opened) this.client = undefined;
            if (this.live === c) this.live = undefined;
            this.sftpSession = undefined;
          });
        },
        () => {
          if (this.client === opened) this.client = undefined;
        },
      );
    }
    return this.client;
  }

  private sftp(): Promise<SFTPWrapper> {
    if (!this.sftpSession) {
      this.sftpSession = this.connect().then((c) => (this.connection.sudo ? this.sudoSftp(c) : new Promise<SFTPWrapper>((resolve, reject) => c.sftp((err, s) => (err ? reject(err) : resolve(s))))));
      this.sftpSession.catch(() => (this.sftpSession = undefined));
    }
    return this.sftpSession;
  }

  /**
   * An SFTP session whose server runs as root through `sudo -n`: the host's sftp-server started by an exec request
   * instead of the sftp subsystem request (what `sftp -s "sudo -n /usr/lib/openssh/sftp-server"` does). ssh2 1.17.0
   * (pinned exactly) opens the session and sends the subsystem request through its protocol object; that one request
   * is sent as an exec.
   */
  private async sudoSftp(c: Client): Promise<SFTPWrapper> {
    const found = await this.exec(c, `for p in ${SFTP_SERVERS.join(" ")}; do [ -x "$p" ] && { echo "$p"; exit 0; }; done; exit 1`);
    const server = found.code === 0 ? found.output.trim() : "";
    if (!server) throw new FileEditError(`cannot edit GARM's config file on ${this.label} through sudo: no sftp-server at ${SFTP_SERVERS.join(", ")}; install openssh-sftp-server there, or set connection.sudo to false`);
    const command = `sudo -n ${server}`;
    const protocol = (c as unknown as { _protocol: { subsystem: (chan: number, name: string, wantReply: boolean) => void; exec: (chan: number, cmd: string, wantReply: boolean) => void } })._protocol;
    const subsystem = protocol.subsystem;
    protocol.subsystem = (chan, _name, wantReply) => {
      protocol.subsystem = subsystem;
      protocol.exec(chan, command, wantReply);
    };
    try {
      return await new Promise<SFTPWrapper>((resolve, reject) => c.sftp((err, s) => (err ? reject(err) : resolve(s))));
    } catch (e) {
      const code = (e as { code?: number }).code;
      const why =
        code === 1
          ? `sudo asked for a password or does not allow it (exit code 1); let user ${this.connection.user ?? "root"} run it without one: "${this.connection.user ?? "root"} ALL=(root) NOPASSWD: ${server}" in /etc/sudoers.d/ (docs/concepts/remote-garm.md)`
          : code === 127
            ? "sudo is not installed there (exit code 127)"
            : (e as Error).message;
      throw new FileEditError(`cannot edit GARM's config file on ${this.label}: \`${command}\` did not start: ${why}. Nothing was changed`);
    } finally {
      protocol.subsystem = subsystem;
    }
  }

  /** Runs a short helper command of pulumi-garm's own and collects its output. */
  private exec(c: Client, command: string): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) =>
      c.exec(command, (err, ch) => {
        if (err) return reject(err);
        let output = "";
        let code: number | null = null;
        ch.on("data", (b: Buffer) => (output += b.toString("utf8")));
        ch.stderr.on("data", (b: Buffer) => (output += b.toString("utf8")));
        ch.on("exit", (c2: number | null) => (code = c2));
        ch.on("close", () => resolve({ code, output }));
      }),
    );
  }

  /** Ends the connection without waiting: for the process's exit, when nothing can be awaited. */
  closeNow(): void {
    this.live?.end();
  }

  async close(): Promise<void> {
    const c = await this.client?.catch(() => undefined);
    c?.end();
  }

  async run(command: string, timeoutMs: number): Promise<CommandResult> {
    let client: Client;
    try {
      client = await this.connect();
    } catch (e) {
      return { code: null, signal: null, output: (e as Error).message, timedOut: false };
    }
    // sshd makes the command's shell a session leader, so its pid is the process group of what the command starts in
    // the foreground and in `&` jobs; a daemon that called setsid has left it and is not stopped. Output goes to a
    // temp file on the host, not the channel, so a daemon that keeps it open does not hold the channel open.
    const script = [
      `echo "pulumi-garm-pgid $$"`,
      `out=$(mktemp "\${TMPDIR:-/tmp}/pulumi-garm-restart.XXXXXX") || exit 125`,
      // With connection.sudo the command runs as root: `sudo -n /bin/sh -c <command>`, the words a sudoers line names.
      `${this.connection.sudo ? "sudo -n " : ""}/bin/sh -c ${shellQuote(command)} >"$out" 2>&1 </dev/null`,
      `code=$?`,
      `tail -c ${OUTPUT_KEEP_BYTES} "$out"`,
      `rm -f "$out"`,
      `exit $code`,
    ].join("; ");
    return new Promise<CommandResult>((resolve) => {
      client.exec(`exec /bin/sh -c ${shellQuote(script)}`, (err, channel) => {
        if (err) return resolve({ code: null, signal: null, output: `cannot run the restart command on ${this.label}: ${err.message}`, timedOut: false });
        let output = "";
        let pgid: number | undefined;
        let timedOut = false;
        let code: number | null = null;
        let signal: string | null = null;
        const take = (b: Buffer) => {
          output += b.toString("utf8");
          const m = pgid === undefined ? /^pulumi-garm-pgid (\d+)\n/.exec(output) : null;
          if (m) {
            pgid = Number(m[1]);
            output = output.slice(m[0].length);
          }
        };
        channel.on("data", take);
        channel.stderr.on("data", take);
        const timer = setTimeout(() => {
          timedOut = true;
          // Stop the command's process group on the host, then the channel; settle once both are done.
          if (pgid === undefined) return channel.close();
          client.exec(`kill -KILL -- -${pgid}`, (e, ch) => {
            if (e) return channel.close();
            ch.resume();
            ch.stderr.resume();
            ch.once("close", () => channel.close());
          });
        }, timeoutMs);
        channel.on("exit", (c: number | null, s?: string) => {
          code = c;
          signal = s ?? null;
        });
        channel.on("close", () => {
          clearTimeout(timer);
          resolve({ code: timedOut ? null : code, signal: timedOut ? "SIGKILL" : signal, output, timedOut });
        });
      });
    });
  }
}
