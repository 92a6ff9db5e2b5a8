// The inputs that reproduce each object of the plan, through the kinds' own importer mappings, so a program written from
// them previews with no change. Most come from GARM's list answers; two lists leave out what the inputs need, so those
// objects take one read each: a template's body, and a pool's extra specs (GARM v0.2.1 database/sql/pools.go L48, L189).
// A scale set's list answer lacks its template's name, taken from the template list instead. An importable kind with no
// mapping here is read through its importer.
import type { GarmClient, TemplateView } from "../../provider/garm/client";
import { importedControllerInputs } from "../../provider/kinds/controller/import";
import { importedEndpointInputs } from "../../provider/kinds/endpoint/import";
import { importedPoolInputs } from "../../provider/kinds/pool/import";
import { importedInputs } from "../../provider/kinds/scaleset/import";
import { importedTemplateInputs } from "../../provider/kinds/template/import";
import { BOUND_KINDS } from "../../provider/registry/implementations";
import { type Listed, type ListedKind, hasImporter, importIdOf } from "./import-ids";
import type { PlanEntry } from "./plan";

export type Props = Record<string, unknown>;

/** What a mapping reads beyond the object's list answer. */
interface Sources {
  readonly client: GarmClient;
  /** Every template GARM listed, system ones included. */
  readonly templates: readonly TemplateView[];
}

type FromList<K extends ListedKind> = (o: Listed & { readonly kind: K }, from: Sources) => Props | Promise<Props>;

const FROM_LIST: { readonly [K in ListedKind]?: FromList<K> } = {
  endpoint: (o) => importedEndpointInputs(o.view) as Props,
  controller: (o) => importedControllerInputs(o.view) as Props,
  template: async (o, { client }) => importedTemplateInputs(await client.getTemplate(o.view.id)) as Props,
  pool: async (o, { client }) => importedPoolInputs(await client.getPool(o.view.id)) as Props,
  scaleSet: (o, { templates }) => importedInputs({ ...o.view, templateName: o.view.templateName ?? templates.find((t) => t.id === o.view.templateId)?.name }) as Props,
};

/** The stack config the CLI has none of: an importer that needs a key set says which, and the object stays a comment. */
const NO_STACK_CONFIG = () => undefined;

/**
 * The inputs of one object; undefined for a kind that cannot be imported yet, or the one-line reason its importer
 * gave (credentials and entities need the secrets GARM never returns from stack config, which the CLI does not read).
 */
async function inputsOf(o: Listed, from: Sources): Promise<Props | string | undefined> {
  if (!hasImporter(o.kind)) return undefined;
  const mapped = FROM_LIST[o.kind] as FromList<ListedKind> | undefined;
  if (mapped) return mapped(o, from);
  const importer = BOUND_KINDS.find((k) => k.key === o.kind)?.impl.importer;
  if (!importer) throw new Error(`${o.kind} is marked importable but has no importer`);
  try {
    return (await importer(from.client, importIdOf(o), NO_STACK_CONFIG)).inputs;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Every entry's inputs, in the plan's order (reads run together). */
export function inputsFor(entries: readonly PlanEntry[], from: Sources): Promise<(Props | string | undefined)[]> {
  return Promise.all(entries.map((e) => inputsOf(e.object, from)));
}
