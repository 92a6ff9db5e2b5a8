// The GarmScaleSet input schema: the shared runner settings (../../runners/inputs.ts) extended with what only a scale
// set has; one source for check's type rules, the defaults and schema.json's documentation.
import { z } from "zod";
import { DRAIN_DEFAULTS, type DrainOptions, drainSchema } from "../../runners/drain/options";
import { type RunnerDefaults, runnerDefaults, runnerSettingsSchema } from "../../runners/inputs";

export { DRAIN_DEFAULTS, type DrainOptions, drainSchema };

export const scaleSetInputSchema = runnerSettingsSchema
  .extend({
    name: z.string().describe("Scale-set name; the live name adds a hash of labels and provider unless naming is \"exact\"."),
    organization: z.string().optional().describe("GitHub organization (a GARM entity) that owns the scale set."),
    repository: z.string().optional().describe("GitHub repository as owner/name (a GARM entity) that owns the scale set."),
    enterprise: z.string().optional().describe("GitHub enterprise (a GARM entity) that owns the scale set."),
    labels: z
      .array(z.string())
      .describe("Labels workflows target in runs-on; at least one unless naming is \"exact\". Changing them replaces the scale set."),
    maxRunners: z
      .number()
      .int()
      .describe("Most runners at once; 0 parks the scale set (set enabled: false beside it). A create at 0 is made at 1, disabled, then set to 0."),
    runnerGroup: z.string().optional().describe("GitHub runner group. Defaults to GARM's \"Default\"."),
    naming: z.enum(["hashed", "exact"]).optional().describe("\"hashed\" (default) appends the generation hash; \"exact\" uses name as is (replacements then delete first)."),
    adoptExisting: z.boolean().optional().describe("Manage a scale set with the same live name that already exists in GARM instead of failing. Defaults to false."),
  })
  .strict();

export type ScaleSetInputs = z.output<typeof scaleSetInputSchema>;

/** The inputs with every default filled in, as check returns them and the other methods receive them. */
export interface CheckedInputs extends Omit<ScaleSetInputs, keyof RunnerDefaults>, RunnerDefaults {
  naming: "hashed" | "exact";
  adoptExisting: boolean;
}

export function withDefaults(inputs: ScaleSetInputs): CheckedInputs {
  return { ...runnerDefaults(inputs), naming: inputs.naming ?? "hashed", adoptExisting: inputs.adoptExisting ?? false };
}
