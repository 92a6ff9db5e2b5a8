// Shared setup for the entity and controller scenarios: a GARM simulator, an engine harness whose provider processes
// load this checkout's build, the declarations of each resource kind, and a REST caller for changes made behind
// Pulumi's back.
import { controllerProvider, enterpriseProvider, organizationProvider, repositoryProvider, scaleSetProvider } from "../../../sdk/nodejs/shim";
import type { ResourceDecl } from "../../../harness/engine";
import { type SimulatedGarm, startSimulatedGarm } from "../../support/fixtures";

export type Kind = "organization" | "repository" | "enterprise";

export const RESOURCE: Record<Kind, { type: string; provider: typeof organizationProvider; name: string; plural: string }> = {
  organization: { type: "GarmOrganization", provider: organizationProvider, name: "octo-org", plural: "organizations" },
  repository: { type: "GarmRepository", provider: repositoryProvider, name: "octo/app", plural: "repositories" },
  enterprise: { type: "GarmEnterprise", provider: enterpriseProvider, name: "octo-ent", plural: "enterprises" },
};

export const SECRET = "first-webhook-secret-0123";

export interface Fixture extends SimulatedGarm {
  entity(kind: Kind, name: string, inputs?: Record<string, unknown>): ResourceDecl;
  controller(name: string, inputs: Record<string, unknown>): ResourceDecl;
  scaleSet(name: string, inputs: Record<string, unknown>, dependsOn?: string[]): ResourceDecl;
  /** An authenticated call to the simulator's REST API, as garm-cli would make behind Pulumi's back. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

export async function startFixture(project = "entities-it"): Promise<Fixture> {
  const garm = await startSimulatedGarm(project, { tickMs: 0 });
  const { sim } = garm;
  let token: string | undefined;
  const api = async (method: string, path: string, body?: unknown) => {
    if (!token) {
      const login = await fetch(`${sim.url}/api/v1/auth/login`, { method: "POST", body: JSON.stringify({ username: sim.username, password: sim.password }) });
      token = ((await login.json()) as { token: string }).token;
    }
    const res = await fetch(`${sim.url}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  return {
    ...garm,
    entity: (kind, name, inputs = {}) => ({
      name,
      type: RESOURCE[kind].type,
      module: "garm",
      provider: RESOURCE[kind].provider,
      inputs: { name: RESOURCE[kind].name, credentials: "acme-pat", webhookSecret: SECRET, ...inputs },
    }),
    controller: (name, inputs) => ({ name, type: "GarmController", module: "garm", provider: controllerProvider, inputs }),
    scaleSet: (name, inputs, dependsOn) => ({
      name,
      type: "GarmScaleSet",
      module: "garm",
      provider: scaleSetProvider,
      inputs: { name: "ci", providerName: "fake", image: "ubuntu", flavor: "small", labels: ["linux"], maxRunners: 2, drain: { timeoutSeconds: 10, pollSeconds: 1 }, ...inputs },
      dependsOn,
    }),
    api,
  };
}
