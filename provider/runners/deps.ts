// The collaborators a scale set's or pool's methods run with, replaceable in tests, and the real ones.
import type { GarmClient } from "../garm/client";
import type { GarmEvents } from "../garm/events";
import { type WaiterOptions, processEvents } from "../common/events-wait";
import { sleepUnlessCancelled } from "../common/cancel";
import { type Logger, consoleLogger } from "../common/log";

export interface RunnerDeps {
  readonly client: () => GarmClient;
  readonly log: Logger;
  readonly now: () => number;
  /** Rejects with the cancellation when `cancel` aborts. */
  readonly sleep: (ms: number) => Promise<void>;
  /** The provider instance's cancellation (../common/cancel.ts): every wait ends on it and no new GARM call starts. */
  readonly cancel?: AbortSignal;
  /** GARM's events socket for this client, which wakes drain and readiness waits; without it they poll. */
  readonly events?: (client: GarmClient) => GarmEvents | undefined;
  readonly waiter?: WaiterOptions;
  /** Bound on one read of GARM made while planning (check, diff). @default 5000 */
  readonly readTimeoutMs?: number;
}

/**
 * The real collaborators, with GARM reached through `client` (the process's connection, or one plugin instance's) and
 * the waits ended by that instance's `cancel`.
 */
export function runnerDepsFor(client: () => GarmClient, cancel?: AbortSignal): RunnerDeps {
  return {
    client,
    log: consoleLogger,
    now: Date.now,
    sleep: (ms) => sleepUnlessCancelled(ms, cancel),
    cancel,
    events: (garm) => processEvents(garm, consoleLogger),
  };
}
