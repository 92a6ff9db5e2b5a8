// `pulumi import garm:index:GarmTemplate <name> <id>`: reads a template of the logged-in user and states the inputs
// that describe it. GARM's system templates are GARM's own: a program refers to them, never imports them.
import type { GarmClient, TemplateDetailView } from "../../garm/client";
import { type TemplateInputs, templateDefaults } from "./inputs";
import { SYSTEM_OWNER, toTemplateOutputs } from "./state";
import { numericImportId } from "../../common/import-id";

type Props = Record<string, unknown>;

/** The inputs that reproduce `view`, its body included (GARM's list of templates leaves bodies out: a detail read). */
export function importedTemplateInputs(view: TemplateDetailView): TemplateInputs {
  return {
    name: view.name,
    ...(view.description ? { description: view.description } : {}),
    osType: view.osType as TemplateInputs["osType"],
    forgeType: view.forgeType as TemplateInputs["forgeType"],
    body: view.body,
  };
}

/** Reads template `id` for import: its outputs as create would have stored them, and the inputs behind them. */
export async function importTemplate(client: GarmClient, id: string): Promise<{ id: string; props: Props; inputs: Props }> {
  const numeric = numericImportId(id, "template id", "garm-cli template list");
  const view = await client.getTemplate(numeric);
  if (view.owner === SYSTEM_OWNER) {
    throw new Error(
      `template ${view.name} (id ${id}) is one of GARM's system templates, which GARM keeps itself: leave templateId unset ` +
        "on a scale set or pool to use it, or name its id, instead of importing it",
    );
  }
  const inputs = importedTemplateInputs(view);
  const outs = toTemplateOutputs(templateDefaults(inputs, view.body), view) as unknown as Props;
  return { id: String(view.id), props: outs, inputs: inputs as Props };
}
