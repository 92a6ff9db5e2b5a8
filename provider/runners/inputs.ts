// The runner settings scale sets and pools share: one zod schema both kinds' input schemas extend, so both document,
// type-check and default these fields the same way. Kind-specific words (what owns it, what a label change does) are
// the kinds' own, given where they extend it.
import { z } from "zod";
import { DRAIN_DEFAULTS, type DrainOptions, drainSchema } from "./drain/options";

export const OS_TYPES = ["linux", "windows"] as const;
/** GARM's OSArch values (garm-provider-common params). */
export const OS_ARCHES = ["amd64", "arm64", "arm", "386"] as const;

export const runnerSettingsSchema = z
  .object({
    organization: z.string().optional().describe("GitHub organization (a GARM entity) that owns the runners."),
    repository: z.string().optional().describe("GitHub repository as owner/name (a GARM entity) that owns the runners."),
    enterprise: z.string().optional().describe("GitHub enterprise (a GARM entity) that owns the runners."),
    entityId: z.string().optional().describe("GARM id (UUID) of the organization, repository or enterprise, instead of a name."),
    endpoint: z.string().optional().describe("GARM endpoint name the entity lives under, e.g. github.com; needed only when a name is ambiguous."),
    providerName: z.string().describe("GARM provider that creates the runners; pass a GarmProvider's name output so deletes are ordered."),
    image: z.string().describe("Provider image for the runners."),
    flavor: z.string().describe("Provider flavor (size) for the runners."),
    osType: z.enum(OS_TYPES).optional().describe("Runner OS: linux or windows. Defaults to linux."),
    osArch: z.enum(OS_ARCHES).optional().describe("Runner architecture: amd64, arm64, arm or 386. Defaults to amd64."),
    labels: z.array(z.string()).describe("Labels workflows target in runs-on."),
    maxRunners: z.number().int().describe("Most runners at once; at least 1."),
    minIdleRunners: z.number().int().optional().describe("Idle runners kept ready; at most maxRunners. Defaults to 0."),
    enabled: z.boolean().optional().describe("Whether GARM runs the scale set. Defaults to true."),
    runnerPrefix: z.string().optional().describe("Prefix of runner names. Defaults to GARM's \"garm\"."),
    runnerGroup: z.string().optional().describe("GitHub runner group."),
    runnerBootstrapTimeout: z.number().int().optional().describe("Minutes a runner may take to come up. Defaults to GARM's 20."),
    extraSpecs: z
      .union([z.record(z.string(), z.unknown()), z.string()])
      .optional()
      .describe("Provider-specific extra specs: an object, or a JSON string holding an object."),
    templateId: z.number().int().optional().describe("GARM runner install template id. Defaults to GARM's system template for osType."),
    enableShell: z.boolean().optional().describe("Allow GARM's agent shell on the runners. Defaults to false."),
    drain: drainSchema.optional().describe("How a delete drains runners."),
  })
  .strict();

export type RunnerSettings = z.output<typeof runnerSettingsSchema>;

/** The shared settings check fills in when omitted. */
export interface RunnerDefaults {
  osType: (typeof OS_TYPES)[number];
  osArch: (typeof OS_ARCHES)[number];
  minIdleRunners: number;
  enabled: boolean;
  drain: DrainOptions;
}

/** A kind's inputs with the shared defaults filled in, as check returns them and the other methods receive them. */
export type WithRunnerDefaults<T extends RunnerSettings> = Omit<T, keyof RunnerDefaults> & RunnerDefaults;

export type CheckedRunnerSettings = WithRunnerDefaults<RunnerSettings>;

/** The defaults of the shared settings; GARM's own defaults (runner prefix, group, timeout) stay omitted. */
export function runnerDefaults<T extends RunnerSettings>(inputs: T): WithRunnerDefaults<T> {
  return {
    ...inputs,
    osType: inputs.osType ?? "linux",
    osArch: inputs.osArch ?? "amd64",
    minIdleRunners: inputs.minIdleRunners ?? 0,
    enabled: inputs.enabled ?? true,
    drain: { ...DRAIN_DEFAULTS, ...inputs.drain },
  };
}
