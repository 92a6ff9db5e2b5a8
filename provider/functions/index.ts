// The functions (data sources) both front doors serve, over one implementation: the table, and `invoke`, which checks
// a call's arguments, reads GARM through the client the front door gives it and checks the answer's shape.
import type { z } from "zod";
import type { ConfigSource } from "../common/config";
import { Connection, connectionFor } from "../common/connection";
import { connectionSettingsOf } from "../common/garm-connection-input";
import { getController, getProviders } from "./controller";
import { type GarmFunction, type GarmReads, sharedReads } from "./define";
import { getEnterprise, getOrganization, getRepository } from "./entities";
import { getCredentials, getEndpoint } from "./forge";
import { getPool, getRunners, getScaleSet } from "./runners";
import { getTemplate, getTemplates } from "./templates";

export type { GarmReads } from "./define";
export { LookupError } from "./matching";

/** Every function, under its SDK name. */
export const FUNCTIONS = {
  getController,
  getProviders,
  getEndpoint,
  getCredentials,
  getOrganization,
  getRepository,
  getEnterprise,
  getTemplate,
  getTemplates,
  getScaleSet,
  getPool,
  getRunners,
} as const;

export type FunctionName = keyof typeof FUNCTIONS;
/** What a program passes to a function. */
export type FunctionArgs<N extends FunctionName> = z.input<(typeof FUNCTIONS)[N]["args"]>;
/** What a function answers. */
export type FunctionResult<N extends FunctionName> = z.output<(typeof FUNCTIONS)[N]["result"]>;

/** The function a name or plugin token (`garm:index:getController`) names, or undefined. */
export function functionNamed(nameOrToken: string): GarmFunction | undefined {
  const name = nameOrToken.replace(/^garm:index:/, "");
  return Object.hasOwn(FUNCTIONS, name) ? (FUNCTIONS[name as FunctionName] as unknown as GarmFunction) : undefined;
}

/** A call's arguments that do not fit the function; the message names the argument. */
export class FunctionArgsError extends Error {
  override readonly name = "FunctionArgsError";
  constructor(
    readonly failures: readonly { property: string; reason: string }[],
    fn: string,
  ) {
    super(`${fn}: ${failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join("; ")}`);
  }
}

/** The arguments checked and defaulted; throws a FunctionArgsError naming each argument at fault. */
export function checkFunctionArgs(fn: GarmFunction, args: unknown): Record<string, unknown> {
  const parsed = fn.args.strict().safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  throw new FunctionArgsError(
    parsed.error.issues.map((issue) => ({ property: issue.path.join(".") || (issue.code === "unrecognized_keys" ? issue.keys.join(", ") : ""), reason: issue.message })),
    fn.name,
  );
}

/**
 * Runs one function against the GARM `garm` reaches; calls on one client share its answers (sharedReads). Fails with the function's name first: a FunctionArgsError, a
 * look-up that names nothing or several things, or GARM's own failure (unreachable, refused login).
 */
export async function invokeFunction(fn: GarmFunction, garm: () => GarmReads, args: unknown): Promise<Record<string, unknown>> {
  const checked = checkFunctionArgs(fn, args);
  try {
    return fn.result.parse(await fn.read(sharedReads(garm()), checked));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw Object.assign(new Error(`${fn.name}: ${message}`), { cause: err });
  }
}

/** A GARM the program names for one call, instead of the stack's: the option's value, under the option's name. */
export interface NamedGarm {
  readonly option: string;
  readonly value: unknown;
}

/**
 * The functions as a program runs them (the TypeScript package has no Invoke to reach a provider process): one GARM
 * connection from the stack config given, made at the first call and shared by every call of the program; a call that
 * names its own GARM uses that GARM's connection, one per GARM, shared with the calls that name it too.
 */
export class ProgramFunctions {
  private connection: Connection | undefined;

  constructor(
    private readonly config: ConfigSource,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  invoke<N extends FunctionName>(name: N, args: FunctionArgs<N> | undefined, garm?: NamedGarm): Promise<FunctionResult<N>> {
    const fn = functionNamed(name)!;
    if (garm === undefined || garm.value === undefined) return invokeFunction(fn, () => this.client(), args ?? {}) as Promise<FunctionResult<N>>;
    const { settings, problems } = connectionSettingsOf(garm.value, garm.option);
    if (!settings) {
      const failures = problems.length > 0 ? problems : [{ property: garm.option, reason: "is not known: give the GARM's settings once they are known (use getXOutput)" }];
      return Promise.reject(new FunctionArgsError(failures, fn.name));
    }
    return invokeFunction(fn, () => connectionFor(settings).client(), args ?? {}) as Promise<FunctionResult<N>>;
  }

  private client(): GarmReads {
    if (!this.connection) {
      this.connection = new Connection();
      this.connection.configure(this.config, this.env);
    }
    return this.connection.client();
  }
}
