// Pulumi's `import` resource option for the dynamic provider. The engine imports by calling Read with the id and no
// properties (pulumi-behaviour.md §10), and the dynamic provider's host can only find the provider in the properties,
// so an import could never reach it. The SDK classes therefore hand the id over as the input IMPORT_INPUT instead, and
// the create it leads to adopts the object: it reads it with the kind's importer, writes nothing to GARM, and succeeds
// only when the program's inputs describe the object as GARM holds it, as Pulumi's own import does.
import type * as pulumi from "@pulumi/pulumi";
import type { PlannedDiff } from "./common/planned-diff";
import type { GarmClient } from "./garm/client";
import { IMPORT_INPUT, RETAIN_INPUT } from "./registry/kinds";
import { withCreateOptions } from "./common/option-inputs";
import { processConfigValue } from "./common/connection";
import type { ConfigLookup } from "./common/secrets-from-config";

type Props = Record<string, unknown>;

/** What an importer found: the object's outputs as create would have stored them and the inputs that reproduce it. */
export interface Imported {
  id: string;
  props: Props;
  inputs: Props;
  /**
   * Inputs the first update after the import sets by design, which the import itself must not (GarmProvider's owner,
   * recorded with the markers it puts around a hand-written entry): the import option does not compare them.
   */
  firstUp?: readonly string[];
}

/**
 * Reads the object `id` names as the kind's create would have made it. `config` gives the secrets GARM never returns,
 * under the stack config keys the importer names; `program` is the program's inputs where there is a program (the
 * import option), for what GARM does not hold at all.
 */
export type Importer = (client: GarmClient, id: string, config: ConfigLookup, program?: Props) => Promise<Imported>;

/**
 * A kind that cannot be imported says what to do instead. `importOlds` gives, from the id alone, the previous inputs
 * an import's check sees (what the import takes over), for a kind whose check refuses what exists already.
 */
export type ImportSupport = { readonly importer: Importer; readonly importOlds?: (id: string) => Props } | { readonly instead: string };

/** The import id in `inputs`, when the program set the `import` option. */
export function importIdIn(inputs: Props | undefined): string | undefined {
  const id = inputs?.[IMPORT_INPUT];
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** `props` without the inputs that carry resource options (the import id, retainOnDelete), which no kind declares. */
function without(props: Props | undefined): Props {
  const { [IMPORT_INPUT]: _import, [RETAIN_INPUT]: _retain, ...rest } = props ?? {};
  return rest;
}

/** The option carriers of `from`, put back on `to`: create receives them. */
function withCarriers(to: Props, from: Props | undefined): Props {
  const out = { ...to };
  const id = importIdIn(from);
  if (id !== undefined) out[IMPORT_INPUT] = id;
  if (from?.[RETAIN_INPUT] === true) out[RETAIN_INPUT] = true;
  return out;
}

/** Names the inputs a diff would change, for the refusal of an import whose program describes another object. */
function differingInputs(diff: pulumi.dynamic.DiffResult): string[] {
  const fields = Object.keys((diff as Partial<PlannedDiff>).fields ?? {});
  const named = fields.length > 0 ? fields : [...(diff.replaces ?? [])];
  return [...new Set(named)].sort();
}

/**
 * `provider` with imports served by create: check refuses at preview a kind that cannot be imported, create adopts the
 * object by id, and the import input is invisible to the kind's own methods, so removing the `import` option after the
 * import (as Pulumi advises) plans no change.
 */
export function importedByCreate(provider: pulumi.dynamic.ResourceProvider, support: ImportSupport, client: () => GarmClient, label: string): pulumi.dynamic.ResourceProvider {
  const { check, diff, create, update, read } = provider;
  return {
    ...provider,
    check: async (olds, news) => {
      const id = importIdIn(news);
      if (id !== undefined && "instead" in support) throw new Error(`${label} ${id}: the import option is not supported for this kind: ${support.instead}`);
      const previous = id !== undefined && "importer" in support && support.importOlds && Object.keys(without(olds)).length === 0 ? support.importOlds(id) : without(olds);
      const checked = check ? await check.call(provider, previous, without(news)) : { inputs: without(news) };
      return !checked.inputs ? checked : { ...checked, inputs: withCarriers(checked.inputs, news) };
    },
    create: async (inputs) => {
      const id = importIdIn(inputs);
      if (id === undefined) return withCreateOptions({ retainOnDelete: inputs[RETAIN_INPUT] === true }, () => create.call(provider, without(inputs)));
      if ("instead" in support) throw new Error(`${label} ${id}: the import option is not supported for this kind: ${support.instead}`);
      // The secret's digest is made from the stack config key the importer names; the program passes the secret itself.
      const wanted = without(inputs);
      const found = await support.importer(client(), id, processConfigValue, wanted);
      const compared = { ...wanted };
      for (const field of found.firstUp ?? []) {
        if (found.props[field] === undefined) delete compared[field];
        else compared[field] = found.props[field];
      }
      const planned = diff ? await diff.call(provider, found.id, found.props, compared) : { changes: false };
      if (planned.changes) {
        throw new Error(
          `${label} ${id}: the program's inputs differ from the object GARM holds in ${differingInputs(planned).join(", ") || "its inputs"}; ` +
            "nothing was imported or changed. Set those inputs to GARM's values (`pulumi import` with the garm plugin prints them), or drop the import option to manage a new object",
        );
      }
      return { id: found.id, outs: { ...found.props, [IMPORT_INPUT]: id } };
    },
    ...(diff && { diff: (id, olds, news) => diff.call(provider, id, without(olds), without(news)) }),
    ...(update && { update: (id, olds, news) => update.call(provider, id, without(olds), without(news)) }),
    ...(read && { read: (id, props) => read.call(provider, id, without(props)) }),
  };
}
