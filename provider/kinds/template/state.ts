// What a GarmTemplate keeps in Pulumi state, and how stored outputs are read back.
import type { TemplateDetailView } from "../../garm/client";
import { type StateStamp, readableStateVersion, stateStamp } from "../../common/state-version";
import { isOurHolder } from "../../common/holder";
import { isUnconfirmedId } from "../../common/lost-answer";
import type { CheckedTemplateInputs } from "./inputs";

export const TEMPLATE_STATE_VERSION = 1;
/** GARM's owner of its own templates (database/sql/util.go L1126-1129); anything else is a user's name. */
export const SYSTEM_OWNER = "system";

/** Outputs: the inputs, overlaid with the template as GARM holds it. */
export interface TemplateOutputs extends CheckedTemplateInputs, StateStamp {
  /** GARM's id; also the Pulumi id. Pass it to a scale set's or pool's templateId. */
  templateId: number;
  /** The GARM user who owns it, e.g. admin. */
  owner: string;
  /**
   * GARM's created_at of the template (state only, no SDK output): with the id it names the template whatever its
   * name, since an id a database restore hands on comes with another. Absent in state written before it was kept.
   */
  garmCreatedAt?: string;
}

export function toTemplateOutputs(inputs: CheckedTemplateInputs, view: TemplateDetailView): TemplateOutputs {
  return {
    ...inputs,
    ...stateStamp(TEMPLATE_STATE_VERSION),
    templateId: view.id,
    name: view.name,
    description: view.description,
    osType: view.osType as CheckedTemplateInputs["osType"],
    forgeType: view.forgeType as CheckedTemplateInputs["forgeType"],
    body: view.body,
    owner: view.owner,
    ...(view.createdAt ? { garmCreatedAt: view.createdAt } : {}),
  };
}

export function readTemplateOutputs(props: Record<string, unknown>): TemplateOutputs {
  readableStateVersion("GarmTemplate", props, TEMPLATE_STATE_VERSION);
  return props as unknown as TemplateOutputs;
}

/**
 * Whether GARM's template is the one these outputs describe. The id is read in the GARM the outputs record
 * (garmControllerId, ../../common/garm-identity.ts), so it names this template unless a database restore handed it on:
 * then GARM's created_at differs. With created_at recorded, the template is ours whatever its name, so one renamed
 * behind Pulumi's back stays ours (refresh shows the name as drift, `up` renames it back). State written before
 * created_at was kept falls back to the name. Owner, forge and OS type must match either way (no update changes them);
 * a system template is never ours.
 */
export function isSameTemplate(outputs: Partial<TemplateOutputs>, view: TemplateDetailView): boolean {
  if (view.owner === SYSTEM_OWNER) return false;
  const byCreation = outputs.garmCreatedAt !== undefined && view.createdAt !== undefined;
  const made = byCreation ? { createdAt: outputs.garmCreatedAt } : { name: outputs.name };
  const held = byCreation ? { createdAt: view.createdAt } : { name: view.name };
  return isOurHolder({ ...made, owner: outputs.owner, forge: outputs.forgeType, os: outputs.osType }, { ...held, owner: view.owner, forge: view.forgeType, os: view.osType });
}

/** "GARM id 5 now holds template other of user bob": how messages name the template that took an id. */
export function describeTemplateHolder(view: TemplateDetailView): string {
  if (view.owner === SYSTEM_OWNER) return `GARM id ${view.id} now holds its system template ${view.name}`;
  return `GARM id ${view.id} now holds template ${view.name} (${view.forgeType} ${view.osType}) of user ${view.owner}`;
}

/** GARM's id for a stored template; undefined while its create is unconfirmed (../../common/lost-answer.ts). */
export function templateIdOf(id: string, outputs: Partial<TemplateOutputs>): number | undefined {
  if (!isUnconfirmedId(id)) return Number(id);
  return typeof outputs.templateId === "number" ? outputs.templateId : undefined;
}

/** What an unconfirmed create keeps: its inputs, and that its name was free when the create was sent. */
export function unconfirmedTemplateOutputs(inputs: CheckedTemplateInputs): Record<string, unknown> {
  return { ...inputs, ...stateStamp(TEMPLATE_STATE_VERSION), nameHeldBeforeCreate: false };
}
