// A create whose outcome is unknown: the POST went out, no answer came back, and looking the live name up failed too.
// Create records it as a partial create (pulumi-behaviour.md §2.8) whose id is "unconfirmed:<live name>",
// never numeric, so it cannot pass for a GARM id; its properties hold the entity, the live name and whether that name
// was already taken before the create. Update, read and delete settle it by name under that entity, and take the scale
// set they find only when the name was free before the create, so one this resource did not make is never adopted.
import type { GarmClient, ScaleSetView } from "../../garm/client";
import type { CheckedInputs } from "./inputs";
import { canonicalLabels } from "../../runners/naming";
import { type ResolvedEntity, storedEntity } from "../../runners/state";
import { STATE_VERSION, type ScaleSetOutputs } from "./state";

import { isUnconfirmedId } from "../../common/lost-answer";

export { isUnconfirmedId, unconfirmedId } from "../../common/lost-answer";

/** What an unconfirmed create keeps in state beyond its inputs. */
export interface UnconfirmedOutputs extends ScaleSetOutputs {
  /** The live name was held by a scale set under the entity before the create was sent. */
  nameHeldBeforeCreate: boolean;
}

/** The properties recorded for an unconfirmed create: enough for diff (canonical labels, entity) and for settling it. */
export function unconfirmedOutputs(
  inputs: CheckedInputs,
  entity: ResolvedEntity,
  liveName: string,
  nameHeldBeforeCreate: boolean,
): Record<string, unknown> {
  return {
    ...inputs,
    stateVersion: STATE_VERSION,
    liveName,
    labels: canonicalLabels(inputs.labels),
    entityKind: entity.kind,
    entityId: entity.id,
    entityName: entity.name,
    endpointName: entity.endpoint,
    nameHeldBeforeCreate,
  };
}

/**
 * GARM's id for a stored scale set: the Pulumi id, or, for an unconfirmed create, the id an update later bound it to.
 * Undefined while the create is still unconfirmed.
 */
export function garmIdOf(id: string, outputs: Partial<ScaleSetOutputs>): number | undefined {
  if (!isUnconfirmedId(id)) return Number(id);
  return typeof outputs.scaleSetId === "number" ? outputs.scaleSetId : undefined;
}

/** What GARM has under the unconfirmed create's live name. */
export type Settled =
  | { readonly kind: "ours"; readonly view: ScaleSetView }
  | { readonly kind: "foreign"; readonly view: ScaleSetView }
  | { readonly kind: "absent" };

export async function settle(client: Pick<GarmClient, "listEntityScaleSets">, outputs: ScaleSetOutputs): Promise<Settled> {
  const all = await client.listEntityScaleSets(storedEntity(outputs));
  const view = all.find((s) => s.name === outputs.liveName);
  if (!view) return { kind: "absent" };
  // A name already held before the create means GitHub refused that create (§8): the scale set is someone else's.
  return (outputs as Partial<UnconfirmedOutputs>).nameHeldBeforeCreate === false ? { kind: "ours", view } : { kind: "foreign", view };
}
