// The setup engine scenarios share: a GARM simulator, an engine harness whose provider processes load this checkout's
// build (as a user's stack talks to GARM), and a REST client for changes made behind Pulumi's back; one close ends all.
import { GarmClient } from "../../provider/garm/client";
import type { Engine } from "../../harness/engine";
import { engineForGarm } from "../../harness/engine-for-garm";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../simulator";

export interface SimulatedGarm {
  readonly sim: Simulator;
  readonly engine: Engine;
  /** pulumi-garm's own client logged in to the simulator, made on first use. */
  garm(): GarmClient;
  close(): Promise<void>;
}

/** Starts the simulator with `options` and an engine harness for stack `dev` of `project` against it. */
export async function startSimulatedGarm(project: string, options: SimulatorOptions = {}): Promise<SimulatedGarm> {
  const sim = await startSimulator(options);
  const engine = engineForGarm(sim, project);
  let client: GarmClient | undefined;
  return {
    sim,
    engine,
    garm: () => (client ??= new GarmClient({ url: sim.url, username: sim.username, password: sim.password })),
    close: async () => {
      await client?.close();
      await sim.stop();
    },
  };
}

/** API calls that change something in GARM; logins excluded. */
export function mutatingCalls(sim: Simulator) {
  return sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));
}
