// What a GarmScaleSet keeps in Pulumi state, and how older state shapes are read. The implementation reads every
// shape it ever wrote, since Pulumi calls it with stored outputs for refresh, pending deletes and destroy.
import { isDeepStrictEqual } from "node:util";
import type { EntityKind, ScaleSetView } from "../../garm/client";
import { type StateStamp, stateStamp } from "../../common/state-version";
import { type Identity, isOurHolder } from "../../common/holder";
import type { CheckedInputs } from "./inputs";
import type { TemplateForge } from "../../runners/templates";
import { canonicalLabels } from "../../runners/naming";
import { type ResolvedEntity, dropUndefined, entityFields, heldRunnerSettings, readDrainingOutputs } from "../../runners/state";

export const STATE_VERSION = 1;

/** Outputs: the inputs, overlaid with the scale set as GARM holds it. */
export interface ScaleSetOutputs extends CheckedInputs, StateStamp {
  /** GARM's id; also the Pulumi id. Never GitHub's scale_set_id, which GARM may change (garm-behaviour.md §4.5). */
  scaleSetId: number;
  liveName: string;
  /** Canonical labels (lower-cased, sorted). */
  labels: string[];
  githubScaleSetId: number;
  entityKind: EntityKind;
  entityId: string;
  entityName: string;
  endpointName: string;
  runnerPrefix: string;
  runnerGroup: string;
  runnerBootstrapTimeout: number;
  extraSpecs?: Record<string, unknown>;
  enableShell: boolean;
  templateId?: number;
  /** GARM's name of the template, e.g. github_linux; absent in state written before it was kept. */
  templateName?: string;
  /** The forge of the entity's endpoint, whose system templates GARM picks from; absent in state written before it was kept. */
  forgeType?: TemplateForge;
}

export function toOutputs(inputs: CheckedInputs, view: ScaleSetView, entity: ResolvedEntity): ScaleSetOutputs {
  const outputs: ScaleSetOutputs = {
    ...inputs,
    ...stateStamp(STATE_VERSION),
    scaleSetId: view.id,
    liveName: view.name,
    labels: canonicalLabels(view.labels),
    githubScaleSetId: view.githubScaleSetId,
    ...entityFields(entity),
    ...heldRunnerSettings(view, inputs),
  };
  return dropUndefined(outputs);
}

/** Reads stored outputs of any version this package wrote. Throws for state written by a newer pulumi-garm. */
export function readOutputs(props: Record<string, unknown>): ScaleSetOutputs {
  return readDrainingOutputs<ScaleSetOutputs>("GarmScaleSet", props, STATE_VERSION);
}

/**
 * Whether GARM's scale set is the one these outputs describe: the same live name, entity and provider, which no update
 * changes. A database restore can give a deleted scale set's id to another one.
 */
export function isSameScaleSet(outputs: ScaleSetOutputs, view: ScaleSetView, sameGarm = false): boolean {
  // Every state version wrote liveName; without it nothing says which name to expect (`name` lacks the hash).
  if (isOurHolder(scaleSetIdentity(outputs), scaleSetIdentity({ liveName: view.name, entityId: view.entity?.id, providerName: view.providerName }))) return true;
  return sameGarm && isRenamedBehindPulumi(outputs, view);
}

/**
 * Whether `view` is this scale set renamed in GARM behind Pulumi's back (issue 34 item 8): GARM's update renames (§4.1)
 * but never changes the entity, the provider or the labels (§3.6, §4.2). Asked only when the caller knows the id is
 * read from the GARM the outputs record (`garmControllerId`, garm-behaviour.md §1.8); a restored database file keeps
 * that id too, so the labels must match as well.
 */
export function isRenamedBehindPulumi(outputs: ScaleSetOutputs, view: ScaleSetView): boolean {
  if (!outputs.entityId || !view.entity?.id || outputs.entityId.toLowerCase() !== view.entity.id.toLowerCase()) return false;
  if (!outputs.providerName || outputs.providerName !== view.providerName) return false;
  return Array.isArray(outputs.labels) && isDeepStrictEqual(canonicalLabels(outputs.labels), canonicalLabels(view.labels ?? []));
}

function scaleSetIdentity(o: { liveName?: string; entityId?: string; providerName?: string }): Identity {
  return { name: o.liveName, entity: o.entityId?.toLowerCase(), provider: o.providerName };
}

/** "GARM id 4 now holds scale set team-b under repository acme/app": how messages name the scale set that took an id. */
export function describeHolder(view: ScaleSetView): string {
  const where = view.entity ? ` under ${view.entity.kind} ${view.entity.name}` : "";
  return `GARM id ${view.id} now holds scale set ${view.name}${where}`;
}
