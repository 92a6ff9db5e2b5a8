// A remote machine as GARM's host, over one SSH connection: files through SFTP (the lock a directory on that host
// with who, where and since inside; replacement by temp file and POSIX rename in the same directory), the restart
// command through exec, bounded by its timeout, which stops only the process group sshd gave that command.
import { randomBytes } from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import type { Client, ClientChannel, SFTPWrapper, Stats } from "ssh2";
import { FileEditError } from "./errors";
import { CONNECTION_LOST, errnoOf, type GarmHost, type HostFileStat, HostConnectionLostError, type LockHolder, type WriteHooks, lockPause } from "./host";
import type { CommandResult } from "./shell";
import { connectSsh, where, type SshConnection } from "./ssh-connection";

// SFTP status codes (draft-ietf-secsh-filexfer-02 §7), mapped to the errno codes host.ts speaks.
const SFTP_CODES: Record<number, string> = { 2: "ENOENT", 3: "EACCES", 4: "EFAILURE" };

// What ssh2 answers every request still in flight when the SFTP channel ends: the connection (or sftp-server) is gone.
const CHANNEL_ENDED = "No response from server";

function fsError(e: unknown, op: string, file: string, label: string): Error {
  if ((e as Error).message === CHANNEL_ENDED) return new HostConnectionLostError(`the SSH connection to ${label} was lost while ${op} ${file}`, LOCK_STALE_MS / 1000);
  const code = SFTP_CODES[(e as { code?: number }).code ?? -1] ?? "EIO";
  return Object.assign(new Error(`${op} ${file} over SFTP: ${(e as Error).message}`), { code });
}

/** Where Debian, Red Hat and Arch family systems install OpenSSH's sftp-server. */
const SFTP_SERVERS = ["/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/lib/ssh/sftp-server"];

const LOCK_POLL_MS = 250;
/** A lock whose holder has not refreshed it for this long is stale: its holder died or lost its connection. */
export const LOCK_STALE_MS = 30_000;
const LOCK_REFRESH_MS = 5_000;
const OUTPUT_KEEP_BYTES = 64 * 1024;
/** How long a timed-out restart command may take to be stopped before the run gives up on the connection. */
const RUN_STOP_GRACE_MS = 2_000;

/** Single-quotes `s` for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export class SshHost implements GarmHost {
  readonly label: string;
  private client?: Promise<Client>;
  private sftpSession?: Promise<SFTPWrapper>;
  /** The open connection, held directly so the process's exit can end it synchronously. */
  private live?: Client;

  constructor(
    private readonly connection: SshConnection,
    private readonly warn: (line: string) => void = (line) => console.warn(line),
  ) {
    this.label = where(connection);
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

  private async call<T>(op: string, file: string, fn: (s: SFTPWrapper, cb: (err: Error | undefined | null, v?: T) => void) => void): Promise<T> {
    const s = await this.sftp();
    return new Promise<T>((resolve, reject) => fn(s, (err, v) => (err ? reject(fsError(err, op, file, this.label)) : resolve(v as T))));
  }

  /** Ends the connection without waiting: for the process's exit, when nothing can be awaited. */
  closeNow(): void {
    this.live?.end();
  }

  async close(): Promise<void> {
    const c = await this.client?.catch(() => undefined);
    c?.end();
  }

  readFile(file: string): Promise<Buffer> {
    return this.call<Buffer>("reading", file, (s, cb) => s.readFile(file, cb));
  }

  realpath(file: string): Promise<string> {
    // OpenSSH's sftp-server answers with realpath(3), which resolves symlinks and fails for a missing file.
    return this.call<string>("resolving", file, (s, cb) => s.realpath(file, cb));
  }

  async stat(file: string): Promise<HostFileStat> {
    const st = await this.call<Stats>("inspecting", file, (s, cb) => s.stat(file, cb));
    return { isFile: st.isFile(), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
  }

  writeNote(file: string, text: string): Promise<void> {
    return this.call<void>("writing", file, (s, cb) => s.writeFile(file, text, { mode: 0o644 }, cb));
  }

  async remove(file: string): Promise<void> {
    try {
      await this.call<void>("removing", file, (s, cb) => s.unlink(file, cb));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  /** The time on the host, so staleness is judged by one clock (the holder's writes and this read). */
  private async remoteNowMs(dir: string): Promise<number> {
    const probe = path.posix.join(dir, `.pulumi-garm-clock-${randomBytes(4).toString("hex")}`);
    await this.writeNote(probe, "");
    try {
      const st = await this.call<Stats>("inspecting", probe, (s, cb) => s.stat(probe, cb));
      return st.mtime * 1000;
    } finally {
      await this.remove(probe).catch(() => undefined);
    }
  }

  async lock(file: string, target: string, waitMs: number, onCompromised: (err: Error) => void, cancel?: AbortSignal): Promise<() => Promise<void>> {
    const lockDir = `${target}.lock`;
    const holderFile = path.posix.join(lockDir, "holder");
    const me: LockHolder = { who: `pulumi-garm pid ${process.pid} (user ${os.userInfo().username})`, where: os.hostname(), since: Date.now() };
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        await this.call<void>("locking", lockDir, (s, cb) => s.mkdir(lockDir, { mode: 0o700 }, cb));
        break;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === CONNECTION_LOST) throw e;
        if (code === "EACCES") {
          throw new FileEditError(
            `cannot lock GARM config file ${file} on ${this.label}: no permission to create ${lockDir} in ${path.posix.dirname(target)}; give user ${this.connection.user ?? "root"} write access to that directory (e.g. through its group). The file is unchanged`,
          );
        }
        // EFAILURE is how sftp-server reports an existing directory.
        const held = await this.readHolder(holderFile, path.posix.dirname(target));
        if (held?.stale) {
          // Rename first: of two writers taking over one stale lock, only one rename succeeds.
          const grave = `${lockDir}.stale-${randomBytes(4).toString("hex")}`;
          const moved = await this.call<void>("taking over", lockDir, (s, cb) => s.rename(lockDir, grave, cb)).then(
            () => true,
            () => false,
          );
          if (moved) {
            this.warn(`GarmProvider: took over the lock of ${file} on ${this.label} left by ${held.holder ? describeHolder(held.holder) : "an unknown writer"}, not refreshed for ${Math.round(held.ageMs / 1000)}s`);
            await this.removeLockDir(grave).catch(() => undefined);
          }
          continue;
        }
        if (Date.now() >= deadline) {
          const by = held?.holder ? describeHolder(held.holder) : "another writer";
          throw new FileEditError(
            `cannot lock GARM config file ${file} on ${this.label}: ${by} holds ${lockDir} and did not release it within ${waitMs / 1000}s; retry when it is done (a lock not refreshed for ${LOCK_STALE_MS / 1000}s is taken over)`,
          );
        }
        await lockPause(file, lockDir, LOCK_POLL_MS, cancel);
      }
    }
    const writeHolder = () => this.writeNote(holderFile, JSON.stringify(me));
    await writeHolder();
    // Refreshing the holder file's mtime tells other writers this holder is alive.
    const timer = setInterval(() => void writeHolder().catch((e: Error) => onCompromised(e)), LOCK_REFRESH_MS);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await this.removeLockDir(lockDir);
    };
  }

  /** Removes a lock directory; rejects when it is still there, so a caller can say the lock was left behind. */
  private async removeLockDir(dir: string): Promise<void> {
    await this.remove(path.posix.join(dir, "holder")).catch(() => undefined);
    await this.call<void>("unlocking", dir, (s, cb) => s.rmdir(dir, cb));
  }

  private async readHolder(holderFile: string, dir: string): Promise<{ holder?: LockHolder; stale: boolean; ageMs: number } | undefined> {
    let st: Stats;
    try {
      st = await this.call<Stats>("inspecting", holderFile, (s, cb) => s.stat(holderFile, cb));
    } catch {
      // Just made and not yet described, or made by another tool: judged by the directory's own age.
      try {
        st = await this.call<Stats>("inspecting", path.posix.dirname(holderFile), (s, cb) => s.stat(path.posix.dirname(holderFile), cb));
      } catch {
        return undefined;
      }
    }
    const ageMs = (await this.remoteNowMs(dir)) - st.mtime * 1000;
    let holder: LockHolder | undefined;
    try {
      holder = JSON.parse((await this.readFile(holderFile)).toString("utf8")) as LockHolder;
    } catch {
      holder = undefined;
    }
    return { holder, stale: ageMs > LOCK_STALE_MS, ageMs };
  }

  async replaceKeepingOwner(file: string, target: string, content: string, beforeWrite: () => void, hooks?: WriteHooks): Promise<void> {
    const progress: WriteProgress = { stage: "preparing" };
    try {
      await this.replace(file, target, content, beforeWrite, hooks, progress);
    } catch (e) {
      if (e instanceof HostConnectionLostError && progress.stage !== "preparing") {
        e.whatFileHolds =
          progress.stage === "renaming"
            ? "holds either its old or its new text, each whole (the replacement is one rename): check which"
            : "was being rewritten in place and may be incomplete: check it";
      }
      throw e;
    }
  }

  private async replace(file: string, target: string, content: string, beforeWrite: () => void, hooks: WriteHooks | undefined, progress: WriteProgress): Promise<void> {
    const st = await this.call<Stats>("inspecting", target, (s, cb) => s.stat(target, cb));
    if (await this.replaceAtomically(target, st, content, beforeWrite, hooks, progress)) return;
    let handle: Buffer;
    try {
      handle = await this.call<Buffer>("opening", target, (s, cb) => s.open(target, "r+", cb));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EACCES") throw e;
      throw new FileEditError(
        `cannot rewrite GARM config file ${file} on ${this.label} keeping its owner uid ${st.uid}, group gid ${st.gid} and mode ${(st.mode & 0o7777).toString(8).padStart(4, "0")}: user ${this.connection.user ?? "root"} may not give a new file that owner and may not write the file itself. Let a group that user is in write it (chgrp <group> ${file}; chmod g+w ${file}), log in as its owner, or set connection.sudo with the sudoers line docs/concepts/remote-garm.md gives. The file is unchanged`,
      );
    }
    try {
      beforeWrite();
      progress.stage = "in-place";
      const data = Buffer.from(content, "utf8");
      // Not atomic, as locally: the price of keeping an owner this user cannot give a new file.
      await this.call<void>("writing", target, (s, cb) => s.write(handle, data, 0, data.length, 0, cb));
      await this.call<void>("truncating", target, (s, cb) => s.fsetstat(handle, { size: data.length }, cb));
      await this.call<void>("syncing", target, (s, cb) => s.ext_openssh_fsync(handle, (err) => cb(err)));
    } finally {
      await this.call<void>("closing", target, (s, cb) => s.close(handle, cb)).catch(() => undefined);
    }
  }

  /** Temp file beside `target`, given its owner, group and mode, synced, renamed over it; false when not allowed. */
  private async replaceAtomically(target: string, st: Stats, content: string, beforeRename: () => void, hooks: WriteHooks | undefined, progress: WriteProgress): Promise<boolean> {
    const dir = path.posix.dirname(target);
    const mode = st.mode & 0o7777;
    const temp = path.posix.join(dir, `.${path.posix.basename(target)}.pulumi-garm-${randomBytes(4).toString("hex")}.tmp`);
    let handle: Buffer;
    try {
      handle = await this.call<Buffer>("creating", temp, (s, cb) => s.open(temp, "wx", { mode: mode & 0o777 }, cb));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EACCES") return false;
      throw e;
    }
    let renamed = false;
    try {
      try {
        await this.call<void>("chown", temp, (s, cb) => s.fchown(handle, st.uid, st.gid, cb));
      } catch {
        return false; // this user may not give the file that owner or group
      }
      await this.call<void>("chmod", temp, (s, cb) => s.fchmod(handle, mode, cb));
      const data = Buffer.from(content, "utf8");
      await this.call<void>("writing", temp, (s, cb) => s.write(handle, data, 0, data.length, 0, cb));
      await this.call<void>("syncing", temp, (s, cb) => s.ext_openssh_fsync(handle, (err) => cb(err)));
      await this.call<void>("closing", temp, (s, cb) => s.close(handle, cb));
      await hooks?.afterTempWritten?.(temp);
      beforeRename();
      progress.stage = "renaming";
      try {
        // POSIX rename (posix-rename@openssh.com) replaces the target; plain SFTP rename refuses an existing one.
        await this.call<void>("renaming", temp, (s, cb) => s.ext_openssh_rename(temp, target, cb));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EACCES") return false;
        if (errnoOf(e) === CONNECTION_LOST) {
          // Whether the rename happened is told by the temp file, asked over a new connection: still there, it did not.
          const tempLeft = await this.stat(temp).then(
            () => true,
            (e2) => (errnoOf(e2) === "ENOENT" ? false : undefined),
          );
          if (tempLeft === true) progress.stage = "preparing";
          if (tempLeft === false) {
            renamed = true;
            return true;
          }
        }
        throw e;
      }
      renamed = true;
      return true;
    } finally {
      if (!renamed) await this.remove(temp).catch(() => undefined);
    }
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

/** How far a replacement got: what a lost connection may have left of the file. */
interface WriteProgress {
  stage: "preparing" | "renaming" | "in-place";
}

function describeHolder(h: LockHolder): string {
  return `${h.who} on ${h.where} since ${new Date(h.since).toISOString()}`;
}
