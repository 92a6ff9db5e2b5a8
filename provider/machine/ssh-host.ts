// A remote machine as GARM's host, over one SSH connection: its files through SFTP (sftp-files.ts, which the one edit
// and the one lock run over, as they do locally), and the restart command through exec, bounded by its timeout, which
// stops only the process group sshd gave that command.
import type { Client, ClientChannel, SFTPWrapper } from "ssh2";
import { FileEditError } from "./errors";
import { fileOperations, type GarmHost } from "./host";
import { SftpFiles } from "./sftp-files";
import type { CommandResult } from "./shell";
import { connectSsh, where, type SshConnection } from "./ssh-connection";

/** Where Debian, Red Hat and Arch family systems install OpenSSH's sftp-server. */
const SFTP_SERVERS = ["/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/lib/ssh/sftp-server"];

const OUTPUT_KEEP_BYTES = 64 * 1024;
/** How long a timed-out restart command may take to be stopped before the run gives up on the connection. */
const RUN_STOP_GRACE_MS = 2_000;

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
    /** The provider instance's cancellation (../common/cancel.ts): a connect, its dials and its pauses end on it. */
    private readonly cancel?: AbortSignal,
  ) {
    this.label = where(connection);
    this.files = new SftpFiles(this.label, `user ${connection.user ?? "root"}`, () => this.sftp());
    ({ readFile: this.readFile, realpath: this.realpath, stat: this.stat, writeNote: this.writeNote, remove: this.remove } = fileOperations(this.files));
  }

  /** One connection for every operation on this host, opened on first use. */
  private connect(): Promise<Client> {
    if (!this.client) {
      const opened = connectSsh(this.connection, this.warn, { cancel: this.cancel });
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
    const user = this.connection.user ?? "root";
    const ssh2 = c as unknown as {
      _protocol: { subsystem: (chan: number, name: string, wantReply: boolean) => void; exec: (chan: number, cmd: string, wantReply: boolean) => void };
      _chanMgr: { _channels: Record<number, unknown> };
    };
    const protocol = ssh2._protocol;
    const subsystem = protocol.subsystem;
    // What sudo writes to the channel's stderr: ssh2 gives an SFTP channel a stderr that drops it, so it is kept here.
    let said = "";
    const keep = (b: Buffer) => {
      if (said.length < 2048) said += b.toString("utf8");
      return true;
    };
    protocol.subsystem = (chan, _name, wantReply) => {
      protocol.subsystem = subsystem;
      for (const ch of Object.values(ssh2._chanMgr._channels)) {
        const o = ch as { outgoing?: { id?: number }; stderr?: unknown };
        if (typeof o === "object" && o !== null && o.outgoing?.id === chan) {
          o.stderr = { readable: false, writable: false, push: keep, once: () => undefined, on: () => undefined, emit: () => undefined, end: () => undefined };
        }
      }
      protocol.exec(chan, command, wantReply);
    };
    try {
      return await new Promise<SFTPWrapper>((resolve, reject) => c.sftp((err, s) => (err ? reject(err) : resolve(s))));
    } catch (e) {
      const code = (e as { code?: number }).code;
      const text = said.replace(/\s+/g, " ").trim().slice(0, 300);
      const quoted = `${text ? `sudo said "${text}"` : "sudo said nothing"}${typeof code === "number" ? ` (exit code ${code})` : ""}`;
      const nopasswd = `"${user} ALL=(root) NOPASSWD: ${server}" in /etc/sudoers.d/ (visudo -f /etc/sudoers.d/pulumi-garm; docs/concepts/remote-garm.md)`;
      let why: string;
      if (code === 127 || /sudo: (command )?not found|sudo: no such file/i.test(text)) why = `sudo is not installed there (${quoted}); install it, or set connection.sudo to false and let user ${user} write the file`;
      else if (/must have a tty|requiretty/i.test(text)) why = `sudoers requires a terminal for user ${user} (Defaults requiretty), which this session has not (${quoted}); add "Defaults:${user} !requiretty" beside the line ${nopasswd}`;
      else if (/password is required|terminal is required to read the password|askpass/i.test(text)) why = `sudo asked for a password (${quoted}), so no NOPASSWD rule lets user ${user} run it; add ${nopasswd}`;
      else if (/not allowed to execute|not in the sudoers file|may not run sudo/i.test(text)) why = `sudoers does not let user ${user} run ${server} as root (${quoted}); allow it with ${nopasswd}`;
      else if (text || typeof code === "number") why = `${quoted}; check that user ${user} may run it without a password: ${nopasswd}`;
      else why = (e as Error).message;
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

  /**
   * Runs the restart command on the host, bounded as a whole by `timeoutMs` from this call: connecting (which may
   * retry), opening the exec channel and the command itself. A connection lost meanwhile ends the run at once. After
   * the timeout the command's process group is stopped (RUN_STOP_GRACE_MS at most), and a connection that did not
   * answer in all that time is dropped, so the next operation on the host opens a new one instead of waiting on it.
   */
  run(command: string, timeoutMs: number): Promise<CommandResult> {
    const seconds = `${Math.round(timeoutMs / 100) / 10}s`;
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
      let settled = false;
      let client: Client | undefined;
      let channel: ClientChannel | undefined;
      let output = "";
      let pgid: number | undefined;
      let code: number | null = null;
      let signal: string | null = null;
      let stopTimer: NodeJS.Timeout | undefined;
      /** The timeout passed and the command is being stopped: its channel's close ends the run as timed out. */
      let stopping = false;
      const finish = (r: Omit<CommandResult, "output">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(stopTimer);
        client?.removeListener("close", lost);
        resolve({ ...r, output });
      };
      const lost = () =>
        finish({
          code: null,
          signal: null,
          timedOut: false,
          failure:
            channel === undefined
              ? `did not start on ${this.label}: the SSH connection was lost before the command's channel opened; nothing was run there, run pulumi up again`
              : `was cut off: the SSH connection to ${this.label} was lost while it ran, so whether GARM restarted is not known; check GARM there and run pulumi up again`,
        });
      /**
       * Settles after dropping a connection that gave no answer for the whole timeout, once it is closed (so the next
       * operation on the host connects afresh instead of queueing on it), or after RUN_STOP_GRACE_MS at most.
       */
      const dropThen = (r: Omit<CommandResult, "output">) => {
        const c = client;
        if (!c || this.live !== c) return finish(r);
        c.removeListener("close", lost);
        const done = () => finish(r);
        c.once("close", done);
        setTimeout(done, RUN_STOP_GRACE_MS).unref();
        c.destroy();
      };
      /**
       * The command's process group was killed. With connection.sudo its root processes are not the login user's to
       * kill (only its shell and sudo were), so the command may still run: said so, rather than "killed".
       */
      const stopped = (): Omit<CommandResult, "output"> =>
        this.connection.sudo
          ? {
              code: null,
              signal: null,
              timedOut: true,
              failure: `did not finish within ${seconds}; it runs as root through sudo, which ${this.connection.user ?? "root"} cannot stop, so it may still run on ${this.label}: check GARM there, then run pulumi up again`,
            }
          : { code: null, signal: "SIGKILL", timedOut: true };
      const timer = setTimeout(() => {
        if (!client || !channel) {
          const why = !client ? "still connecting" : "the SSH connection gave no answer";
          return dropThen({ code: null, signal: null, timedOut: true, failure: `did not start on ${this.label} within ${seconds}: ${why}; nothing was run there, check that the host answers and run pulumi up again` });
        }
        stopping = true;
        // Stop the command's process group on the host, then the channel; settle once both are done, or give up on a
        // connection that does not answer even that.
        stopTimer = setTimeout(() => {
          dropThen({
            code: null,
            signal: null,
            timedOut: true,
            failure: `did not finish within ${seconds}, and the SSH connection to ${this.label} gave no answer when asked to stop it: it may still run there; check GARM there and run pulumi up again`,
          });
        }, RUN_STOP_GRACE_MS);
        const ch = channel;
        if (pgid === undefined) return void ch.close();
        // Through /bin/sh, not the login shell, in the form dash's kill takes too (it refuses `kill -KILL -- -pgid`).
        client.exec(`exec /bin/sh -c 'kill -KILL -${pgid}'`, (e, killer) => {
          if (e) return void ch.close();
          killer.resume();
          killer.stderr.resume();
          killer.once("close", () => ch.close());
        });
      }, timeoutMs);
      this.connect().then(
        (c) => {
          if (settled) return;
          client = c;
          c.once("close", lost);
          c.exec(`exec /bin/sh -c ${shellQuote(script)}`, (err, ch) => {
            if (settled) return void ch?.close();
            if (err) return finish({ code: null, signal: null, timedOut: false, failure: `could not be started on ${this.label}: ${err.message}; nothing was run there` });
            channel = ch;
            const take = (b: Buffer) => {
              output += b.toString("utf8");
              const m = pgid === undefined ? /^pulumi-garm-pgid (\d+)\n/.exec(output) : null;
              if (m) {
                pgid = Number(m[1]);
                output = output.slice(m[0].length);
              }
            };
            ch.on("data", take);
            ch.stderr.on("data", take);
            ch.on("exit", (c2: number | null, s?: string) => {
              code = c2;
              signal = s ?? null;
            });
            // A connection's end closes its channels after its own "close" event: `lost` has settled the run then.
            ch.on("close", () => finish(stopping ? stopped() : { code, signal, timedOut: false }));
          });
        },
        (e: Error) => finish({ code: null, signal: null, timedOut: false, failure: `could not be started: ${e.message}` }),
      );
    });
  }
}
