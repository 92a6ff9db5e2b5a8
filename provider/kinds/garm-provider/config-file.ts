// Locked, validated rewrites of GARM's config file that keep its owner, group and mode, on the host the file lives on
// (host.ts): the whole new text is built and validated first, then the host replaces the file or leaves it untouched.
import { GarmConfigError } from "./garm-config";
import { errnoOf as errno, type GarmHost, HostConnectionLostError, type WriteHooks } from "../../machine/host";
import { localHost } from "../../machine/local-host";

export type EditHooks = WriteHooks;

export interface EditOptions {
  hooks?: EditHooks;
  /** How long to wait for a lock another process holds, in milliseconds. Defaults to 30000. */
  lockWaitMs?: number;
  /** The machine the file lives on. Defaults to this one. */
  host?: GarmHost;
  /** The provider instance's cancellation (../../common/cancel.ts): a lock wait ends on it, before anything is written. */
  cancel?: AbortSignal;
}

export interface EditResult {
  /** False when the edit produced the same text, so nothing was written. */
  changed: boolean;
  before: string;
  after: string;
}

export const DEFAULT_LOCK_WAIT_MS = 30_000;

/**
 * Reads the config file as UTF-8 text.
 * @throws GarmConfigError when it is missing, unreadable or not UTF-8 (a lossy round trip would change its bytes).
 */
export async function readConfigText(file: string, host: GarmHost = localHost): Promise<string> {
  let buf: Buffer;
  try {
    buf = await host.readFile(file);
  } catch (e) {
    if (errno(e) === "ENOENT") {
      throw new GarmConfigError(`GARM config file ${file} does not exist; check garmConfigPath (GARM reads --config, default /etc/garm/config.toml)`);
    }
    if (e instanceof HostConnectionLostError) throw e;
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
  const host = options.host ?? localHost;
  const key = `${host.label}\0${await host.realpath(file).catch(() => file)}`;
  return serialized(key, () => editLocked(host, file, edit, validate, options));
}

async function editLocked(
  host: GarmHost,
  file: string,
  edit: (text: string) => string,
  validate: (before: string, after: string) => void,
  options: EditOptions,
): Promise<EditResult> {
  let target: string;
  try {
    // Write through a symlink to its target: renaming over the link would replace the link itself.
    target = await host.realpath(file);
  } catch (e) {
    if (errno(e) === "ENOENT") {
      throw new GarmConfigError(`GARM config file ${file} does not exist; check garmConfigPath (GARM reads --config, default /etc/garm/config.toml)`);
    }
    throw new GarmConfigError(`cannot resolve GARM config file ${file}: ${(e as Error).message}`);
  }
  let compromised: Error | undefined;
  const release = await host
    .lock(
      file,
      target,
      options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
      (err) => {
        compromised = err;
      },
      options.cancel,
    )
    .catch((e: unknown) => {
      throw connectionLost(e, file, target, "maybe");
    });
  let result: EditResult;
  try {
    const before = await readConfigText(target, host);
    const after = edit(before);
    if (after === before) {
      result = { changed: false, before, after };
    } else {
      validate(before, after);
      const beforeWrite = () => {
        if (compromised) throw new GarmConfigError(`lost the lock on ${file} (${compromised.message}); nothing was written, run again`);
      };
      await host.replaceKeepingOwner(file, target, after, beforeWrite, options.hooks);
      result = { changed: true, before, after };
    }
  } catch (e) {
    const released = await release().then(
      () => "yes" as const,
      () => "no" as const,
    );
    throw connectionLost(e, file, target, released);
  }
  await release().catch(() => undefined);
  return result;
}

/**
 * A lost connection's error, saying what became of the file (unchanged, unless the host said how far its replacement
 * got) and of its lock: released, left behind, or (lost while taking it) perhaps left behind.
 */
function connectionLost(e: unknown, file: string, target: string, released: "yes" | "no" | "maybe"): unknown {
  if (!(e instanceof HostConnectionLostError)) return e;
  const takenOver = `taken over once it has not been refreshed for ${e.lockStaleSeconds}s`;
  const lock = { yes: `its lock ${target}.lock was released`, no: `its lock ${target}.lock is left behind and is ${takenOver}`, maybe: `a lock ${target}.lock it left is ${takenOver}` }[released];
  return new HostConnectionLostError(`${e.message}; GARM config file ${file} ${e.whatFileHolds ?? "is unchanged"}; ${lock}; run again`, e.lockStaleSeconds);
}

