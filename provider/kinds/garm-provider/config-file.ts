// Locked, validated rewrites of GARM's config file on the machine it lives on: the one edit of ../../machine/edit.ts,
// worded for GARM's config file.
import { decodeUtf8, editFile, type EditResult, type WriteHooks } from "../../machine/edit";
import { FileEditError } from "../../machine/errors";
import { errnoOf as errno, type GarmHost, HostConnectionLostError } from "../../machine/host";
import { localHost } from "../../machine/local-host";

export type EditHooks = WriteHooks;
export type { EditResult };

export interface EditOptions {
  hooks?: EditHooks;
  /** How long to wait for a lock another process holds, in milliseconds. Defaults to 30000. */
  lockWaitMs?: number;
  /** The machine the file lives on. Defaults to this one. */
  host?: GarmHost;
  /** The provider instance's cancellation (../../common/cancel.ts): a lock wait ends on it, before anything is written. */
  cancel?: AbortSignal;
  /** Test seam: when a lock not refreshed counts as stale. */
  lockStaleMs?: number;
}

export const DEFAULT_LOCK_WAIT_MS = 30_000;

const WHAT = "GARM config file";
const MISSING_HINT = "check garmConfigPath (GARM reads --config, default /etc/garm/config.toml)";

/**
 * Reads the config file as UTF-8 text.
 * @throws FileEditError when it is missing, unreadable or not UTF-8 (a lossy round trip would change its bytes).
 */
export async function readConfigText(file: string, host: GarmHost = localHost): Promise<string> {
  let buf: Buffer;
  try {
    buf = await host.readFile(file);
  } catch (e) {
    if (errno(e) === "ENOENT") throw new FileEditError(`${WHAT} ${file} does not exist; ${MISSING_HINT}`);
    if (e instanceof HostConnectionLostError) throw e;
    throw new FileEditError(`cannot read ${WHAT} ${file}: ${(e as Error).message}`);
  }
  return decodeUtf8(buf, WHAT, file);
}

/**
 * Rewrites `file` as `edit(current text)` under its exclusive lock (`<file>.lock`). `validate(before, after)` must
 * throw to refuse the result; then, and on any other failure, the file is left as it was or put back, and the error
 * says which.
 */
export function editConfigFile(
  file: string,
  edit: (text: string) => string,
  validate: (before: string, after: string) => void,
  options: EditOptions = {},
): Promise<EditResult> {
  const host = options.host ?? localHost;
  const warn = host.warn ?? ((line: string) => console.warn(line));
  return editFile(host.files, file, edit, validate, {
    what: WHAT,
    missingHint: MISSING_HINT,
    hooks: options.hooks,
    lockWaitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    cancel: options.cancel,
    warn: (line) => warn(`GarmProvider: ${line}`),
    lockStaleMs: options.lockStaleMs,
  });
}
