// A replacement is only gap-free if the new generation can take jobs before the old one is drained, and GARM needs a
// while to boot runners: the old generation's retirement (succession.ts) waits here first.
import type { GarmClient, InstanceView } from "../../garm/client";
import type { WaitForChange } from "../../common/events-wait";
import { isTransient } from "../../garm/errors";
import { ChangeLog, type Logger, formatDuration } from "../../common/log";

export interface ReadinessDeps {
  readonly client: Pick<GarmClient, "listScaleSetInstances">;
  readonly log: Logger;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * Between checks: ends early on a GARM event about this scale set's runners, including one that came while the
   * check before it read GARM, so it must listen from before the first check (changeWaiter listens from its creation).
   * Without it, sleeps the poll interval.
   */
  readonly wait?: WaitForChange;
  /**
   * Reads the runners instead of listing the scale set's instances; undefined when the scale set is no longer worth
   * waiting for (disabled or gone), which ends the wait.
   */
  readonly readRunners?: () => Promise<readonly InstanceView[] | undefined>;
}

/** Up and registered: the provider reports it running (§7.1) and the runner itself reported idle or took a job (§7.2). */
const isReady = (r: { status: string; runnerStatus: string }) =>
  r.status === "running" && (r.runnerStatus === "idle" || r.runnerStatus === "active");

/**
 * Waits until the scale set has `wanted` runners ready, polling every `pollMs`, for at most `timeoutMs`. Resolves true
 * when they are up, false when readRunners says it is no longer worth waiting for or (after a warning) when the time
 * ran out: the old generation is retired either way.
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
  const progress = new ChangeLog(deps.log, deps.now);
  for (;;) {
    let up = 0;
    try {
      const runners = deps.readRunners ? await deps.readRunners() : await deps.client.listScaleSetInstances(scaleSetId);
      if (runners === undefined) return false;
      up = runners.filter(isReady).length;
    } catch (err) {
      if (!isTransient(err)) throw err;
    }
    if (up >= wanted) return true;
    const left = deadline - deps.now();
    if (left <= 0) {
      deps.log.warn(
        `${label}: only ${up} of ${wanted} idle runners are ready after ${formatDuration(timeoutMs)}; retiring the previous generation anyway`,
      );
      return false;
    }
    progress.info(`waiting for ${wanted - up}`, () =>
      `${label}: waiting for ${wanted - up} more runner(s) to come online before the previous generation is retired (up to ${formatDuration(left)})`,
    );
    if (deps.wait) await deps.wait(pollMs, left);
    else await deps.sleep(Math.min(pollMs, left));
  }
}
