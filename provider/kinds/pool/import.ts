// `pulumi import garm:index:GarmPool <name> <id>`: reads a pool GARM already holds and states the inputs that describe
// it, so the program Pulumi writes for it previews with no change.
import type { GarmClient, PoolView } from "../../garm/client";
import { endpointIfAmbiguous, importedRunnerSettings } from "../../runners/import";
import { resolveEntity } from "../../runners/entity";
import { OMITTED_MEANS } from "./diff";
import { type PoolInputs, poolDefaults } from "./inputs";
import { toPoolOutputs } from "./state";
import { uuidImportId } from "../../common/import-id";

type Props = Record<string, unknown>;

/**
 * The inputs that reproduce `view`, GARM's defaults left out. `ambiguousUnder` is the entity's endpoint where another
 * endpoint holds an entity of its name (the inputs name it).
 */
export function importedPoolInputs(view: PoolView, ambiguousUnder?: string): PoolInputs {
  return {
    ...importedRunnerSettings(view, OMITTED_MEANS, `pool ${view.id}`, ambiguousUnder),
    labels: view.labels,
    ...(view.priority !== OMITTED_MEANS.priority ? { priority: view.priority } : {}),
  } as PoolInputs;
}

/** Reads pool `id` for import: its outputs as create would have stored them, and the inputs behind them. */
export async function importPool(client: GarmClient, id: string): Promise<{ id: string; props: Props; inputs: Props }> {
  const view = await client.getPool(uuidImportId(id, "pool id", "garm-cli pool list"));
  // The pool's answer names its entity but not the entity's endpoint, which the outputs keep.
  const entity = view.entity ? await resolveEntity(client, { entityId: view.entity.id }) : undefined;
  // Without an entity this throws saying so.
  const inputs = importedPoolInputs(view, entity && (await endpointIfAmbiguous(client, entity, entity.endpoint)));
  const outs = toPoolOutputs(poolDefaults(inputs), view, entity!) as unknown as Props;
  return { id: view.id, props: outs, inputs: inputs as Props };
}
