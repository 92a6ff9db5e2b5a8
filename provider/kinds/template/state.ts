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
  };
}

export function readTemplateOutputs(props: Record<string, unknown>): TemplateOutputs {
  readableStateVersion("GarmTemplate", props, TEMPLATE_STATE_VERSION);
  return props as unknown as TemplateOutputs;
}

/**
 * Whether GARM's template is the one these outputs describe: its name (which this resource's updates keep in state),
 * its owner, forge and OS type. A template renamed outside this stack is therefore no longer recognised as this one:
 * refresh drops it and `up` creates the name again, leaving the renamed one alone. A system template is never ours.
 */
export function isSameTemplate(outputs: Partial<TemplateOutputs>, view: TemplateDetailView): boolean {
  if (view.owner === SYSTEM_OWNER) return false;
  return isOurHolder(
    { name: outputs.name, owner: outputs.owner, forge: outputs.forgeType, os: outputs.osType },
    { name: view.name, owner: view.owner, forge: view.forgeType, os: view.osType },
  );
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
