// The GarmTemplate input schema: one source for check's type rules, the defaults and schema.json's documentation.
import { z } from "zod";

export const TEMPLATE_OS_TYPES = ["linux", "windows"] as const;
/** GARM's forge types (params/requests.go L901-905). */
export const FORGE_TYPES = ["github", "gitea"] as const;
/** GARM's name column is varchar(128) (database/sql/models.go L96). */
export const MAX_TEMPLATE_NAME = 128;

export const templateInputSchema = z
  .object({
    name: z.string().describe("Template name, unique among your templates in GARM. Changes in place."),
    description: z.string().optional().describe("Shown by garm-cli template list. Changes in place. Defaults to empty."),
    osType: z.enum(TEMPLATE_OS_TYPES).optional().describe("Runner OS the template installs: linux or windows. Defaults to linux. Changing it replaces the template."),
    forgeType: z.enum(FORGE_TYPES).optional().describe("Forge the runners register with: github or gitea. Defaults to github. Changing it replaces the template."),
    body: z.string().optional().describe("The runner install template text (a Go template). Set body or bodyFile. Changes in place."),
    bodyFile: z
      .string()
      .optional()
      .describe("Path of a file holding the template text, read at preview (relative to the program's directory). Set body or bodyFile."),
    adoptExisting: z.boolean().optional().describe("Manage a template of the same name you already have in GARM instead of failing. Defaults to false."),
  })
  .strict();

export type TemplateInputs = z.output<typeof templateInputSchema>;

/** The inputs as check returns them: defaults filled in and `body` holding the text, also when it came from bodyFile. */
export interface CheckedTemplateInputs extends TemplateInputs {
  description: string;
  osType: (typeof TEMPLATE_OS_TYPES)[number];
  forgeType: (typeof FORGE_TYPES)[number];
  body: string;
  adoptExisting: boolean;
}

export function templateDefaults(inputs: TemplateInputs, body: string): CheckedTemplateInputs {
  return {
    ...inputs,
    description: inputs.description ?? "",
    osType: inputs.osType ?? "linux",
    forgeType: inputs.forgeType ?? "github",
    body,
    adoptExisting: inputs.adoptExisting ?? false,
  };
}
