// How a delete drains runners: the options scale sets and pools share, with their defaults and documentation.
import { z } from "zod";

export const DRAIN_DEFAULTS = { timeoutSeconds: 600, pollSeconds: 5, jobStaleAfterHours: 120 } as const;

export const drainSchema = z
  .object({
    timeoutSeconds: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("How long a delete waits for busy runners to finish in one run before failing; the scale set or pool stays disabled. Defaults to 600."),
    pollSeconds: z.number().int().positive().optional().describe("Seconds between drain checks. Defaults to 5."),
    jobStaleAfterHours: z
      .number()
      .positive()
      .optional()
      .describe(
        "A queued or running job older than this no longer holds its runner (GitHub ends self-hosted jobs after 5 days). Defaults to 120.",
      ),
  })
  .strict();

export type DrainOptions = Required<z.output<typeof drainSchema>>;
