// Shared setup for GarmScaleSet scenarios (and the pool and template ones, which use the same simulator timing): the
// shared simulated GARM of test/support/fixtures.ts, with a scale set declaration over common inputs.
import { poolProvider, scaleSetProvider, templateProvider } from "../../../sdk/nodejs/shim";
import type { ResourceDecl } from "../../../harness/engine";
import { REPO_ROOT } from "../../../harness/engine-for-garm";
import { type SimulatedGarm, mutatingCalls, startSimulatedGarm } from "../../support/fixtures";
import type { Simulator, SimulatorOptions } from "../../../simulator";
import { resourceCalls } from "../../../harness/garm-calls";

export { REPO_ROOT, mutatingCalls };

export interface Fixture extends SimulatedGarm {
  scaleSet(name: string, inputs?: Record<string, unknown>): ResourceDecl;
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
  const garm = await startSimulatedGarm("scaleset-it", { tickMs: 25, consolidationMs: 300, ...options });
  return {
    ...garm,
    scaleSet: (name, inputs = {}) => ({
      name,
      type: "GarmScaleSet",
      module: "garm",
      provider: scaleSetProvider,
      inputs: { ...baseInputs, ...inputs },
    }),
  };
}

/**
 * A fixture whose GARM goes away (its connections dropped) right after it carried out a request whose answer it then
 * lost, so the look-up that follows a lost create answer fails too. `resumeServing()` brings it back.
 */
export async function startFixtureGoneAfterLostAnswer(options: SimulatorOptions = {}): Promise<Fixture> {
  const box: { fx?: Fixture } = {};
  box.fx = await startFixture({
    ...options,
    log: (line) => {
      options.log?.(line);
      if (/lost the answer to POST/.test(line)) box.fx?.sim.stopServing("drop");
    },
  });
  return box.fx;
}

/** The common inputs of the pool scenarios. */
export const poolInputs = {
  organization: "acme",
  providerName: "fake",
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64"],
  maxRunners: 3,
  drain: { timeoutSeconds: 20, pollSeconds: 1 },
};

export function poolDecl(name: string, inputs: Record<string, unknown> = {}): ResourceDecl {
  return { name, type: "GarmPool", module: "garm", provider: poolProvider, inputs: { ...poolInputs, ...inputs } };
}

export const TEMPLATE_BODY = "#!/bin/bash\necho install {{ .RunnerName }}\n";

export function templateDecl(name: string, inputs: Record<string, unknown> = {}): ResourceDecl {
  return { name, type: "GarmTemplate", module: "garm", provider: templateProvider, inputs: { name: "ci-linux", body: TEMPLATE_BODY, ...inputs } };
}

/** API calls other than logins and the provider process's one version read (harness/garm-calls.ts). */
export function apiCalls(sim: Simulator) {
  return resourceCalls(sim.requests());
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
