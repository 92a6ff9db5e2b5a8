// What a function (a data source) is: its arguments and result as zod schemas (one source for the checks, schema.json
// and the SDK types) and how it reads them from GARM, with the one GARM client its front door hands it.
import { z } from "zod";
import type { GarmClient } from "../garm/client";
import { SharedAnswers, perClient } from "../garm/per-client";

/** The GARM calls functions may make: reads only, so a function cannot write to GARM. */
export const GARM_READS = [
  "getController",
  "listProviders",
  "listEndpoints",
  "listCredentials",
  "listEntities",
  "listTemplates",
  "listScaleSets",
  "getScaleSet",
  "listPools",
  "getPool",
  "listScaleSetInstances",
  "listPoolInstances",
] as const satisfies readonly (keyof GarmClient)[];

/** What a function reads GARM through. Each function makes one of these calls per call (plus the client's login). */
export type GarmReads = Pick<GarmClient, (typeof GARM_READS)[number]>;

/**
 * The reads of one client, each distinct request asked once however many calls of a run ask it (concurrent ones share
 * the request; a failure is asked again): a program reading the same scale set from a hundred places costs one request.
 */
export const sharedReads: (client: GarmReads) => GarmReads = perClient((client: GarmReads) => {
  const answers = new SharedAnswers<unknown>();
  const shared = (method: (typeof GARM_READS)[number]) =>
    (...args: unknown[]) => answers.get(`${method}\n${JSON.stringify(args)}`, () => (client[method] as (...a: unknown[]) => Promise<unknown>)(...args));
  return Object.fromEntries(GARM_READS.map((method) => [method, shared(method)])) as unknown as GarmReads;
});

export interface GarmFunction<A extends z.ZodObject = z.ZodObject, R extends z.ZodObject = z.ZodObject> {
  /** The SDK name (`getController`); the plugin's token is `garm:index:<name>`. */
  readonly name: string;
  readonly description: string;
  readonly args: A;
  readonly result: R;
  /** Reads the answer from GARM; throws a LookupError (matching.ts) or a GarmApiError. */
  readonly read: (garm: GarmReads, args: z.output<A>) => Promise<z.input<R>>;
}

/** Keeps the literal types of a definition. */
export function defineFunction<A extends z.ZodObject, R extends z.ZodObject>(f: GarmFunction<A, R>): GarmFunction<A, R> {
  return f;
}

export const FORGE = z.enum(["github", "gitea"]);

/** An optional text argument; an empty string counts as not given, as YAML and config often send one. */
export function optionalText(description: string) {
  return z
    .string()
    .optional()
    .transform((s) => (s === "" ? undefined : s))
    .describe(description);
}
