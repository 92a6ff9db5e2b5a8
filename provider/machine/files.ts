// The file operations a machine offers, as small as the edit (edit.ts) and the lock (lock.ts) need them: one
// interface both this machine (local-files.ts) and one reached over SFTP (sftp-files.ts) implement, so that both
// transports run one algorithm. Failures carry an fs-style `code` (ENOENT, EEXIST, EACCES, EPERM, ENOSPC, ...).

/** What the edit and the lock need to know of a file or directory. */
export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  uid: number;
  gid: number;
  /** Permission and set-id bits (mode & 0o7777). */
  mode: number;
  size: number;
  /** Last modification, by the machine's own clock, in epoch milliseconds (over SFTP to the second). */
  mtimeMs: number;
}

/** An open file of a MachineFiles; only the implementation that opened it knows what it holds. */
export interface OpenFile {
  readonly path: string;
}

export interface MachineFiles {
  /** Where the files are, for messages: "this machine (host)", or "garm@10.0.0.5:22". */
  readonly label: string;
  /** Who acts on the files there, for messages: "uid 1000 (gid 1000)", or "user garm". */
  readonly actor: string;

  readFile(path: string): Promise<Buffer>;
  /** The path with every symlink resolved; ENOENT when it does not exist. */
  realpath(path: string): Promise<string>;
  stat(path: string): Promise<FileInfo>;
  /** The names in a directory. */
  list(dir: string): Promise<string[]>;

  /** Creates `path` for writing, failing with EEXIST when it exists; `mode` before the umask. */
  create(path: string, mode: number): Promise<OpenFile>;
  /** Opens an existing file for writing in place, without truncating it. */
  openForUpdate(path: string): Promise<OpenFile>;
  /** Writes `data` at `position`; resolves with the count written, which may be less than `data.length`. */
  write(f: OpenFile, data: Buffer, position: number): Promise<number>;
  truncate(f: OpenFile, size: number): Promise<void>;
  /** Flushes the file to its disk. */
  sync(f: OpenFile): Promise<void>;
  chown(f: OpenFile, uid: number, gid: number): Promise<void>;
  chmod(f: OpenFile, mode: number): Promise<void>;
  close(f: OpenFile): Promise<void>;

  /** Renames `from` to `to`, replacing a file at `to` (POSIX rename). */
  replace(from: string, to: string): Promise<void>;
  /** Renames `from` to `to`, which must not exist. */
  move(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Makes a directory, failing with EEXIST when the path exists: the lock's one atomic step. */
  mkdir(path: string, mode: number): Promise<void>;
  rmdir(path: string): Promise<void>;
  /** Writes a whole small file (creating or truncating it), e.g. a lock's holder record. */
  writeSmall(path: string, data: Buffer, mode: number): Promise<void>;
  /** Persists the directory's entries (a rename in it); a file system that cannot is not an error. */
  syncDirectory(dir: string): Promise<void>;

  /** The machine's clock in epoch milliseconds, read in `dir`: lock ages are judged by the clock that set the mtimes. */
  now(dir: string): Promise<number>;
  /** Bytes free to this user on the file system of `dir`, or undefined when the machine cannot say. */
  freeBytes(dir: string): Promise<number | undefined>;
}

/** The `code` of an fs-style error. */
export function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** A failure's reason for a message: its own text, with a full disk or quota said in words (SFTP's bare FAILURE says neither). */
export function failureReason(e: unknown): string {
  const code = errnoOf(e);
  if (code === "ENOSPC" || code === "EDQUOT") return `no space left on the file system (${(e as Error).message})`;
  return (e as Error).message;
}

/** An fs-style error with `code`. */
export function codedError(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/**
 * Writes all of `data` at `position`, write after write: a file system that takes fewer bytes than asked (a disk
 * filling up) answers the next write with its reason, or with a count of 0, which is reported as ENOSPC.
 */
export async function writeAll(files: MachineFiles, f: OpenFile, data: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const n = await files.write(f, data.subarray(done), position + done);
    if (n <= 0) throw codedError(`writing ${f.path}: only ${done} of ${data.length} bytes were taken`, "ENOSPC");
    done += n;
  }
}

/** Removes a directory and what pulumi-garm puts in one (a lock's holder file and takeover claims), depth first. */
export async function removeTree(files: MachineFiles, dir: string): Promise<void> {
  let names: string[];
  try {
    names = await files.list(dir);
  } catch (e) {
    if (errnoOf(e) === "ENOENT") return;
    throw e;
  }
  for (const name of names) {
    const child = `${dir}/${name}`;
    const st = await files.stat(child).catch(() => undefined);
    if (st?.isDirectory) await removeTree(files, child);
    else await files.unlink(child).catch((e: unknown) => {
      if (errnoOf(e) !== "ENOENT") throw e;
    });
  }
  await files.rmdir(dir).catch((e: unknown) => {
    if (errnoOf(e) !== "ENOENT") throw e;
  });
}
