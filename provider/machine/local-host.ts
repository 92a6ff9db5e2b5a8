// This machine as GARM's host: the config file read, locked (proper-lockfile) and replaced with node's fs, and the
// restart command run by shell.ts.
import { randomBytes } from "node:crypto";
import { promises as fs, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import * as lockfile from "proper-lockfile";
import { FileEditError } from "./errors";
import { errnoOf as errno, type GarmHost, type HostFileStat, type WriteHooks as EditHooks, lockPause } from "./host";
import { runShellCommand } from "./shell";

const LOCK_POLL_MS = 100;

export const localHost: GarmHost = {
  label: `this machine (${os.hostname()})`,
  readFile: (file) => fs.readFile(file),
  realpath: (file) => fs.realpath(file),
  async stat(file): Promise<HostFileStat> {
    const st = await fs.stat(file);
    return { isFile: st.isFile(), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
  },
  replaceKeepingOwner: (file, target, content, beforeWrite, hooks) => writeKeepingOwner(file, target, content, hooks, beforeWrite),
  lock: (file, target, waitMs, onCompromised, cancel) => acquireLock(file, target, waitMs, onCompromised, cancel),
  writeNote: (file, text) => fs.writeFile(file, text, { mode: 0o644 }),
  remove: (file) => fs.unlink(file).catch((e) => {
    if (errno(e) !== "ENOENT") throw e;
  }),
  run: runShellCommand,
};

/**
 * Takes `<target>.lock`, polling while another process holds it, for at most `waitMs`.
 * @throws FileEditError at once when the lock cannot be created at all (a directory this user may not write), and
 * after `waitMs` when another process keeps holding it.
 */
async function acquireLock(file: string, target: string, waitMs: number, onCompromised: (err: Error) => void, cancel?: AbortSignal): Promise<() => Promise<void>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await lockfile.lock(target, {
        realpath: false,
        stale: 20_000,
        retries: 0,
        // The default handler throws from a timer and would crash the provider process.
        onCompromised,
      });
    } catch (e) {
      if (errno(e) !== "ELOCKED") throw lockFailure(file, target, e);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new FileEditError(
          `cannot lock GARM config file ${file}: another process holds ${target}.lock and did not release it within ${waitMs / 1000}s; retry when it is done, or remove the lock if no pulumi-garm or other editor is running`,
        );
      }
      await lockPause(file, `${target}.lock`, Math.min(left, LOCK_POLL_MS), cancel);
    }
  }
}

function lockFailure(file: string, target: string, e: unknown): FileEditError {
  const dir = path.dirname(target);
  const code = errno(e);
  if (code === "EACCES" || code === "EPERM") {
    return new FileEditError(
      `cannot lock GARM config file ${file}: no permission to create ${target}.lock in directory ${dir} (${code}) as uid ${process.getuid?.() ?? "?"}; give this user write access to ${dir} (e.g. through its group), or run pulumi as a user who has it. The file is unchanged`,
    );
  }
  if (code === "EROFS") {
    return new FileEditError(`cannot lock GARM config file ${file}: directory ${dir} is on a read-only file system. The file is unchanged`);
  }
  return new FileEditError(`cannot lock GARM config file ${file}: creating ${target}.lock failed (${(e as Error).message}). The file is unchanged`);
}

/**
 * Replaces `target` with `content`, keeping its owner, group and mode: through a temp file and a rename (atomic) when
 * the new file can be given the same owner and group; otherwise (a user who is not the owner, or not in the file's
 * group) by rewriting the file in place, which keeps the inode and with it owner, group and mode.
 * @throws FileEditError when neither keeps them: the file is not writable for this user.
 */
async function writeKeepingOwner(
  file: string,
  target: string,
  content: string,
  hooks: EditHooks | undefined,
  beforeWrite: () => void,
): Promise<void> {
  const st = await fs.stat(target);
  if (await writeAtomically(target, st, content, hooks, beforeWrite)) return;
  let fh: FileHandle;
  try {
    fh = await fs.open(target, "r+");
  } catch (e) {
    if (errno(e) !== "EACCES" && errno(e) !== "EPERM") throw e;
    throw new FileEditError(
      `cannot rewrite GARM config file ${file} keeping its owner uid ${st.uid} and group gid ${st.gid}: pulumi runs as uid ${process.getuid?.()} (gid ${process.getgid?.()}), which may not give a new file that owner, and may not write the file itself (${errno(e)}). Let a group this user is in write it (chgrp <group> ${file}; chmod g+w ${file}), or run pulumi as uid ${st.uid}. The file is unchanged`,
    );
  }
  try {
    beforeWrite();
    const data = Buffer.from(content, "utf8");
    // Not atomic, unlike the rename: editors that take the lock never see it half written, but a crash here would
    // leave it so. This is the price of keeping an owner this user cannot give a new file.
    await fh.write(data, 0, data.length, 0);
    await fh.truncate(data.length);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Temp file in the same directory + fsync + rename, keeping mode, owner and group. Returns false, having written
 * nothing, when this user may not give the temp file the target's owner and group.
 */
async function writeAtomically(
  target: string,
  st: Stats,
  content: string,
  hooks: EditHooks | undefined,
  beforeRename: () => void,
): Promise<boolean> {
  const dir = path.dirname(target);
  const mode = st.mode & 0o7777;
  const temp = path.join(dir, `.${path.basename(target)}.pulumi-garm-${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  let renamed = false;
  try {
    let fh: FileHandle;
    try {
      fh = await fs.open(temp, "wx", mode);
    } catch (e) {
      // A directory this user may not add files to: the file itself may still be writable.
      if (errno(e) === "EACCES" || errno(e) === "EPERM") return false;
      throw e;
    }
    try {
      if (process.getuid !== undefined) {
        try {
          await fh.chown(st.uid, st.gid);
        } catch (e) {
          if (errno(e) === "EPERM") return false;
          throw e;
        }
      }
      await fh.chmod(mode); // after chown, which may clear set-id bits; open() applied the umask
      await fh.writeFile(content, "utf8");
      await fh.sync();
    } finally {
      await fh.close();
    }
    await hooks?.afterTempWritten?.(temp);
    beforeRename();
    try {
      await fs.rename(temp, target);
    } catch (e) {
      // A sticky directory lets only the owner replace the file.
      if (errno(e) === "EPERM" || errno(e) === "EACCES") return false;
      throw e;
    }
    renamed = true;
  } finally {
    if (!renamed) await fs.unlink(temp).catch(() => undefined);
  }
  // Persist the rename itself; some file systems do not support fsync on a directory, which is harmless here.
  try {
    const dh = await fs.open(dir, "r");
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    /* best effort */
  }
  return true;
}
