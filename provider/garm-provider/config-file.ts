// Locked, validated, atomic rewrites of GARM's config file: the file is either replaced whole or left untouched.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as lockfile from "proper-lockfile";
import { GarmConfigError } from "./garm-config";

export interface EditHooks {
  /** Test seam: runs after the temp file is complete and synced, before it replaces the config file. */
  afterTempWritten?: (tempPath: string) => void | Promise<void>;
}

export interface EditOptions {
  hooks?: EditHooks;
  /** How long to keep retrying for the lock, in milliseconds. Defaults to 30000. */
  lockWaitMs?: number;
}

export interface EditResult {
  /** False when the edit produced the same text, so nothing was written. */
  changed: boolean;
  before: string;
  after: string;
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Reads the config file as UTF-8 text.
 * @throws GarmConfigError when it is missing, unreadable or not UTF-8 (a lossy round trip would change its bytes).
 */
export async function readConfigText(file: string): Promise<string> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch (e) {
    if (errno(e) === "ENOENT") {
      throw new GarmConfigError(`GARM config file ${file} does not exist; check garmConfigPath (GARM reads --config, default /etc/garm/config.toml)`);
    }
    throw new GarmConfigError(`cannot read GARM config file ${file}: ${(e as Error).message}`);
  }
  const text = buf.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(buf)) {
    throw new GarmConfigError(`GARM config file ${file} is not valid UTF-8; pulumi-garm edits only UTF-8 files, fix its encoding first`);
  }
  return text;
}

// Writers in this process queue here first, so they follow each other at once instead of polling the lock file;
// the lock file then only arbitrates with other processes.
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
 * Rewrites `file` as `edit(current text)` under an exclusive lock (`<file>.lock`). `validate(before, after)` must
 * throw to refuse the result; then, and on any other failure, the file is left as it was.
 */
export async function editConfigFile(
  file: string,
  edit: (text: string) => string,
  validate: (before: string, after: string) => void,
  options: EditOptions = {},
): Promise<EditResult> {
  const key = await fs.realpath(file).catch(() => file);
  return serialized(key, () => editLocked(file, edit, validate, options));
}

async function editLocked(
  file: string,
  edit: (text: string) => string,
  validate: (before: string, after: string) => void,
  options: EditOptions,
): Promise<EditResult> {
  let target: string;
  try {
    // Write through a symlink to its target: renaming over the link would replace the link itself.
    target = await fs.realpath(file);
  } catch (e) {
    if (errno(e) === "ENOENT") {
      throw new GarmConfigError(`GARM config file ${file} does not exist; check garmConfigPath (GARM reads --config, default /etc/garm/config.toml)`);
    }
    throw new GarmConfigError(`cannot resolve GARM config file ${file}: ${(e as Error).message}`);
  }
  let compromised: Error | undefined;
  const waitMs = options.lockWaitMs ?? 30_000;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      stale: 20_000,
      retries: { retries: Math.max(1, Math.ceil(waitMs / 100)), factor: 1, minTimeout: 20, maxTimeout: 100, randomize: true },
      // The default handler throws from a timer and would crash the provider process.
      onCompromised: (err) => {
        compromised = err;
      },
    });
  } catch (e) {
    throw new GarmConfigError(
      `cannot lock GARM config file ${file} (${(e as Error).message}); another process holds ${target}.lock, retry when it is done or remove the lock if it is stale`,
    );
  }
  try {
    const before = await readConfigText(target);
    const after = edit(before);
    if (after === before) return { changed: false, before, after };
    validate(before, after);
    await writeAtomically(target, after, options.hooks, () => {
      if (compromised) throw new GarmConfigError(`lost the lock on ${file} (${compromised.message}); nothing was written, run again`);
    });
    return { changed: true, before, after };
  } finally {
    await release().catch(() => undefined);
  }
}

/** Temp file in the same directory + fsync + rename, keeping mode (and owner when running as root). */
async function writeAtomically(target: string, content: string, hooks: EditHooks | undefined, beforeRename: () => void): Promise<void> {
  const dir = path.dirname(target);
  const st = await fs.stat(target);
  const mode = st.mode & 0o7777;
  const temp = path.join(dir, `.${path.basename(target)}.pulumi-garm-${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  let renamed = false;
  try {
    const fh = await fs.open(temp, "wx", mode);
    try {
      await fh.chmod(mode); // open() applies the umask; the config must keep its exact mode
      if (process.getuid?.() === 0) await fh.chown(st.uid, st.gid);
      await fh.writeFile(content, "utf8");
      await fh.sync();
    } finally {
      await fh.close();
    }
    await hooks?.afterTempWritten?.(temp);
    beforeRename();
    await fs.rename(temp, target);
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
}
