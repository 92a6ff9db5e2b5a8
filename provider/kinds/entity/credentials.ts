// The credentials an entity's create names, found on the forges an entity of its kind can use.
import type { Forge } from "../../common/forges";
import type { EntityCalls, EntityKind } from "../../garm/client";
import { sameCredentialsName } from "../../garm/names";

/** Credentials as an entity's create resolves them. */
export interface ForgeCredentials {
  forge: Forge;
  /** GARM's spelling of the name. */
  name: string;
  endpoint: string;
}

/**
 * The credentials of this name on each forge an entity of this kind can use: GitHub and Gitea for organizations and
 * repositories, GitHub only for enterprises (runner/enterprises.go L41). GARM looks names up ignoring case (the
 * credentials tables' name columns are collate nocase, database/sql/models.go L483, L510), and each forge's names
 * are unique on their own, so the answer holds at most one per forge.
 */
export async function credentialsNamed(client: Pick<EntityCalls, "listCredentials">, kind: EntityKind, name: string): Promise<ForgeCredentials[]> {
  const forges: Forge[] = kind === "enterprise" ? ["github"] : ["github", "gitea"];
  const found: ForgeCredentials[] = [];
  for (const forge of forges) {
    const match = (await client.listCredentials(forge)).find((c) => sameCredentialsName(c.name, name));
    if (match) found.push({ forge, name: match.name, endpoint: match.endpoint });
  }
  return found;
}
