// The GarmScaleSet input schema: one source for check's type rules, the defaults and schema.json's documentation.
import { z } from "zod";
import { DRAIN_DEFAULTS, type DrainOptions, drainSchema } from "../../runners/drain/options";

export { DRAIN_DEFAULTS, type DrainOptions, drainSchema };

export const OS_TYPES = ["linux", "windows"] as const;
/** GARM's OSArch values (garm-provider-common params). */
export const OS_ARCHES = ["amd64", "arm64", "arm", "386"] as const;

export const scaleSetInputSchema = z
  .object({
    name: z.string().describe("Scale-set name; the live name adds a hash of labels and provider unless naming is \"exact\"."),
    organization: z.string().optional().describe("GitHub organization (a GARM entity) that owns the scale set."),
    repository: z.string().optional().describe("GitHub repository as owner/name (a GARM entity) that owns the scale set."),
    enterprise: z.string().optional().describe("GitHub enterprise (a GARM entity) that owns the scale set."),
    entityId: z.string().optional().describe("GARM id (UUID) of the organization, repository or enterprise, instead of a name."),
    endpoint: z.string().optional().describe("GARM endpoint name the entity lives under, e.g. github.com; needed only when a name is ambiguous."),
    providerName: z.string().describe("GARM provider that creates the runners; pass a GarmProvider's name output so deletes are ordered."),
    image: z.string().describe("Provider image for the runners."),
    flavor: z.string().describe("Provider flavor (size) for the runners."),
    osType: z.enum(OS_TYPES).optional().describe("Runner OS: linux or windows. Defaults to linux."),
    osArch: z.enum(OS_ARCHES).optional().describe("Runner architecture: amd64, arm64, arm or 386. Defaults to amd64."),
    labels: z
      .array(z.string())
      .describe("Labels workflows target in runs-on; at least one unless naming is \"exact\". Changing them replaces the scale set."),
    maxRunners: z.number().int().describe("Most runners at once; at least 1."),
    minIdleRunners: z.number().int().optional().describe("Idle runners kept ready; at most maxRunners. Defaults to 0."),
    enabled: z.boolean().optional().describe("Whether GARM runs the scale set. Defaults to true."),
    runnerPrefix: z.string().optional().describe("Prefix of runner names. Defaults to GARM's \"garm\"."),
    runnerGroup: z.string().optional().describe("GitHub runner group. Defaults to GARM's \"Default\"."),
    runnerBootstrapTimeout: z.number().int().optional().describe("Minutes a runner may take to come up. Defaults to GARM's 20."),
    extraSpecs: z
      .union([z.record(z.string(), z.unknown()), z.string()])
      .optional()
      .describe("Provider-specific extra specs: an object, or a JSON string holding an object."),
    templateId: z.number().int().optional().describe("GARM runner install template id. Defaults to GARM's system template for osType."),
    enableShell: z.boolean().optional().describe("Allow GARM's agent shell on the runners. Defaults to false."),
    naming: z.enum(["hashed", "exact"]).optional().describe("\"hashed\" (default) appends the generation hash; \"exact\" uses name as is (replacements then delete first)."),
    drain: drainSchema.optional().describe("How a delete drains runners."),
    adoptExisting: z.boolean().optional().describe("Manage a scale set with the same live name that already exists in GARM instead of failing. Defaults to false."),
  })
  .strict();

export type ScaleSetInputs = z.output<typeof scaleSetInputSchema>;

/** The inputs with every default filled in, as check returns them and the other methods receive them. */
export interface CheckedInputs extends ScaleSetInputs {
  osType: (typeof OS_TYPES)[number];
  osArch: (typeof OS_ARCHES)[number];
  minIdleRunners: number;
  enabled: boolean;
  naming: "hashed" | "exact";
  drain: DrainOptions;
  adoptExisting: boolean;
}

export function withDefaults(inputs: ScaleSetInputs): CheckedInputs {
  return {
    ...inputs,
    osType: inputs.osType ?? "linux",
    osArch: inputs.osArch ?? "amd64",
    minIdleRunners: inputs.minIdleRunners ?? 0,
    enabled: inputs.enabled ?? true,
    naming: inputs.naming ?? "hashed",
    drain: { ...DRAIN_DEFAULTS, ...inputs.drain },
    adoptExisting: inputs.adoptExisting ?? false,
  };
}
