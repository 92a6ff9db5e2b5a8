// The GarmPool input schema: one source for check's type rules, the defaults and schema.json's documentation. The
// fields a pool shares with a scale set are the scale set's, so both document and check them the same way.
import { z } from "zod";
import type { DrainOptions } from "../../runners/drain/options";
import { OS_ARCHES, OS_TYPES, type ScaleSetInputs, scaleSetInputSchema, withDefaults } from "../scaleset/inputs";

export const poolInputSchema = scaleSetInputSchema
  .pick({
    endpoint: true,
    providerName: true,
    image: true,
    flavor: true,
    osType: true,
    osArch: true,
    maxRunners: true,
    minIdleRunners: true,
    enabled: true,
    runnerPrefix: true,
    runnerBootstrapTimeout: true,
    extraSpecs: true,
    templateId: true,
    enableShell: true,
    drain: true,
  })
  .extend({
    organization: z.string().optional().describe("GitHub organization (a GARM entity) that owns the pool. Changing the entity replaces the pool."),
    repository: z.string().optional().describe("GitHub repository as owner/name (a GARM entity) that owns the pool."),
    enterprise: z.string().optional().describe("GitHub enterprise (a GARM entity) that owns the pool."),
    entityId: z.string().optional().describe("GARM id (UUID) of the organization, repository or enterprise, instead of a name."),
    labels: z.array(z.string()).describe("Labels (GARM's tags) workflows target in runs-on; at least one. Changes in place."),
    runnerGroup: z.string().optional().describe("GitHub runner group. Defaults to none (GitHub's default group)."),
    priority: z.number().int().nonnegative().optional().describe("When several pools match a job, the higher priority gets it. Defaults to 0."),
    adoptPoolId: z.string().optional().describe("GARM id of an existing pool to manage from now on instead of creating one; it must be under the entity and use providerName."),
  })
  .strict();

export type PoolInputs = z.output<typeof poolInputSchema>;

/** The inputs with every default filled in, as check returns them and the other methods receive them. */
export interface CheckedPoolInputs extends PoolInputs {
  osType: (typeof OS_TYPES)[number];
  osArch: (typeof OS_ARCHES)[number];
  minIdleRunners: number;
  enabled: boolean;
  drain: DrainOptions;
}

/** The scale set's defaults for the fields both share. */
export function poolDefaults(inputs: PoolInputs): CheckedPoolInputs {
  const { osType, osArch, minIdleRunners, enabled, drain } = withDefaults(inputs as unknown as ScaleSetInputs);
  return { ...inputs, osType, osArch, minIdleRunners, enabled, drain };
}
