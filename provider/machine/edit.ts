// The one edit of a file on a machine, over any transport (files.ts): read, lock (lock.ts), write the new bytes, read
// them back. Where the file's owner can be kept, the new bytes go to a temp file beside it that is renamed over it;
// where not, a copy of the old bytes is kept first, the file is rewritten in place with every write's count checked,
// and on any failure the old bytes are written back. A failure says what the file holds: unchanged, restored,
// old-or-new, or damaged (and where its old bytes are kept).
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import { CONNECTION_LOST, ConnectionLostError, FileEditError, type FileState } from "./errors";
import { errnoOf, failureReason, writeAll, type FileInfo, type MachineFiles, type OpenFile } from "./files";
import { LOCK_STALE_MS, staleAfter, takeLock, type HeldLock } from "./lock";

export interface WriteHooks {
  /** Test seam: runs after the temp file is complete and synced, before it replaces the file. */
  afterTempWritten?: (tempPath: string) => void | Promise<void>;
  /** Test seam: runs after the in-place rewrite took its first bytes, before the rest. */
  afterPartialWrite?: (target: string) => void | Promise<void>;
}

export interface EditOptions {
  /** What the file is, for messages: e.g. "GARM config file". */
  what: string;
  /** Said after "<what> <file> does not exist" when it is missing. */
  missingHint?: string;
  hooks?: WriteHooks;
  /** How long to wait for a lock another writer holds, in milliseconds. */
  lockWaitMs: number;
  /** Ends a lock wait, before anything is written. */
  cancel?: AbortSignal;
  warn(line: string): void;
  /** Test seam: the lock's staleness bound. */
  lockStaleMs?: number;
}

export interface EditResult {
  /** False when the edit produced the same text, so nothing was written. */
  changed: boolean;
  before: string;
  after: string;
}

const HOLDS: Record<FileState, string> = {
  unchanged: "is unchanged",
  restored: "holds its old bytes again (restored after the failed write)",
  "old-or-new": "holds either its old or its new text, each whole: check which",
  damaged: "may be incomplete",
};

/** Decodes the file as UTF-8, refusing bytes that would not round-trip. */
export function decodeUtf8(buf: Buffer, what: string, file: string): string {
  const text = buf.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(buf)) throw new FileEditError(`${what} ${file} is not valid UTF-8; pulumi-garm edits only UTF-8 files, fix its encoding first`);
  return text;
}

// Writers in this process queue here first, so they follow each other at once instead of polling the lock;
// the lock then only arbitrates with other processes.
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

/**
 * Rewrites `file` on `files`' machine as `edit(current text)` under the lock of the file it resolves to.
 * `validate(before, after)` throws to refuse the result; then, and on any failure before the first byte is written,
 * the file is left as it was. Resolves once the file read back holds the new text.
 * @throws FileEditError (ConnectionLostError for a lost connection) whose message and `fileState` say what the file
 * holds and what became of its lock; errors thrown by `edit` and `validate` as they are.
 */
export async function editFile(
  files: MachineFiles,
  file: string,
  edit: (text: string) => string,
  validate: (before: string, after: string) => void,
  options: EditOptions,
): Promise<EditResult> {
  // Write through a symlink to its target: renaming over the link would replace the link itself.
  const resolved = await files.realpath(file).then(
    (target) => ({ target }),
    (error: unknown) => ({ error }),
  );
  const key = `${files.label}\0${"target" in resolved ? resolved.target : file}`;
  return serialized(key, () => editLocked(files, file, resolved, edit, validate, options));
}

async function editLocked(
  files: MachineFiles,
  file: string,
  resolved: { target: string } | { error: unknown },
  edit: (text: string) => string,
  validate: (before: string, after: string) => void,
  options: EditOptions,
): Promise<EditResult> {
  const what = `${options.what} ${file}`;
  if ("error" in resolved) {
    const e = resolved.error;
    if (e instanceof ConnectionLostError) throw withLock(new ConnectionLostError(`${e.message}; ${what} ${HOLDS.unchanged}`), "unchanged", file, "none");
    if (errnoOf(e) === "ENOENT") throw new FileEditError(`${what} does not exist${options.missingHint ? `; ${options.missingHint}` : ""}`);
    // The machine's own refusal (a sudo that did not start) already says what to do.
    if (e instanceof FileEditError) throw e;
    throw new FileEditError(`cannot resolve ${what}: ${(e as Error).message}; the file is unchanged`);
  }
  const target = resolved.target;
  const lock = await takeLock(files, target, { waitMs: options.lockWaitMs, cancel: options.cancel, what: options.what + " " + file, warn: options.warn, staleMs: options.lockStaleMs }).catch(
    (e: unknown) => {
      if (!(e instanceof ConnectionLostError)) throw e;
      // A lock whose holder could not be recorded says itself what became of it.
      throw e.lockTold ? e : withLock(new ConnectionLostError(`${e.message}; ${what} ${HOLDS.unchanged}`), "unchanged", target, "maybe", options.lockStaleMs);
    },
  );
  // A release that fails leaves the lock to be taken over as stale: said, not thrown, once the file is written.
  const releaseOrWarn = () =>
    lock.release().catch((e: unknown) => {
      options.warn(`could not remove the lock ${lock.path} of ${what} (${failureReason(e)}); it is taken over once not refreshed for ${staleAfter(options.lockStaleMs)}`);
      return true;
    });
  let result: EditResult;
  try {
    let bytes: Buffer;
    try {
      bytes = await files.readFile(target);
    } catch (e) {
      if (e instanceof ConnectionLostError) throw e;
      throw new FileEditError(`cannot read ${what}: ${(e as Error).message}; the file is unchanged`);
    }
    const before = decodeUtf8(bytes, options.what, file);
    const after = edit(before);
    if (after === before) {
      result = { changed: false, before, after };
    } else {
      validate(before, after);
      const way = await writeNew(files, { what, on: files.label, file, target, hooks: options.hooks, lock }, bytes, Buffer.from(after, "utf8"));
      result = { changed: true, before, after };
      const held = await releaseOrWarn();
      // A rename from inside the lock lands only while the lock is held; an in-place rewrite has no such guard.
      if (!held && way === "in place") {
        throw new FileEditError(
          `another writer took over the lock ${lock.path} of ${what} as stale while this one rewrote the file in place: the file holds this writer's text, which may have replaced the other writer's change; run pulumi up again in the other writer's stack too`,
          "old-or-new",
        );
      }
      return result;
    }
  } catch (e) {
    const released = await lock.release().then(
      () => "yes" as const,
      () => "no" as const,
    );
    if (e instanceof ConnectionLostError) {
      const said = described.has(e) ? e : new ConnectionLostError(`${e.message}; ${what} ${HOLDS[e.fileState]}`, e.fileState);
      throw withLock(said, e.fileState, target, released, options.lockStaleMs);
    }
    if (e instanceof FileEditError && released === "no") throw new FileEditError(`${e.message}; its lock ${lock.path} is left behind and is taken over once not refreshed for ${staleAfter(options.lockStaleMs)}`, e.fileState);
    throw e;
  }
  await releaseOrWarn();
  return result;
}

/** A lost connection's error saying what the file holds and what became of its lock. */
function withLock(e: ConnectionLostError, state: FileState, target: string, released: "yes" | "no" | "maybe" | "none", staleMs = LOCK_STALE_MS): ConnectionLostError {
  const takenOver = `taken over once it has not been refreshed for ${staleAfter(staleMs)}`;
  const lock = {
    yes: `; its lock ${target}.lock was released`,
    no: `; its lock ${target}.lock is left behind and is ${takenOver}`,
    maybe: `; a lock ${target}.lock it left is ${takenOver}`,
    none: "",
  }[released];
  return new ConnectionLostError(`${e.message}${lock}; run again`, state);
}

interface WriteContext {
  /** `<what> <file>`, for messages. */
  what: string;
  /** The machine, for messages. */
  on: string;
  file: string;
  target: string;
  hooks?: WriteHooks;
  /** The file's lock: fencing before each write, and the directory the temp file is written in. */
  lock: HeldLock;
}

/** Puts `after` in place of `before`, keeping owner, group and mode, and checks the file reads back as `after`. */
async function writeNew(files: MachineFiles, ctx: WriteContext, before: Buffer, after: Buffer): Promise<"renamed" | "in place"> {
  let st: FileInfo;
  try {
    st = await files.stat(ctx.target);
  } catch (e) {
    if (e instanceof ConnectionLostError) throw e;
    throw new FileEditError(`cannot inspect ${ctx.what}: ${(e as Error).message}; the file is unchanged`);
  }
  if ((await replaceByRename(files, ctx, st, after)) === "renamed") {
    const back = await files.readFile(ctx.target).catch((e: unknown) => {
      if (e instanceof ConnectionLostError) throw new ConnectionLostError(`${e.message} (reading the new text back)`, "old-or-new");
      throw new FileEditError(`cannot read ${ctx.what} back after replacing it (${failureReason(e)}); it ${HOLDS["old-or-new"]}`, "old-or-new");
    });
    if (!back.equals(after)) throw new FileEditError(`${ctx.what} read back differs from what was written: another program changed it meanwhile; check it`, "old-or-new");
    return "renamed";
  }
  await rewriteInPlace(files, ctx, st, before, after);
  return "in place";
}

// Errors that already say what the file holds, so an outer step does not say it twice.
const described = new WeakSet<Error>();

/** `e` as an error saying what the file now holds (`state`); errors of the edit's own wording pass as they are. */
function failed(e: unknown, state: FileState, doing: string, ctx: WriteContext): FileEditError {
  if (e instanceof Error && described.has(e)) return e as FileEditError;
  if (e instanceof FileEditError && !(e instanceof ConnectionLostError)) return e;
  const out =
    e instanceof ConnectionLostError
      ? new ConnectionLostError(`${e.message}; ${ctx.what} ${HOLDS[state]}`, state)
      : new FileEditError(`cannot write ${ctx.what} on ${ctx.on}: ${doing} failed (${failureReason(e)}); the file ${HOLDS[state]}`, state);
  described.add(out);
  return out;
}

/**
 * Writes `after` to a temp file beside the target with its owner, group and mode, and renames it over the target.
 * @returns "not-allowed", having changed nothing, when this user may not make that file or rename it there.
 */
async function replaceByRename(files: MachineFiles, ctx: WriteContext, st: FileInfo, after: Buffer): Promise<"renamed" | "not-allowed"> {
  const dir = path.posix.dirname(ctx.target);
  // In the lock's directory, beside the file: a takeover moves it away, so a rename stalled past the lock's life fails.
  const temp = ctx.lock.scratch("tmp");
  let f: OpenFile;
  try {
    f = await files.create(temp, st.mode & 0o777);
  } catch (e) {
    const code = errnoOf(e);
    // A directory this user may not add files to: the file itself may still be writable.
    if (code === "EACCES" || code === "EPERM") return "not-allowed";
    throw failed(e, "unchanged", `creating ${temp}`, ctx);
  }
  let open = true;
  let placed = false;
  try {
    try {
      await files.chown(f, st.uid, st.gid);
    } catch (e) {
      if (errnoOf(e) === CONNECTION_LOST) throw e;
      return "not-allowed"; // this user may not give the file that owner or group
    }
    await files.chmod(f, st.mode); // after chown, which may clear set-id bits; create() applied the umask
    await writeAll(files, f, after, 0);
    await files.sync(f);
    open = false;
    await files.close(f);
    await ctx.hooks?.afterTempWritten?.(temp);
    await ctx.lock.assertHeld();
    try {
      await files.replace(temp, ctx.target);
    } catch (e) {
      const code = errnoOf(e);
      if (code === "ENOENT") {
        throw new FileEditError(`lost the lock ${ctx.lock.path} of ${ctx.what} while writing: another writer took it over as stale; this writer's text was not written, the file is unchanged; run again`);
      }
      // A sticky directory lets only the owner replace the file.
      if (code === "EPERM" || code === "EACCES") return "not-allowed";
      if (code !== CONNECTION_LOST) throw e;
      // Whether the rename happened is told by the temp file, asked over a new connection: still there, it did not.
      const tempLeft = await files.stat(temp).then(
        () => true,
        (e2: unknown) => (errnoOf(e2) === "ENOENT" ? false : undefined),
      );
      if (tempLeft === false) {
        placed = true;
        return "renamed";
      }
      throw failed(e, tempLeft ? "unchanged" : "old-or-new", `renaming ${temp} over it`, ctx);
    }
    placed = true;
  } catch (e) {
    throw failed(e, "unchanged", `writing the new text to ${temp}`, ctx);
  } finally {
    if (open) await files.close(f).catch(() => undefined);
    if (!placed) await removeFile(files, temp);
  }
  await files.syncDirectory(dir).catch(() => undefined);
  return "renamed";
}

/**
 * Rewrites the target in place (its inode, and with it owner, group and mode, stays), after keeping a copy of the
 * old bytes; every failure after the first byte written puts the old bytes back.
 */
async function rewriteInPlace(files: MachineFiles, ctx: WriteContext, st: FileInfo, before: Buffer, after: Buffer): Promise<void> {
  let f: OpenFile;
  try {
    f = await files.openForUpdate(ctx.target);
  } catch (e) {
    const code = errnoOf(e);
    if (code !== "EACCES" && code !== "EPERM") throw failed(e, "unchanged", "opening it for writing", ctx);
    throw new FileEditError(
      `cannot rewrite ${ctx.what} on ${files.label} keeping its owner uid ${st.uid}, group gid ${st.gid} and mode ${st.mode.toString(8).padStart(4, "0")}: ${files.actor} may not give a new file that owner and may not write the file itself (${code}). Let a group this user is in write it (chgrp <group> ${ctx.file}; chmod g+w ${ctx.file}), run as its owner, or (over SSH) set connection.sudo with the sudoers line docs/concepts/remote-garm.md gives. The file is unchanged`,
    );
  }
  let open = true;
  let copy: string | undefined;
  let noCopy = "";
  try {
    ({ copy, why: noCopy } = await keepCopy(files, ctx, before));
    await ctx.lock.assertHeld();
  } catch (e) {
    await files.close(f).catch(() => undefined);
    if (copy) await removeFile(files, copy);
    throw failed(e, "unchanged", "keeping a copy of the old text", ctx);
  }
  try {
    const partial = ctx.hooks?.afterPartialWrite;
    const first = partial ? Math.min(after.length, 1) : after.length;
    await writeAll(files, f, after.subarray(0, first), 0);
    await partial?.(ctx.target);
    await writeAll(files, f, after.subarray(first), first);
    await files.truncate(f, after.length);
    await files.sync(f);
    open = false;
    await files.close(f);
    const back = await files.readFile(ctx.target);
    if (!back.equals(after)) throw new Error(`reading it back gave ${back.length} bytes that differ from the ${after.length} written`);
  } catch (e) {
    if (open) await files.close(f).catch(() => undefined);
    const restored = await restore(files, ctx.target, before);
    if (restored && copy) await removeFile(files, copy);
    const state: FileState = restored ? "restored" : "damaged";
    const kept = restored ? "" : copy ? `; a copy of its old bytes is kept at ${copy}: put it back with \`cat ${copy} > ${ctx.target}\`` : `; no copy of its old bytes could be kept (${noCopy})`;
    const lost = e instanceof ConnectionLostError;
    const message = `${lost ? e.message : `cannot rewrite ${ctx.what} on ${files.label} in place: ${failureReason(e)}`}; the file ${HOLDS[state]}${kept}`;
    const out = lost ? new ConnectionLostError(message, state) : new FileEditError(message, state);
    described.add(out);
    throw out;
  }
  if (copy) await removeFile(files, copy);
}

/** Removes a file of the edit's own, trying twice: a temp file or copy left behind is litter beside GARM's file. */
async function removeFile(files: MachineFiles, file: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await files.unlink(file);
      return;
    } catch (e) {
      if (errnoOf(e) === "ENOENT") return;
    }
  }
}

/** Keeps the old bytes in a file of their own beside the target, or else in the machine's /tmp; says why not. */
async function keepCopy(files: MachineFiles, ctx: WriteContext, before: Buffer): Promise<{ copy?: string; why: string }> {
  const name = `.${path.posix.basename(ctx.target)}.pulumi-garm-backup-${randomBytes(4).toString("hex")}`;
  const why: string[] = [];
  for (const dir of [path.posix.dirname(ctx.target), "/tmp"]) {
    const copy = path.posix.join(dir, name);
    let f: OpenFile;
    try {
      f = await files.create(copy, 0o600);
    } catch (e) {
      if (errnoOf(e) === CONNECTION_LOST) throw e;
      why.push(`${dir}: ${failureReason(e)}`);
      continue;
    }
    try {
      await writeAll(files, f, before, 0);
      await files.sync(f);
      await files.close(f);
      return { copy, why: "" };
    } catch (e) {
      await files.close(f).catch(() => undefined);
      await removeFile(files, copy);
      if (errnoOf(e) === CONNECTION_LOST) throw e;
      why.push(`${dir}: ${failureReason(e)}`);
    }
  }
  return { why: why.join("; ") };
}

/** Writes `before` back over the target (over a new connection when the old one is gone); true once it reads back. */
async function restore(files: MachineFiles, target: string, before: Buffer): Promise<boolean> {
  try {
    const f = await files.openForUpdate(target);
    try {
      // The old bytes fit in the blocks the file already had: a full disk does not refuse them.
      await writeAll(files, f, before, 0);
      await files.truncate(f, before.length);
      await files.sync(f);
    } finally {
      await files.close(f).catch(() => undefined);
    }
    return (await files.readFile(target)).equals(before);
  } catch {
    return false;
  }
}
