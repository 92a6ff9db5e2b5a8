// A replacement is only gap-free if the new generation can take jobs before the old one is drained: Pulumi deletes the
// old scale set right after the new one is created (create-before-delete), and GARM needs a while to boot runners.
import type { GarmClient } from "../garm/client";
import { isGarmError } from "../garm/errors";
import { type Logger, formatDuration } from "../log";

export interface ReadinessDeps {
  readonly client: Pick<GarmClient, "listScaleSetInstances">;
  readonly log: Logger;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** A runner the provider reports up (§7.1); GARM may still be registering it with GitHub. */
const isUp = (status: string) => status === "running";

/**
 * Waits until the scale set has `wanted` runners up, polling every `pollMs`, for at most `timeoutMs`. Resolves true
 * when they are up, false (after a warning) when the time ran out: the old generation is retired either way.
 */
export async function waitForRunners(
  label: string,
  scaleSetId: number,
  wanted: number,
  timeoutMs: number,
  pollMs: number,
  deps: ReadinessDeps,
): Promise<boolean> {
  const deadline = deps.now() + timeoutMs;
  for (;;) {
    let up = 0;
    try {
      up = (await deps.client.listScaleSetInstances(scaleSetId)).filter((r) => isUp(r.status)).length;
    } catch (err) {
      if (!isGarmError(err, "connection") && !isGarmError(err, "timeout") && !isGarmError(err, "server-error")) throw err;
    }
    if (up >= wanted) return true;
    const left = deadline - deps.now();
    if (left <= 0) {
      deps.log.warn(
        `${label}: only ${up} of ${wanted} idle runners are up after ${formatDuration(timeoutMs)}; retiring the previous generation anyway`,
      );
      return false;
    }
    deps.log.info(`${label}: waiting for ${wanted - up} more runner(s) to come up before the previous generation is retired (up to ${formatDuration(left)})`);
    await deps.sleep(Math.min(pollMs, left));
  }
}
