// The collaborators a scale set's or pool's methods run with, replaceable in tests, and the real ones.
import type { GarmClient } from "../garm/client";
import type { GarmEvents } from "../garm/events";
import { type WaiterOptions, processEvents } from "../common/events-wait";
import { type Logger, consoleLogger } from "../common/log";

export interface RunnerDeps {
  readonly client: () => GarmClient;
  readonly log: Logger;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** GARM's events socket for this client, which wakes drain and readiness waits; without it they poll. */
  readonly events?: (client: GarmClient) => GarmEvents | undefined;
  readonly waiter?: WaiterOptions;
  /** Bound on one read of GARM made while planning (check, diff). @default 5000 */
  readonly readTimeoutMs?: number;
}

/** The real collaborators, with GARM reached through `client` (the process's connection, or one plugin instance's). */
export function runnerDepsFor(client: () => GarmClient): RunnerDeps {
  return {
    client,
    log: consoleLogger,
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    events: (garm) => processEvents(garm, consoleLogger),
  };
}
