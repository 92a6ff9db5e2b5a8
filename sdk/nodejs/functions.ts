// The functions (data sources) of the TypeScript package: `getX(args)` answers a Promise and `getXOutput(args)` an
// Output, Pulumi's convention. Dynamic providers have no Invoke, so they run in the program itself, against the GARM the
// stack's `garm:*` config names (GARM_* environment variables as fallbacks), or the one the call's `garm` option names,
// with one client per GARM per program.
import * as pulumi from "@pulumi/pulumi";
import { GARM_INPUT } from "../../provider/registry/kinds";
import type { GarmConnectionArgs } from "./garm-connection";

/** The implementation, as the package installed at run time exports it (the way the resources' shim reaches theirs). */
type Implementation = typeof import("../../provider/functions");
type FunctionName = import("../../provider/functions").FunctionName;
type FunctionArgs<N extends FunctionName> = import("../../provider/functions").FunctionArgs<N>;
type FunctionResult<N extends FunctionName> = import("../../provider/functions").FunctionResult<N>;

let program: InstanceType<Implementation["ProgramFunctions"]> | undefined;

/**
 * The program's functions, made at the first call: the implementation is loaded only by programs that call one, so a
 * program that declares resources alone starts as fast as before. The stack config is read by full key (`garm:url`);
 * runtime.getConfig does not warn on secrets, which only ever reach the GARM client.
 */
function functions(): InstanceType<Implementation["ProgramFunctions"]> {
  if (!program) {
    const { ProgramFunctions } = require("pulumi-garm/functions") as Implementation;
    program = new ProgramFunctions({ get: (key) => pulumi.runtime.getConfig(key) });
  }
  return program;
}

/** For tests: forget the program's connection, so the next call reads the config again. */
export function resetFunctionConnection(): void {
  program = undefined;
}

/** Options of `getX`: Pulumi's (accepted for the shape of Pulumi's own functions), and the GARM to read, as plain values. */
export interface GarmInvokeOptions extends pulumi.InvokeOptions {
  /** The GARM to read instead of the stack's `garm:*` config (a resource's `garm` input takes the same). */
  readonly garm?: pulumi.Unwrap<GarmConnectionArgs>;
}

/** Options of `getXOutput`: the GARM to read may be given as Inputs (a password from `config.requireSecret`). */
export interface GarmInvokeOutputOptions extends pulumi.InvokeOptions {
  readonly garm?: pulumi.Input<GarmConnectionArgs>;
}

/** Each argument may be an Input. */
type InputArgs<A> = { [K in keyof A]: pulumi.Input<A[K]> };
/** The parameters of `getX`: the arguments are optional where the function needs none. */
type Params<N extends FunctionName, A, O> = {} extends FunctionArgs<N> ? [args?: A, opts?: O] : [args: A, opts?: O];

/** The GARM a call names, for the implementation's messages under the option's name. */
const namedGarm = (garm: unknown) => (garm === undefined ? undefined : { option: GARM_INPUT, value: garm });

/** `getX(args)`: the answer as a Promise. */
function promiseOf<N extends FunctionName>(name: N): (...params: Params<N, FunctionArgs<N>, GarmInvokeOptions>) => Promise<FunctionResult<N>> {
  return (...[args, opts]) => functions().invoke(name, args, namedGarm(opts?.garm));
}

/**
 * `getXOutput(args)`: the arguments as Inputs, the answer as an Output. The connection's password makes no answer
 * secret: no function answers a secret, and the password only reaches the GARM client.
 */
function outputOf<N extends FunctionName>(name: N): (...params: Params<N, InputArgs<FunctionArgs<N>>, GarmInvokeOutputOptions>) => pulumi.Output<FunctionResult<N>> {
  return (...[args, opts]) =>
    pulumi
      .all([pulumi.output(args ?? {}), pulumi.unsecret(pulumi.output(opts?.garm))])
      .apply(([plain, garm]) => functions().invoke(name, plain as FunctionArgs<N>, namedGarm(garm))) as pulumi.Output<FunctionResult<N>>;
}

export type GetControllerResult = FunctionResult<"getController">;
/** GARM's controller: its id, webhook, metadata and callback URLs, and version. */
export const getController = promiseOf("getController");
export const getControllerOutput = outputOf("getController");

export type GetProvidersResult = FunctionResult<"getProviders">;
/** The external providers GARM has loaded (name, type, description), sorted by name. */
export const getProviders = promiseOf("getProviders");
export const getProvidersOutput = outputOf("getProviders");

export type GetEndpointArgs = FunctionArgs<"getEndpoint">;
export type GetEndpointResult = FunctionResult<"getEndpoint">;
/** A forge endpoint by name (ignoring case) and forge (default github). */
export const getEndpoint = promiseOf("getEndpoint");
export const getEndpointOutput = outputOf("getEndpoint");

export type GetCredentialsArgs = FunctionArgs<"getCredentials">;
export type GetCredentialsResult = FunctionResult<"getCredentials">;
/** Forge credentials by name (ignoring case), forge and optionally endpoint; never a secret. */
export const getCredentials = promiseOf("getCredentials");
export const getCredentialsOutput = outputOf("getCredentials");

export type GetEntityArgs = FunctionArgs<"getOrganization">;
export type GetEntityResult = FunctionResult<"getOrganization">;
/** An organization by name (ignoring case) and, when two endpoints hold it, endpoint: its id (a scale set's entityId). */
export const getOrganization = promiseOf("getOrganization");
export const getOrganizationOutput = outputOf("getOrganization");
/** A repository by owner/name (ignoring case) and, when two endpoints hold it, endpoint. */
export const getRepository = promiseOf("getRepository");
export const getRepositoryOutput = outputOf("getRepository");
/** An enterprise by name (ignoring case) and, when two endpoints hold it, endpoint. */
export const getEnterprise = promiseOf("getEnterprise");
export const getEnterpriseOutput = outputOf("getEnterprise");

export type GetTemplateArgs = FunctionArgs<"getTemplate">;
export type GetTemplateResult = FunctionResult<"getTemplate">;
/** A runner install template by id, by name, or GARM's system template for a forge and osType. */
export const getTemplate = promiseOf("getTemplate");
export const getTemplateOutput = outputOf("getTemplate");

export type GetTemplatesArgs = FunctionArgs<"getTemplates">;
export type GetTemplatesResult = FunctionResult<"getTemplates">;
/** The runner install templates, optionally of one forge and osType. */
export const getTemplates = promiseOf("getTemplates");
export const getTemplatesOutput = outputOf("getTemplates");

export type GetScaleSetArgs = FunctionArgs<"getScaleSet">;
export type GetScaleSetResult = FunctionResult<"getScaleSet">;
/** A scale set by GARM id, or by name (its live name or its GarmScaleSet's name) narrowed by entity and endpoint. */
export const getScaleSet = promiseOf("getScaleSet");
export const getScaleSetOutput = outputOf("getScaleSet");

export type GetPoolArgs = FunctionArgs<"getPool">;
export type GetPoolResult = FunctionResult<"getPool">;
/** A pool by GARM id: its settings and runner count. */
export const getPool = promiseOf("getPool");
export const getPoolOutput = outputOf("getPool");

export type GetRunnersArgs = FunctionArgs<"getRunners">;
export type GetRunnersResult = FunctionResult<"getRunners">;
/** The runners of a scale set (scaleSetId) or a pool (poolId). */
export const getRunners = promiseOf("getRunners");
export const getRunnersOutput = outputOf("getRunners");
