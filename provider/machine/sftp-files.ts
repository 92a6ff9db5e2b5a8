// A remote machine's files over SFTP (ssh2), as MachineFiles (files.ts). Each call takes the session anew from
// `session()`, so a call after a lost connection runs on a new one.
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import type { SFTPWrapper, Stats } from "ssh2";
import { ConnectionLostError } from "./errors";
import { codedError, type FileInfo, type MachineFiles, type OpenFile } from "./files";

// SFTP status codes (draft-ietf-secsh-filexfer-02 §7), mapped to fs codes. sftp-server answers most failures,
// an existing directory and a full disk among them, with a plain FAILURE (4).
const SFTP_CODES: Record<number, string> = { 2: "ENOENT", 3: "EACCES", 4: "EFAILURE", 8: "ENOTSUP" };

// What ssh2 answers every request still in flight when the SFTP channel ends: the connection (or sftp-server) is gone.
const CHANNEL_ENDED = "No response from server";

interface SftpOpenFile extends OpenFile {
  handle: Buffer;
}

type Callback<T> = (err: Error | undefined | null, v?: T) => void;

function info(st: Stats): FileInfo {
  return { isFile: st.isFile(), isDirectory: st.isDirectory(), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, size: st.size, mtimeMs: st.mtime * 1000 };
}

export class SftpFiles implements MachineFiles {
  /** The machine's clock minus this one's, measured once per connection (a probe file's mtime). */
  private clockOffset?: { session: SFTPWrapper; ms: number };

  constructor(
    readonly label: string,
    readonly actor: string,
    private readonly session: () => Promise<SFTPWrapper>,
  ) {}

  private async call<T>(op: string, file: string, fn: (s: SFTPWrapper, cb: Callback<T>) => void): Promise<T> {
    const s = await this.session();
    return new Promise<T>((resolve, reject) =>
      fn(s, (err, v) => {
        if (!err) return resolve(v as T);
        if (err.message === CHANNEL_ENDED) return reject(new ConnectionLostError(`the SSH connection to ${this.label} was lost while ${op} ${file}`));
        const status = (err as { code?: number }).code ?? -1;
        reject(codedError(`${op} ${file} over SFTP: ${err.message}${status === 4 ? " (the server gave no reason)" : ""}`, SFTP_CODES[status] ?? "EIO"));
      }),
    );
  }

  readFile(file: string): Promise<Buffer> {
    return this.call<Buffer>("reading", file, (s, cb) => s.readFile(file, cb));
  }

  realpath(file: string): Promise<string> {
    // OpenSSH's sftp-server answers with realpath(3), which resolves symlinks and fails for a missing file.
    return this.call<string>("resolving", file, (s, cb) => s.realpath(file, cb));
  }

  async stat(file: string): Promise<FileInfo> {
    return info(await this.call<Stats>("inspecting", file, (s, cb) => s.stat(file, cb)));
  }

  async list(dir: string): Promise<string[]> {
    const entries = await this.call<{ filename: string }[]>("listing", dir, (s, cb) => s.readdir(dir, cb as Callback<unknown>));
    return entries.map((e) => e.filename).filter((n) => n !== "." && n !== "..");
  }

  async create(file: string, mode: number): Promise<OpenFile> {
    const handle = await this.call<Buffer>("creating", file, (s, cb) => s.open(file, "wx", { mode }, cb));
    return { path: file, handle } as SftpOpenFile;
  }

  async openForUpdate(file: string): Promise<OpenFile> {
    const handle = await this.call<Buffer>("opening", file, (s, cb) => s.open(file, "r+", cb));
    return { path: file, handle } as SftpOpenFile;
  }

  async write(f: OpenFile, data: Buffer, position: number): Promise<number> {
    try {
      await this.call<void>("writing", f.path, (s, cb) => s.write((f as SftpOpenFile).handle, data, 0, data.length, position, cb));
      return data.length;
    } catch (e) {
      // sftp-server reports a short write and a full disk alike as FAILURE: the free space tells them apart.
      if ((e as NodeJS.ErrnoException).code !== "EFAILURE") throw e;
      const free = await this.freeBytes(path.posix.dirname(f.path)).catch(() => undefined);
      if (free !== undefined && free < data.length) throw codedError(`writing ${f.path} over SFTP: no space left on the file system (${free} bytes free)`, "ENOSPC");
      throw e;
    }
  }

  truncate(f: OpenFile, size: number): Promise<void> {
    return this.call<void>("truncating", f.path, (s, cb) => s.fsetstat((f as SftpOpenFile).handle, { size }, cb));
  }

  sync(f: OpenFile): Promise<void> {
    return this.call<void>("syncing", f.path, (s, cb) => s.ext_openssh_fsync((f as SftpOpenFile).handle, (err) => cb(err)));
  }

  chown(f: OpenFile, uid: number, gid: number): Promise<void> {
    return this.call<void>("chown", f.path, (s, cb) => s.fchown((f as SftpOpenFile).handle, uid, gid, cb));
  }

  chmod(f: OpenFile, mode: number): Promise<void> {
    return this.call<void>("chmod", f.path, (s, cb) => s.fchmod((f as SftpOpenFile).handle, mode, cb));
  }

  close(f: OpenFile): Promise<void> {
    return this.call<void>("closing", f.path, (s, cb) => s.close((f as SftpOpenFile).handle, cb));
  }

  replace(from: string, to: string): Promise<void> {
    // posix-rename@openssh.com replaces the target; plain SFTP rename refuses an existing one.
    return this.call<void>("renaming", from, (s, cb) => s.ext_openssh_rename(from, to, cb));
  }

  move(from: string, to: string): Promise<void> {
    return this.call<void>("renaming", from, (s, cb) => s.rename(from, to, cb));
  }

  unlink(file: string): Promise<void> {
    return this.call<void>("removing", file, (s, cb) => s.unlink(file, cb));
  }

  mkdir(dir: string, mode: number): Promise<void> {
    return this.call<void>("creating", dir, (s, cb) => s.mkdir(dir, { mode }, cb));
  }

  rmdir(dir: string): Promise<void> {
    return this.call<void>("removing", dir, (s, cb) => s.rmdir(dir, cb));
  }

  writeSmall(file: string, data: Buffer, mode: number): Promise<void> {
    return this.call<void>("writing", file, (s, cb) => s.writeFile(file, data, { mode }, cb));
  }

  async syncDirectory(): Promise<void> {
    // SFTP has no way to fsync a directory; OpenSSH's posix-rename is as durable as the server's file system makes it.
  }

  async now(dir: string): Promise<number> {
    const session = await this.session();
    if (this.clockOffset?.session !== session) {
      const probe = path.posix.join(dir, `.pulumi-garm-clock-${randomBytes(4).toString("hex")}`);
      const sent = Date.now();
      try {
        await this.writeSmall(probe, Buffer.alloc(0), 0o600);
        const st = await this.stat(probe);
        // The mtime has whole seconds: the probe was made within [sent, now], so take the middle of its second.
        this.clockOffset = { session, ms: st.mtimeMs + 500 - (sent + Date.now()) / 2 };
      } catch (e) {
        if (e instanceof ConnectionLostError) throw e;
        // No probe (a full disk, a directory this user cannot write): the holder's clock stands in for the machine's.
        this.clockOffset = { session, ms: 0 };
      } finally {
        await this.unlink(probe).catch(() => undefined);
      }
    }
    return Date.now() + this.clockOffset.ms;
  }

  async freeBytes(dir: string): Promise<number | undefined> {
    try {
      const st = await this.call<{ bavail: number; frsize: number; bsize: number }>("inspecting", dir, (s, cb) => s.ext_openssh_statvfs(dir, cb as Callback<unknown>));
      return st.bavail * (st.frsize || st.bsize);
    } catch {
      return undefined;
    }
  }
}
