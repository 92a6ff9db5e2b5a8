// `pulumi import garm:index:GarmScaleSet <name> <id>`: reads a scale set GARM already holds and states the inputs that
// describe it, so the program Pulumi writes for it previews with no change.
import type { GarmClient, ScaleSetView } from "../../garm/client";
import { withDefaults, type ScaleSetInputs } from "./inputs";
import { liveName } from "../../runners/naming";
import { toOutputs } from "./state";
import type { ResolvedEntity } from "../../runners/state";
import { endpointIfAmbiguous, importedRunnerSettings } from "../../runners/import";
import { OMITTED_MEANS } from "./diff";
import { numericImportId } from "../../common/import-id";

type Props = Record<string, unknown>;

/**
 * The inputs that reproduce `view`: a hashed live name gives back its base name, any other name is kept exactly.
 * `ambiguousUnder` is the entity's endpoint where another endpoint holds an entity of its name (the inputs name it).
 */
export function importedInputs(view: ScaleSetView, ambiguousUnder?: string): ScaleSetInputs {
  const what = `scale set ${view.name} (GARM id ${view.id})`;
  const hashed = /^(.+)-[0-9a-f]{8}$/.exec(view.name);
  const base = hashed && liveName(hashed[1], view.labels, view.providerName, "hashed") === view.name ? hashed[1] : undefined;
  const inputs: Props = {
    name: base ?? view.name,
    ...(base === undefined ? { naming: "exact" } : {}),
    ...importedRunnerSettings(view, OMITTED_MEANS, what, ambiguousUnder),
    labels: view.labels,
  };
  return inputs as ScaleSetInputs;
}

/** Reads scale set `id` for import: its outputs as create would have stored them, and the inputs behind them. */
export async function importScaleSet(client: GarmClient, id: string): Promise<{ id: string; props: Props; inputs: Props }> {
  const numeric = numericImportId(id, "scale set id", "garm-cli scaleset list");
  const view = await client.getScaleSet(numeric);
  const inputs = importedInputs(view, view.entity ? await endpointIfAmbiguous(client, view.entity, view.endpoint) : undefined);
  const entity: ResolvedEntity = { kind: view.entity!.kind, id: view.entity!.id, name: view.entity!.name, endpoint: view.endpoint };
  const outs = toOutputs(withDefaults(inputs), view, entity) as unknown as Props;
  return { id: String(view.id), props: outs, inputs: inputs as Props };
}
