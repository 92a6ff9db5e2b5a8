// The dependents guard: what still uses an object in GARM, whichever stack (if any) manages it, asked before a delete.
// Every kind lists its users through these lists and words its refusal with them: each user is named, and an object
// whose users cannot all be listed is kept (a delete that cannot be checked is not made).
import type { CredentialsView, Forge, ForgeCalls } from "../garm/client";
import { sameEndpointName } from "../garm/names";

export interface Dependent {
  /** e.g. "credentials", "organization", "scale set", "pool" */
  readonly kind: string;
  /** e.g. "acme-pat", "acme/app"; absent for what has no name (a pool) */
  readonly name?: string;
  /** GARM id */
  readonly id: string;
  /** what else identifies it, e.g. "organization acme", "provider lxd" */
  readonly detail?: string;
}

/** One kind of user and how to list it, e.g. the pools of an entity. */
export interface DependentList {
  /** plural, for the message when it cannot be listed: "pools", "credentials" */
  readonly what: string;
  list(): Promise<readonly Dependent[]>;
}

/** e.g. `credentials "acme-pat" (id 3)`, `scale set "ci" (id 3, organization acme)`, `pool 7f3c0e2a (provider lxd)` */
export function describeDependent(d: Dependent): string {
  if (d.name) return `${d.kind} ${JSON.stringify(d.name)} (id ${d.id}${d.detail ? `, ${d.detail}` : ""})`;
  return `${d.kind} ${d.id}${d.detail ? ` (${d.detail})` : ""}`;
}

export const describeDependents = (ds: readonly Dependent[]) => ds.map(describeDependent).join(", ");

export interface Dependents {
  readonly found: readonly Dependent[];
  /** the lists GARM did not answer, each with why */
  readonly unlisted: readonly { readonly what: string; readonly error: unknown }[];
}

/** Asks every list at once; one that fails does not hide the others' users. */
export async function listDependents(lists: readonly DependentList[]): Promise<Dependents> {
  const settled = await Promise.allSettled(lists.map((l) => l.list()));
  const found: Dependent[] = [];
  const unlisted: { what: string; error: unknown }[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") found.push(...s.value);
    else unlisted.push({ what: lists[i]!.what, error: s.reason });
  });
  return { found, unlisted };
}

/** How a kind words its refusal: `<label>: not <done>, because <why>; it is used by …. <remedy>` */
export interface RefusalWords {
  /** e.g. "GarmEndpoint ghe" */
  readonly label: string;
  /** e.g. "deleted" */
  readonly done?: string;
  /** e.g. "GARM refuses to delete an endpoint still in use" */
  readonly why: string;
  /** what to do, one or two sentences */
  readonly remedy: string;
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0];

/** The one-line refusal for what was found, or undefined when nothing uses the object and every list answered. */
export function refusalOf(dependents: Dependents, words: RefusalWords): Error | undefined {
  const { label, why, remedy } = words;
  const done = words.done ?? "deleted";
  if (dependents.found.length > 0) {
    const more = dependents.unlisted.length > 0 ? ` (and GARM did not list its ${dependents.unlisted.map((u) => u.what).join(", ")})` : "";
    return new Error(`${label}: not ${done}, because ${why}; it is used by ${describeDependents(dependents.found)}${more}. ${remedy}`);
  }
  if (dependents.unlisted.length > 0) {
    const asked = dependents.unlisted.map((u) => `${u.what}: ${oneLine(u.error)}`).join("; ");
    return new Error(`${label}: not ${done}, because GARM could not be asked what still uses it (${asked}) and ${why}. Run again once GARM answers`);
  }
  return undefined;
}

/** Lists every user and throws the refusal when there is one, or when a list could not be read. */
export async function refuseWhileUsed(lists: readonly DependentList[], words: RefusalWords): Promise<void> {
  const refused = refusalOf(await listDependents(lists), words);
  if (refused) throw refused;
}

// ---- the lists kinds share -------------------------------------------------------------------------------------------

/** Credentials, then organizations, repositories and enterprises under the endpoint (Gitea has none: gitea.go L195-218). */
export function endpointUsers(client: Pick<ForgeCalls, "listCredentials" | "listEntities">, forge: Forge, endpoint: string): DependentList[] {
  // GARM's ?endpoint= filter ignores case (the column takes the endpoint key's collation); compared here the same way.
  const entities = (what: string, kind: "organization" | "repository" | "enterprise"): DependentList => ({
    what,
    list: async () => (await client.listEntities(kind, { endpoint })).map((e) => ({ kind, name: e.name, id: e.id })),
  });
  return [
    {
      what: "credentials",
      list: async () =>
        (await client.listCredentials(forge)).filter((c) => sameEndpointName(c.endpoint, endpoint)).map((c) => ({ kind: "credentials", name: c.name, id: String(c.id) })),
    },
    entities("organizations", "organization"),
    entities("repositories", "repository"),
    ...(forge === "github" ? [entities("enterprises", "enterprise")] : []),
  ];
}

/** The entities a detailed credentials read lists (database/sql/github.go L341-372). */
export function credentialsUsers(view: CredentialsView): Dependent[] {
  return [
    ...view.repositories.map((e) => ({ kind: "repository", name: e.name, id: e.id })),
    ...view.organizations.map((e) => ({ kind: "organization", name: e.name, id: e.id })),
    ...view.enterprises.map((e) => ({ kind: "enterprise", name: e.name, id: e.id })),
  ];
}

/** The scale-set fields a guard reads (a subset of the client's ScaleSetView). */
export interface ScaleSetRef {
  id: number;
  name: string;
  providerName: string;
  templateId?: number;
  entityName?: string;
  entity?: { kind?: string; name?: string; id?: string };
}

/** The pool fields a guard reads (a subset of the client's PoolView). */
export interface PoolRef {
  id: string;
  providerName: string;
  templateId?: number;
  entityName?: string;
  entity?: { kind?: string; name?: string; id?: string };
}

export interface ScaleSetAndPoolSource {
  listScaleSets(): Promise<ScaleSetRef[]>;
  listPools(): Promise<PoolRef[]>;
}

function entityOf(ref: { entityName?: string; entity?: { kind?: string; name?: string; id?: string } }): string {
  if (ref.entity && (ref.entity.name || ref.entity.id)) return `${ref.entity.kind ?? "entity"} ${ref.entity.name || ref.entity.id}`;
  return ref.entityName || "unknown entity";
}

/** Every scale set and every pool, across all entities (not only this stack's), that `uses` says uses the object. */
export function scaleSetsAndPoolsWhere(source: ScaleSetAndPoolSource, uses: (ref: ScaleSetRef | PoolRef) => boolean): DependentList[] {
  return [
    {
      what: "scale sets",
      list: async () => (await source.listScaleSets()).filter(uses).map((s) => ({ kind: "scale set", name: s.name, id: String(s.id), detail: entityOf(s) })),
    },
    { what: "pools", list: async () => (await source.listPools()).filter(uses).map((p) => ({ kind: "pool", id: p.id, detail: entityOf(p) })) },
  ];
}
