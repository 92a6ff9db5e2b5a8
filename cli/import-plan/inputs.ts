// The inputs that reproduce each object of the plan, through the kinds' own importer mappings, so a program written from
// them previews with no change. Most come from GARM's list answers; two lists leave out what the inputs need, so those
// objects take one read each: a template's body, and a pool's extra specs (GARM v0.2.1 database/sql/pools.go L48, L189).
// A scale set's list answer lacks its template's name, taken from the template list instead. Credentials and entities
// name the stack config keys of the secrets GARM never returns, read when the program runs. An importable kind with no
// mapping here is read through its importer.
import type { EntityKind, EntityView, GarmClient, TemplateView } from "../../provider/garm/client";
import { sameEntityName } from "../../provider/garm/names";
import { importedControllerInputs } from "../../provider/kinds/controller/import";
import { credentialsConfigKeys, importedCredentialsInputs } from "../../provider/kinds/credentials/import";
import { importedEntityInputs } from "../../provider/kinds/entity/import";
import { importedEndpointInputs } from "../../provider/kinds/endpoint/import";
import { importedPoolInputs } from "../../provider/kinds/pool/import";
import { importedInputs } from "../../provider/kinds/scaleset/import";
import { importedTemplateInputs } from "../../provider/kinds/template/import";
import { BOUND_KINDS } from "../../provider/registry/implementations";
import { RESTART_COMMAND_KEY } from "../../provider/kinds/garm-provider/import";
import { type Listed, type ListedKind, importIdOf, planned } from "./import-ids";
import type { PlanEntry } from "./plan";
import { ConfigValue } from "./program";

export type Props = Record<string, unknown>;

/** What a mapping reads beyond the object's list answer. */
interface Sources {
  readonly client: GarmClient;
  /** Every template GARM listed, system ones included. */
  readonly templates: readonly TemplateView[];
  /** Every entity GARM listed: where two endpoints hold one name, a scale set's or pool's inputs name the endpoint. */
  readonly entities: readonly { readonly kind: EntityKind; readonly view: EntityView }[];
  /** GARM's restart command (`--garm-restart-command`), which provider entries' inputs hold and GARM's file does not. */
  readonly restartCommand?: string;
}

type FromList<K extends ListedKind> = (o: Listed & { readonly kind: K }, from: Sources) => Props | Promise<Props>;

/** An app's ids, which GARM never returns: read from the config keys the importer reads them from. */
function appIdsFromConfig(view: Parameters<typeof credentialsConfigKeys>[0]): { appId: ConfigValue; installationId: ConfigValue } | undefined {
  const keys = credentialsConfigKeys(view);
  return keys.appId && keys.installationId ? { appId: new ConfigValue(keys.appId, "number"), installationId: new ConfigValue(keys.installationId, "number") } : undefined;
}

/** The endpoint of the entity `id`, where another endpoint holds an entity of its kind and name; else undefined. */
function endpointIfAmbiguous(entities: Sources["entities"], id: string | undefined): string | undefined {
  const entity = entities.find((e) => e.view.id === id);
  if (!entity) return undefined;
  const namesakes = entities.filter((e) => e.kind === entity.kind && sameEntityName(e.view.name, entity.view.name));
  return namesakes.length > 1 ? entity.view.endpoint : undefined;
}

const FROM_LIST: { readonly [K in ListedKind]?: FromList<K> } = {
  endpoint: (o) => importedEndpointInputs(o.view) as Props,
  credentials: (o) => importedCredentialsInputs(o.view, appIdsFromConfig(o.view)),
  organization: (o) => importedEntityInputs("organization", o.view),
  repository: (o) => importedEntityInputs("repository", o.view),
  enterprise: (o) => importedEntityInputs("enterprise", o.view),
  controller: (o) => importedControllerInputs(o.view) as Props,
  template: async (o, { client }) => importedTemplateInputs(await client.getTemplate(o.view.id)) as Props,
  pool: async (o, { client, entities }) => importedPoolInputs(await client.getPool(o.view.id), endpointIfAmbiguous(entities, o.view.entity?.id)) as Props,
  scaleSet: (o, { templates, entities }) =>
    importedInputs({ ...o.view, templateName: o.view.templateName ?? templates.find((t) => t.id === o.view.templateId)?.name }, endpointIfAmbiguous(entities, o.view.entity?.id)) as Props,
};

/**
 * The stack config the CLI has none of, but the restart command given as a flag: an importer that needs a key set says
 * which, and the object stays a comment.
 */
const stackConfigOf = (from: Sources) => (key: string) => (key === RESTART_COMMAND_KEY ? from.restartCommand : undefined);

/** The inputs of one object; undefined for a kind that cannot be imported yet, or the one-line reason its importer gave. */
async function inputsOf(o: Listed, from: Sources): Promise<Props | string | undefined> {
  if (!planned(o)) return undefined;
  const mapped = FROM_LIST[o.kind] as FromList<ListedKind> | undefined;
  if (mapped) return mapped(o, from);
  const importer = BOUND_KINDS.find((k) => k.key === o.kind)?.impl.importer;
  if (!importer) throw new Error(`${o.kind} is marked importable but has no importer`);
  try {
    return (await importer(from.client, importIdOf(o), stackConfigOf(from))).inputs;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Every entry's inputs, in the plan's order (reads run together). */
export function inputsFor(entries: readonly PlanEntry[], from: Sources): Promise<(Props | string | undefined)[]> {
  return Promise.all(entries.map((e) => inputsOf(e.object, from)));
}
