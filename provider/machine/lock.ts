// The one lock protocol of a file edited on a machine, the same over every transport (files.ts), so that a writer on
// GARM's host and one over SSH exclude each other:
// - taken by making the directory `<target>.lock` (mkdir is atomic on a local disk and over SFTP alike);
// - held with a token written in its holder file; every write (assertHeld) and the release check it first;
// - kept fresh by rewriting the holder file, whose mtime the machine's own clock sets;
// - stale once the holder file (or, without one, the directory) is older than LOCK_STALE_MS by that same clock;
// - taken over by first making a claim inside the stale directory, which only one writer can make, then moving the
//   directory aside and checking it was the one claimed.
import { randomBytes } from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import { isCancelled, sleepUnlessCancelled } from "../common/cancel";

import { errnoOf, failureReason, removeTree, type MachineFiles } from "./files";
import { CONNECTION_LOST, ConnectionLostError, FileEditError } from "./errors";

/** A lock whose holder has not refreshed it for this long is stale: its holder died or lost its connection. */
export const LOCK_STALE_MS = 30_000;
const LOCK_REFRESH_MS = 5_000;
const LOCK_POLL_MS = 150;
const HOLDER = "holder";
const CLAIM = "takeover";

/** Who holds a lock, recorded with it so a waiting writer can say who it waits for. */
export interface LockRecord {
  /** e.g. `pulumi-garm pid 4242 (user ci)` */
  who: string;
  /** The machine the holder runs on. */
  where: string;
  /** Epoch ms when the lock was taken. */
  since: number;
  /** Unset in locks of pulumi-garm versions before the token. */
  token?: string;
}

export interface LockOptions {
  /** How long to wait for another holder. */
  waitMs: number;
  /** Ends the wait, before anything is written. */
  cancel?: AbortSignal;
  /** What is locked, for messages: e.g. `GARM config file /etc/garm/config.toml`. */
  what: string;
  warn(line: string): void;
  /** Test seam: the staleness bound (LOCK_STALE_MS) and the refresh period. */
  staleMs?: number;
  refreshMs?: number;
}

export interface HeldLock {
  readonly path: string;
  /**
   * A path inside the lock directory that is this holder's alone (`<lock>/<token>.<suffix>`): a file renamed from
   * there reaches its target only while the lock is this holder's, since a takeover moves the directory away first.
   */
  scratch(suffix: string): string;
  /** @throws FileEditError when the lock is no longer this writer's: call it just before each write. */
  assertHeld(): Promise<void>;
  /**
   * Removes the lock if it is still this writer's, resolving true; false when another writer had taken it over.
   * Rejects when it could not be removed, so the caller can say it is left.
   */
  release(): Promise<boolean>;
}

/** How long a lock goes unrefreshed before another writer takes it over, for messages: "30s". */
export const staleAfter = (staleMs = LOCK_STALE_MS): string => `${Math.round(staleMs / 1000)}s`;

function describe(r: LockRecord | undefined): string {
  return r ? `${r.who} on ${r.where} since ${new Date(r.since).toISOString()}` : "another process";
}

interface Seen {
  record?: LockRecord;
  /** How long since the holder (or the directory) was last refreshed, by the machine's clock. */
  ageMs: number;
  /** Whether the age is the holder file's. */
  byHolder: boolean;
}

/** The lock's holder record; undefined when there is none or it does not parse. */
async function readRecord(files: MachineFiles, lockDir: string): Promise<LockRecord | undefined> {
  try {
    return await ownRecord(files, lockDir);
  } catch (e) {
    if (errnoOf(e) === CONNECTION_LOST) throw e;
    return undefined;
  }
}

/**
 * The holder record as its holder checks it, read twice before a failure counts: undefined when the file is gone
 * or does not parse (another writer's lock, or none); rejects when it cannot be read.
 */
async function ownRecord(files: MachineFiles, lockDir: string, attempts = 2): Promise<LockRecord | undefined> {
  let bytes: Buffer;
  try {
    bytes = await files.readFile(`${lockDir}/${HOLDER}`);
  } catch (e) {
    if (errnoOf(e) === "ENOENT") return undefined;
    if (attempts > 1 && errnoOf(e) !== CONNECTION_LOST) return ownRecord(files, lockDir, attempts - 1);
    throw e;
  }
  try {
    const parsed = JSON.parse(bytes.toString("utf8")) as LockRecord;
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The lock as it is now; undefined when it is gone. */
async function inspect(files: MachineFiles, lockDir: string): Promise<Seen | undefined> {
  const ignoreMissing = (e: unknown) => {
    if (errnoOf(e) === CONNECTION_LOST) throw e;
    return undefined;
  };
  const dir = await files.stat(lockDir).catch(ignoreMissing);
  if (!dir) return undefined;
  const holder = await files.stat(`${lockDir}/${HOLDER}`).catch(ignoreMissing);
  const record = await readRecord(files, lockDir);
  const now = await files.now(path.posix.dirname(lockDir));
  // A claim made inside the directory moves its mtime: the holder file, when there is one, is the lock's age.
  const byHolder = holder !== undefined;
  return { record, ageMs: now - (holder ?? dir).mtimeMs, byHolder };
}

async function exists(files: MachineFiles, p: string): Promise<boolean> {
  return files.stat(p).then(
    () => true,
    (e) => {
      if (errnoOf(e) === CONNECTION_LOST) throw e;
      return false;
    },
  );
}

/**
 * Takes the stale lock `lockDir` as `seen` showed it, or returns false when another writer does or it is no longer
 * stale. Of writers that all judged it stale, only the one whose claim directory inside it was made goes on.
 */
async function takeOver(files: MachineFiles, lockDir: string, seen: Seen, staleMs: number): Promise<boolean> {
  const claim = `${lockDir}/${CLAIM}`;
  try {
    await files.mkdir(claim, 0o700);
  } catch (e) {
    if (errnoOf(e) === CONNECTION_LOST) throw e;
    // Another writer is taking it over, or died doing so: its claim is moved aside once as old as a stale lock.
    const st = await files.stat(claim).catch(() => undefined);
    if (st && (await files.now(path.posix.dirname(lockDir))) - st.mtimeMs > staleMs) {
      await files.move(claim, `${lockDir}/${CLAIM}.dead-${randomBytes(4).toString("hex")}`).catch(() => undefined);
    }
    return false;
  }
  const again = await inspect(files, lockDir);
  const same = again !== undefined && again.record?.token === seen.record?.token && (!again.byHolder || again.ageMs > staleMs);
  if (!same) {
    await files.rmdir(claim).catch(() => undefined);
    return false;
  }
  const grave = `${lockDir}.stale-${randomBytes(4).toString("hex")}`;
  try {
    await files.move(lockDir, grave);
  } catch (e) {
    if (errnoOf(e) === CONNECTION_LOST) throw e;
    return false;
  }
  // The move names a path: check that what moved is the directory this writer claimed, or put it back.
  const moved = (await exists(files, `${grave}/${CLAIM}`)) && (await readRecord(files, grave))?.token === seen.record?.token;
  if (!moved) {
    await files.move(grave, lockDir).catch(() => undefined);
    return false;
  }
  await removeTree(files, grave).catch(() => undefined);
  return true;
}

/**
 * Takes the exclusive lock of `target` (`<target>.lock`), waiting at most `options.waitMs` for another holder and
 * taking over a stale one.
 * @throws FileEditError when the lock cannot be made (no permission, a read-only or full file system), another
 * holder keeps it past the wait, or the wait is cancelled; the file is unchanged. A lost connection is rethrown.
 */
export async function takeLock(files: MachineFiles, target: string, options: LockOptions): Promise<HeldLock> {
  const staleMs = options.staleMs ?? LOCK_STALE_MS;
  const lockDir = `${target}.lock`;
  const dir = path.posix.dirname(target);
  const on = `${options.what} on ${files.label}`;
  const deadline = Date.now() + options.waitMs;
  let unexplained = 0;
  for (;;) {
    try {
      await files.mkdir(lockDir, 0o700);
      break;
    } catch (e) {
      const code = errnoOf(e);
      if (code === CONNECTION_LOST) throw e;
      if (code === "EACCES" || code === "EPERM") {
        throw new FileEditError(
          `cannot lock ${on}: no permission to create ${lockDir} in directory ${dir} as ${files.actor}; give this user write access to ${dir} (e.g. through its group), or run as a user who has it. The file is unchanged`,
        );
      }
      if (code === "EROFS") throw new FileEditError(`cannot lock ${on}: directory ${dir} is on a read-only file system. The file is unchanged`);
      // sftp-server answers an existing directory with a plain FAILURE; a lock released just after it answered is
      // gone by the time it is looked at, so only repeated failures with no lock there are the file system's.
      if (code !== "EEXIST" && !(await exists(files, lockDir))) {
        if (++unexplained < 5) continue;
        throw new FileEditError(`cannot lock ${on}: creating ${lockDir} failed (${failureReason(e)}). The file is unchanged`);
      }
    }
    const seen = await inspect(files, lockDir);
    if (!seen) continue;
    if (seen.ageMs > staleMs) {
      if (await takeOver(files, lockDir, seen, staleMs)) {
        options.warn(`took over the lock ${lockDir} of ${on} left by ${describe(seen.record)}, not refreshed for ${Math.round(seen.ageMs / 1000)}s`);
      }
      continue;
    }
    if (Date.now() >= deadline) {
      throw new FileEditError(
        `cannot lock ${on}: ${describe(seen.record)} holds ${lockDir} and did not release it within ${options.waitMs / 1000}s; retry when it is done (a lock not refreshed for ${staleAfter(staleMs)} is taken over)`,
      );
    }
    try {
      await sleepUnlessCancelled(Math.min(LOCK_POLL_MS, Math.max(0, deadline - Date.now())), options.cancel);
    } catch (err) {
      if (!isCancelled(err)) throw err;
      throw new FileEditError(`cancelled while waiting for the lock ${lockDir} of ${on}; the file is unchanged`);
    }
  }
  const token = randomBytes(12).toString("hex");
  const me: LockRecord = { who: `pulumi-garm pid ${process.pid} (user ${os.userInfo().username})`, where: os.hostname(), since: Date.now(), token };
  const holderFile = `${lockDir}/${HOLDER}`;
  const writeRecord = () => files.writeSmall(holderFile, Buffer.from(JSON.stringify(me)), 0o644);
  try {
    await writeRecord();
  } catch (e) {
    // Over a new connection when the old one is gone.
    const left = await removeTree(files, lockDir).then(
      () => false,
      () => true,
    );
    if (e instanceof ConnectionLostError) {
      const lost = new ConnectionLostError(
        `${e.message}; the ${options.what} is unchanged; ${left ? `its lock ${lockDir} is left behind and is taken over once not refreshed for ${staleAfter(staleMs)}` : `its lock ${lockDir} was removed`}; run again`,
      );
      lost.lockTold = true;
      throw lost;
    }
    throw new FileEditError(
      `cannot lock ${on}: writing who holds it to ${holderFile} failed (${failureReason(e)}); ${left ? `the lock ${lockDir} is left behind: remove it once no pulumi-garm runs` : `the lock ${lockDir} was removed`}. The file is unchanged`,
    );
  }
  return holdLock(files, lockDir, token, writeRecord, on, options);
}

function holdLock(files: MachineFiles, lockDir: string, token: string, writeRecord: () => Promise<void>, on: string, options: LockOptions): HeldLock {
  let lost: string | undefined;
  let refreshFailed = false;
  const refresh = async () => {
    const now = await ownRecord(files, lockDir);
    if (now?.token !== token) {
      if (!lost) {
        lost = now ? `${describe(now)} holds it now` : "it is gone";
        options.warn(`lost the lock ${lockDir} of ${on} (${lost}); this writer writes nothing more`);
      }
      return;
    }
    await writeRecord();
    refreshFailed = false;
  };
  const timer = setInterval(() => {
    void refresh().catch((e: unknown) => {
      if (refreshFailed) return;
      refreshFailed = true;
      options.warn(`could not refresh the lock ${lockDir} of ${on} (${failureReason(e)}); another writer may take it over after ${staleAfter(options.staleMs)}`);
    });
  }, options.refreshMs ?? LOCK_REFRESH_MS);
  timer.unref();
  return {
    path: lockDir,
    scratch: (suffix) => `${lockDir}/${token}.${suffix}`,
    async assertHeld() {
      let now: LockRecord | undefined;
      if (!lost) {
        try {
          now = await ownRecord(files, lockDir);
        } catch (e) {
          if (e instanceof ConnectionLostError) throw e;
          throw new FileEditError(`cannot check that the lock ${lockDir} of ${on} is still this writer's (${failureReason(e)}); nothing was written, the file is unchanged; run again`);
        }
      }
      if (lost || now?.token !== token) {
        throw new FileEditError(`lost the lock ${lockDir} of ${on} (${lost ?? (now ? `${describe(now)} holds it now` : "it is gone")}); nothing was written, the file is unchanged; run again`);
      }
    },
    async release() {
      clearInterval(timer);
      // Each step is tried again once, over a new connection when the old one was lost: a lock left behind blocks
      // every writer until it is stale.
      const now = await twice(() => ownRecord(files, lockDir));
      if (now?.token !== token) return false; // taken over: the lock is another writer's now
      await twice(() => files.unlink(`${lockDir}/${HOLDER}`)).catch((e: unknown) => {
        if (errnoOf(e) !== "ENOENT") throw e;
      });
      try {
        await twice(() => files.rmdir(lockDir));
      } catch (e) {
        if (errnoOf(e) === CONNECTION_LOST) throw e;
        if (errnoOf(e) === "ENOENT") return true;
        // A claim a waiting writer made inside it meanwhile: move the whole directory aside and remove it there.
        const grave = `${lockDir}.released-${randomBytes(4).toString("hex")}`;
        await files.move(lockDir, grave);
        await removeTree(files, grave);
      }
      return true;
    },
  };
}

async function twice<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch {
    return step();
  }
}
