// A GarmScaleSet provider in this process with its own events socket, against the simulator: drains and readiness
// waits can then be timed and their REST calls counted.
import { GarmClient } from "../../../provider/garm/client";
import { type EventsOptions, GarmEvents } from "../../../provider/garm/events";
import type { WaiterOptions } from "../../../provider/common/events-wait";
import { checkScaleSetInputs } from "../../../provider/kinds/scaleset/check";
import { scaleSetProviderWith } from "../../../provider/kinds/scaleset/resource";
import type { Simulator } from "../../../simulator";
import { simulatorScaleSetInputs } from "../../../harness/scaleset-inputs";

export interface Harness {
  readonly client: GarmClient;
  readonly events: GarmEvents | undefined;
  readonly lines: string[];
  create(name: string, inputs?: Record<string, unknown>): Promise<{ id: string; outs: Record<string, unknown> }>;
  destroy(created: { id: string; outs: Record<string, unknown> }): Promise<void>;
  close(): Promise<void>;
}

export const inputsFor = (name: string, extra: Record<string, unknown> = {}) =>
  simulatorScaleSetInputs(name, { minIdleRunners: 0, enabled: true, drain: { timeoutSeconds: 60, pollSeconds: 1 }, ...extra });

export function harness(sim: Simulator, mode: "events" | "polling", waiter: WaiterOptions = {}, socket: Partial<EventsOptions> = {}): Harness {
  const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(`warning: ${l}`) };
  const events = mode === "events" ? new GarmEvents({ url: sim.url, login: (refused) => client.transport.socketLogin(refused), log, ...socket }) : undefined;
  const impl = scaleSetProviderWith({
    client: () => client,
    log,
    now: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    events: () => events,
    waiter,
  });
  return {
    client,
    events,
    lines,
    async create(name, inputs = {}) {
      const checked = checkScaleSetInputs(inputsFor(name, inputs));
      if (checked.failures.length) throw new Error(JSON.stringify(checked.failures));
      return (await impl.create(checked.inputs as never)) as { id: string; outs: Record<string, unknown> };
    },
    async destroy(created) {
      await impl.delete!(created.id, created.outs);
    },
    async close() {
      await events?.close();
      await client.close();
    },
  };
}

/** REST calls (logins excluded) since the simulator's log was cleared. */
export function restCalls(sim: Simulator): number {
  return sim.requests().filter((r) => !r.path.endsWith("/auth/login")).length;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(5);
  }
}
