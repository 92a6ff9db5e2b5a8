// Before an entity is deleted: what still uses it. GARM refuses to delete an entity that has pools or scale sets
// (runner/organizations.go L138-159, repositories.go L137-158, enterprises.go L129-150) but names only pool ids, so
// the resource lists every dependent, whichever stack (if any) manages it, and never deletes one itself.
import type { EntityKind } from "../../garm/client";
import type { Dependent, EntityApi } from "./api";

export interface EntityDependents {
  scaleSets: Dependent[];
  pools: Dependent[];
}

export async function dependentsOf(api: Pick<EntityApi, "scaleSets" | "pools">, kind: EntityKind, id: string): Promise<EntityDependents> {
  const [scaleSets, pools] = await Promise.all([api.scaleSets(kind, id), api.pools(kind, id)]);
  return { scaleSets, pools };
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
