// Finds the GARM entity (organization, repository or enterprise) a scale set or pool belongs to, by name or by id (§2.4).
import type { EntityKind } from "../garm/client";
import { type LookupSource, lookupsFor } from "../garm/lookups";
import type { RunnerSettings } from "./inputs";
import type { ResolvedEntity } from "./state";

export async function resolveEntity(
  client: LookupSource,
  inputs: Pick<RunnerSettings, "organization" | "repository" | "enterprise" | "entityId" | "endpoint">,
): Promise<ResolvedEntity> {
  if (inputs.entityId) return resolveById(client, inputs.entityId);
  const kind: EntityKind = inputs.organization ? "organization" : inputs.repository ? "repository" : "enterprise";
  const name = (inputs.organization ?? inputs.repository ?? inputs.enterprise) as string;
  const found = await lookupsFor(client).findEntities(kind, name, inputs.endpoint);
  const where = inputs.endpoint ? ` under endpoint ${inputs.endpoint}` : "";
  if (found.length === 0) {
    throw new Error(`${kind} ${name}${where} is not known to GARM: add it first (garm-cli ${cliNoun(kind)} add), then run again`);
  }
  if (found.length > 1) {
    const endpoints = found.map((e) => e.endpoint).join(", ");
    throw new Error(`${kind} ${name} exists under several GARM endpoints (${endpoints}): set the endpoint input to choose one`);
  }
  const [entity] = found;
  return { kind, id: entity.id, name: entity.name, endpoint: entity.endpoint };
}

async function resolveById(client: LookupSource, id: string): Promise<ResolvedEntity> {
  const found = await lookupsFor(client).entityById(id);
  if (found === undefined) throw new Error(`entityId ${id} is not an organization, repository or enterprise known to GARM`);
  return { kind: found.kind, id: found.id, name: found.name, endpoint: found.endpoint };
}

function cliNoun(kind: EntityKind): string {
  return kind === "organization" ? "organization" : kind === "repository" ? "repository" : "enterprise";
}

/** "organization acme", "repository acme/app": how messages name an entity. */
export function entityLabel(entity: Pick<ResolvedEntity, "kind" | "name">): string {
  return `${entity.kind} ${entity.name}`;
}
