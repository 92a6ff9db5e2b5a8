// The machine GARM's config file lives on, as GarmProvider uses it: read, inspect, lock and replace the file, and run
// GARM's restart command there. local-host.ts is this machine; another implementation reaches a remote one.
import { isCancelled, sleepUnlessCancelled } from "../common/cancel";
import { FileEditError } from "./errors";
import type { CommandResult } from "./shell";

/** What GarmProvider needs to know of a file: its kind, owner, group and permission bits. */
export interface HostFileStat {
  isFile: boolean;
  uid: number;
  gid: number;
  /** Permission and set-id bits (mode & 0o7777). */
  mode: number;
}

export interface WriteHooks {
  /** Test seam: runs after the temp file is complete and synced, before it replaces the config file. */
  afterTempWritten?: (tempPath: string) => void | Promise<void>;
}

/** Who holds a lock, recorded with it so a waiting writer can say who it waits for. */
export interface LockHolder {
  /** e.g. `pulumi-garm pid 4242` */
  who: string;
  /** The machine the holder runs on. */
  where: string;
  /** Epoch ms when the lock was taken. */
  since: number;
}

export interface GarmHost {
  /** Where the files are, for messages: "this machine", or "garm@10.0.0.5:22". */
  readonly label: string;

  /** The file's bytes. Fails with an error carrying `code` (ENOENT, EACCES, ...) as node's fs does. */
  readFile(file: string): Promise<Buffer>;
  /** The path with every symlink resolved; fails with `code` ENOENT when it does not exist. */
  realpath(file: string): Promise<string>;
  /** Owner, group and mode; fails with `code` ENOENT when the file does not exist. */
  stat(file: string): Promise<HostFileStat>;

  /**
   * Replaces `target` (a resolved path) with `content`, keeping its owner, group and mode: a temp file in the same
   * directory renamed over it where the new file can be given that owner and group, the file rewritten in place where
   * not. `beforeWrite` runs just before the first byte reaches the target (the rename, or the in-place write) and may
   * throw to write nothing.
   * @throws FileEditError naming owner, group and mode when neither way keeps them; the file is unchanged.
   */
  replaceKeepingOwner(file: string, target: string, content: string, beforeWrite: () => void, hooks?: WriteHooks): Promise<void>;

  /**
   * Takes the exclusive lock of `target` (`<target>.lock`), waiting at most `waitMs` for another holder.
   * `onCompromised` is called when the lock is lost while held. Resolves with its release. The wait ends when `cancel`
   * (the provider instance's cancellation, ../../common/cancel.ts) aborts, before anything is written.
   * @throws FileEditError when the lock cannot be made, another holder keeps it past `waitMs`, or the wait is cancelled.
   */
  lock(file: string, target: string, waitMs: number, onCompromised: (err: Error) => void, cancel?: AbortSignal): Promise<() => Promise<void>>;

  /** Writes a small file (mode 0644) as it is, not atomically: for pulumi-garm's own notes beside the config file. */
  writeNote(file: string, text: string): Promise<void>;
  /** Removes a file; a file already gone is not an error. */
  remove(file: string): Promise<void>;

  /**
   * Runs `command` through `/bin/sh -c` and settles when that shell exits, not when what it started in the background
   * does. After `timeoutMs` it stops the shell and what it started in its process group, nothing else.
   * Never rejects for a failing command, only reports.
   */
  run(command: string, timeoutMs: number): Promise<CommandResult>;
}

/** The `code` of an error from a host whose connection ended while an operation on it was in flight. */
export const CONNECTION_LOST = "ECONNLOST";

/**
 * The connection to the file's host was lost during an operation. The host says how far a replacement of GARM's config
 * file got (`whatFileHolds`, unset: the file was not touched yet); editConfigFile says so and what became of the lock
 * (`lockStaleSeconds`: when another writer may take over a lock left behind).
 */
export class HostConnectionLostError extends FileEditError {
  readonly code = CONNECTION_LOST;
  whatFileHolds?: string;
  constructor(
    message: string,
    readonly lockStaleSeconds: number,
  ) {
    super(message);
  }
}

/** The `code` of an fs-style error. */
export function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** Waits `ms` between lock attempts; a cancelled wait is a FileEditError saying the file is unchanged. */
export async function lockPause(file: string, lockPath: string, ms: number, cancel: AbortSignal | undefined): Promise<void> {
  try {
    await sleepUnlessCancelled(ms, cancel);
  } catch (err) {
    if (!isCancelled(err)) throw err;
    throw new FileEditError(`cancelled while waiting for the lock on GARM config file ${file} (${lockPath}); the file is unchanged`);
  }
}
