// Before an entity is deleted: what still uses it. GARM refuses to delete an entity that has pools or scale sets
// (runner/organizations.go L138-159, repositories.go L137-158, enterprises.go L129-150) but names only pool ids, so
// the resource names every user through the shared guard, whichever stack (if any) manages it, and never deletes one.
import type { DependentList, RefusalWords } from "../../common/dependents";
import type { EntityCalls, EntityKind } from "../../garm/client";

const provider = (name: string) => (name ? `provider ${name}` : undefined);

/** The entity's scale sets and pools. */
export function entityUsers(client: Pick<EntityCalls, "listEntityScaleSets" | "listEntityPools">, kind: EntityKind, id: string): DependentList[] {
  return [
    {
      what: "scale sets",
      list: async () =>
        (await client.listEntityScaleSets({ kind, id })).map((s) => ({ kind: "scale set", name: s.name, id: String(s.id), detail: provider(s.providerName) })),
    },
    {
      what: "pools",
      list: async () => (await client.listEntityPools({ kind, id })).map((p) => ({ kind: "pool", id: p.id, detail: provider(p.providerName) })),
    },
  ];
}

export function entityRefusalWords(label: string, kind: EntityKind): RefusalWords {
  return {
    label,
    why: `GARM refuses to delete ${kind === "repository" ? "a" : "an"} ${kind} that has scale sets or pools`,
    remedy:
      "Remove those first (from the Pulumi program that manages them, or with garm-cli scaleset delete / garm-cli pool delete), then run again; pulumi-garm never deletes them for you",
  };
}
