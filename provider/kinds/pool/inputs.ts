// The GarmPool input schema: the shared runner settings (../../runners/inputs.ts) extended with what only a pool has;
// one source for check's type rules, the defaults and schema.json's documentation.
import { z } from "zod";
import { type RunnerDefaults, runnerDefaults, runnerSettingsSchema } from "../../runners/inputs";

export const poolInputSchema = runnerSettingsSchema
  .extend({
    organization: z.string().optional().describe("GitHub organization (a GARM entity) that owns the pool. Changing the entity replaces the pool."),
    repository: z.string().optional().describe("GitHub repository as owner/name (a GARM entity) that owns the pool."),
    enterprise: z.string().optional().describe("GitHub enterprise (a GARM entity) that owns the pool."),
    labels: z.array(z.string()).describe("Labels (GARM's tags) workflows target in runs-on; at least one. Changes in place."),
    runnerGroup: z.string().optional().describe("GitHub runner group. Defaults to none (GitHub's default group)."),
    priority: z.number().int().nonnegative().optional().describe("When several pools match a job, the higher priority gets it. Defaults to 0."),
    adoptPoolId: z.string().optional().describe("GARM id of an existing pool to manage from now on instead of creating one; it must be under the entity and use providerName."),
  })
  .strict();

export type PoolInputs = z.output<typeof poolInputSchema>;

/** The inputs with every default filled in, as check returns them and the other methods receive them. */
export interface CheckedPoolInputs extends Omit<PoolInputs, keyof RunnerDefaults>, RunnerDefaults {}

export function poolDefaults(inputs: PoolInputs): CheckedPoolInputs {
  return runnerDefaults(inputs);
}
