// Shared setup for GarmEndpoint and GarmCredentials scenarios: the GARM simulator, an engine harness whose provider
// processes load this checkout's build, and a REST client for changes made behind Pulumi's back.
import { credentialsProvider, endpointProvider } from "../../../sdk/shim";
import { type Engine, type ResourceDecl, ref } from "../../support/engine";
import { engineForGarm } from "../../support/engine-for-garm";
import { type Simulator, startSimulator } from "../../support/simulator";
import { Client } from "../simulator/helpers";

export interface ForgeFixture {
  sim: Simulator;
  engine: Engine;
  /** Logged-in REST client for out-of-band changes. */
  rest: Client;
  close(): Promise<void>;
}

export const GHE = {
  name: "ghe",
  description: "GitHub Enterprise",
  baseUrl: "https://ghe.example.test",
  apiBaseUrl: "https://ghe.example.test/api/v3/",
  uploadBaseUrl: "https://ghe.example.test/api/uploads/",
};

export function endpointDecl(name: string, inputs: Record<string, unknown> = {}): ResourceDecl {
  return { name, type: "GarmEndpoint", module: "garm", provider: endpointProvider, inputs: { ...GHE, ...inputs } };
}

/** Credentials on the endpoint resource `endpointResource` (by its name output), or on a plain endpoint name. */
export function credentialsDecl(name: string, inputs: Record<string, unknown> = {}, endpointResource?: string): ResourceDecl {
  return {
    name,
    type: "GarmCredentials",
    module: "garm",
    provider: credentialsProvider,
    inputs: { name: "ghe-pat", token: "ghp_first_token_value", endpoint: endpointResource ? ref(endpointResource, "name") : "github.com", ...inputs },
  };
}

export async function startForgeFixture(project: string): Promise<ForgeFixture> {
  const sim = await startSimulator({ tickMs: 0 });
  const engine = engineForGarm(sim, project);
  const rest = new Client(sim);
  await rest.login();
  return { sim, engine, rest, close: () => sim.stop() };
}

/** API calls that change something in GARM; logins excluded. */
export function mutatingCalls(sim: Simulator) {
  return sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));
}
