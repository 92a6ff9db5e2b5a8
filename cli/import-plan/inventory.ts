// What import-plan reads from GARM: one list call per kind (per forge for endpoints and credentials), no per-object reads.
import type { ControllerView, CredentialsView, EndpointView, EntityKind, EntityView, GarmClient, PoolView, ProviderView, ScaleSetView, TemplateView } from "../../provider/garm/client";
import { FORGES } from "../../provider/common/forges";

export interface Inventory {
  readonly controller: ControllerView;
  readonly endpoints: EndpointView[];
  readonly credentials: CredentialsView[];
  readonly entities: { readonly kind: EntityKind; readonly view: EntityView }[];
  readonly templates: TemplateView[];
  readonly pools: PoolView[];
  readonly scaleSets: ScaleSetView[];
  readonly providers: ProviderView[];
}

export type InventorySource = Pick<GarmClient, "getController" | "listEndpoints" | "listCredentials" | "listEntities" | "listTemplates" | "listPools" | "listScaleSets" | "listProviders">;

const ENTITY_KINDS: readonly EntityKind[] = ["organization", "repository", "enterprise"];

/** Asks every list at once; `progress` gets one line per answer. */
export async function readInventory(client: InventorySource, progress: (line: string) => void = () => {}): Promise<Inventory> {
  const told = <T>(what: string, answer: Promise<T[]>): Promise<T[]> =>
    answer.then((list) => {
      progress(`read ${list.length} ${what}`);
      return list;
    });
  const [controller, endpoints, credentials, entities, templates, pools, scaleSets, providers] = await Promise.all([
    client.getController(),
    Promise.all(FORGES.map((f) => told(`${f} endpoints`, client.listEndpoints(f)).then((l) => l.map((e) => ({ ...e, forge: f }))))).then((l) => l.flat()),
    Promise.all(FORGES.map((f) => told(`${f} credentials`, client.listCredentials(f)).then((l) => l.map((c) => ({ ...c, forge: f }))))).then((l) => l.flat()),
    Promise.all(ENTITY_KINDS.map((kind) => told(`${kind === "repository" ? "repositorie" : kind}s`, client.listEntities(kind)).then((l) => l.map((view) => ({ kind, view }))))).then((l) => l.flat()),
    told("templates", client.listTemplates()),
    told("pools", client.listPools()),
    told("scale sets", client.listScaleSets()),
    told("providers", client.listProviders()),
  ]);
  return { controller, endpoints, credentials, entities, templates, pools, scaleSets, providers };
}
