// Shared setup for GarmScaleSet scenarios: a GARM simulator and an engine harness whose provider processes load this
// checkout's build through node_modules/pulumi-garm, exactly as a user's project loads the package.
import { scaleSetProvider } from "../../../sdk/shim";
import type { Engine, ResourceDecl } from "../../support/engine";
import { REPO_ROOT, engineForGarm } from "../../support/engine-for-garm";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../support/simulator";

export { REPO_ROOT };

export interface Fixture {
  sim: Simulator;
  engine: Engine;
  scaleSet(name: string, inputs?: Record<string, unknown>): ResourceDecl;
  close(): Promise<void>;
}

export const baseInputs = {
  name: "ci-small",
  organization: "acme",
  providerName: "fake",
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64"],
  maxRunners: 3,
  minIdleRunners: 0,
  drain: { timeoutSeconds: 20, pollSeconds: 1 },
};

export async function startFixture(options: SimulatorOptions = {}): Promise<Fixture> {
  const sim = await startSimulator({ tickMs: 25, consolidationMs: 300, ...options });
  const engine = engineForGarm(sim, "scaleset-it");
  return {
    sim,
    engine,
    scaleSet: (name, inputs = {}) => ({
      name,
      type: "GarmScaleSet",
      module: "garm",
      provider: scaleSetProvider,
      inputs: { ...baseInputs, ...inputs },
    }),
    close: () => sim.stop(),
  };
}

/** API calls that change something in GARM; logins excluded. */
export function mutatingCalls(sim: Simulator) {
  return sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));
}

/** API calls other than logins. */
export function apiCalls(sim: Simulator) {
  return sim.requests().filter((r) => !r.path.endsWith("/auth/login"));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
