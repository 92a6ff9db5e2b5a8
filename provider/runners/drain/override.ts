// The drain timeout one run may use instead of the stored one. A delete runs with the options stored at the last
// `pulumi up`, and a pending delete with its old generation's; neither can be changed without re-enabling the scale set
// or pool, or editing state, so the environment of the run that deletes is where a user asks for a longer wait.
import type { DrainOptions } from "./options";

export const DRAIN_TIMEOUT_ENV = "PULUMI_GARM_DRAIN_TIMEOUT_SECONDS";

/**
 * The stored drain options, with `timeoutSeconds` taken from PULUMI_GARM_DRAIN_TIMEOUT_SECONDS when it is set.
 * @throws Error naming the variable when it is not a whole number of seconds above 0.
 */
export function drainOptionsFor(stored: DrainOptions, env: NodeJS.ProcessEnv = process.env): DrainOptions {
  const raw = env[DRAIN_TIMEOUT_ENV];
  if (raw === undefined || raw === "") return stored;
  const seconds = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new Error(`${DRAIN_TIMEOUT_ENV} is ${JSON.stringify(raw)}; it must be a whole number of seconds above 0, e.g. 1800. Nothing was changed`);
  }
  return { ...stored, timeoutSeconds: seconds };
}
