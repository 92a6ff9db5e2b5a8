// What a GarmTemplate keeps in Pulumi state, and how stored outputs are read back.
import type { TemplateDetailView } from "../../garm/client";
import { type StateStamp, readableStateVersion, stateStamp } from "../../common/state-version";
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
