// What still uses an endpoint or credentials in GARM, managed by this stack or not: GARM refuses those deletes
// (database/sql/github.go L190-220 for endpoints, L517-525 for credentials); we name the dependents first.
import type { CredentialsView, Forge, ForgeCalls } from "../garm/client";

export interface Dependent {
  /** e.g. "credentials", "organization" */
  readonly kind: string;
  /** e.g. "acme-pat", "acme/app" */
  readonly name: string;
  /** GARM id */
  readonly id: string;
}

export const describeDependent = (d: Dependent) => `${d.kind} ${d.name} (id ${d.id})`;

/** Credentials and entities under the endpoint. Gitea has no enterprises (database/sql/gitea.go L195-218). */
export async function endpointDependents(client: Pick<ForgeCalls, "listCredentials" | "listEntities">, forge: Forge, endpoint: string): Promise<Dependent[]> {
  const [creds, orgs, repos, ents] = await Promise.all([
    client.listCredentials(forge),
    client.listEntities("organization", { endpoint }),
    client.listEntities("repository", { endpoint }),
    forge === "github" ? client.listEntities("enterprise", { endpoint }) : Promise.resolve([]),
  ]);
  return [
    ...creds.filter((c) => c.endpoint === endpoint).map((c) => ({ kind: "credentials", name: c.name, id: String(c.id) })),
    ...orgs.map((e) => ({ kind: "organization", name: e.name, id: e.id })),
    ...repos.map((e) => ({ kind: "repository", name: e.name, id: e.id })),
    ...ents.map((e) => ({ kind: "enterprise", name: e.name, id: e.id })),
  ];
}

/** The entities a detailed credentials read lists (database/sql/github.go L341-372). */
export function credentialsDependents(view: CredentialsView): Dependent[] {
  return [
    ...view.repositories.map((e) => ({ kind: "repository", name: e.name, id: e.id })),
    ...view.organizations.map((e) => ({ kind: "organization", name: e.name, id: e.id })),
    ...view.enterprises.map((e) => ({ kind: "enterprise", name: e.name, id: e.id })),
  ];
}

/** One line: what was refused, each dependent, and what to do. Nothing is deleted. */
export function inUseError(label: string, what: string, dependents: readonly Dependent[], remedy: string): Error {
  return new Error(`${label}: not deleted, because GARM refuses to delete ${what} still in use; it is used by ${dependents.map(describeDependent).join(", ")}. ${remedy}`);
}
