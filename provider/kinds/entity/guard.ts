// Before an entity is deleted: what still uses it. GARM refuses to delete an entity that has pools or scale sets
// (runner/organizations.go L138-159, repositories.go L137-158, enterprises.go L129-150) but names only pool ids, so
// the resource lists every dependent, whichever stack (if any) manages it, and never deletes one itself.
import type { EntityCalls, EntityKind } from "../../garm/client";

/** A scale set or pool under the entity; pools have no name. */
export interface Dependent {
  readonly id: string;
  readonly name: string;
  readonly providerName: string;
}

export interface EntityDependents {
  scaleSets: Dependent[];
  pools: Dependent[];
}

export async function dependentsOf(
  client: Pick<EntityCalls, "listEntityScaleSets" | "listEntityPools">,
  kind: EntityKind,
  id: string,
): Promise<EntityDependents> {
  const [scaleSets, pools] = await Promise.all([client.listEntityScaleSets({ kind, id }), client.listEntityPools({ kind, id })]);
  return {
    scaleSets: scaleSets.map((s) => ({ id: String(s.id), name: s.name, providerName: s.providerName })),
    pools: pools.map((p) => ({ id: p.id, name: "", providerName: p.providerName })),
  };
}

/** One line naming each dependent and what to do; undefined when there is none. */
export function refusal(label: string, dependents: EntityDependents): string | undefined {
  const named = [
    ...dependents.scaleSets.map((s) => `scale set ${JSON.stringify(s.name)} (id ${s.id}${s.providerName ? `, provider ${s.providerName}` : ""})`),
    ...dependents.pools.map((p) => `pool ${p.id}${p.providerName ? ` (provider ${p.providerName})` : ""}`),
  ];
  if (named.length === 0) return undefined;
  return (
    `${label} still has ${named.join(", ")}; it was not deleted. Remove those first (from the Pulumi program that manages ` +
    "them, or with garm-cli scaleset delete / garm-cli pool delete), then run again; pulumi-garm never deletes them for you"
  );
}
