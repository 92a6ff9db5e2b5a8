// Shared setup for GarmEndpoint and GarmCredentials scenarios: the GARM simulator, an engine harness whose provider
// processes load this checkout's build, and a REST client for changes made behind Pulumi's back.
import { credentialsProvider, endpointProvider } from "../../../sdk/nodejs/shim";
import { type ResourceDecl, ref } from "../../../harness/engine";
import { type SimulatedGarm, mutatingCalls, startSimulatedGarm } from "../../support/fixtures";
import { Client } from "../simulator/helpers";

export { mutatingCalls };

export interface ForgeFixture extends SimulatedGarm {
  /** Logged-in raw REST client for out-of-band changes, whose answers keep GARM's status and error body. */
  rest: Client;
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
  const garm = await startSimulatedGarm(project, { tickMs: 0 });
  const rest = new Client(garm.sim);
  await rest.login();
  return { ...garm, rest };
}
