// The functions (data sources) of the TypeScript package: `getX(args)` answers a Promise and `getXOutput(args)` an
// Output, Pulumi's convention. Dynamic providers have no Invoke, so they run in the program itself, against the GARM the
// stack's `garm:*` config names (GARM_* environment variables as fallbacks), with one client per program.
import * as pulumi from "@pulumi/pulumi";

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

/** Pulumi's options for a function call; accepted for the shape of Pulumi's own functions. */
export type GarmInvokeOptions = pulumi.InvokeOptions;

function invoke<N extends FunctionName>(name: N, args: FunctionArgs<N> | undefined): Promise<FunctionResult<N>> {
  return functions().invoke(name, args);
}

/** Each argument may be an Input. */
type InputArgs<A> = { [K in keyof A]: pulumi.Input<A[K]> };

function invokeOutput<N extends FunctionName>(name: N, args: InputArgs<FunctionArgs<N>> | undefined): pulumi.Output<FunctionResult<N>> {
  return pulumi.output(args ?? {}).apply((plain) => invoke(name, plain as FunctionArgs<N>)) as pulumi.Output<FunctionResult<N>>;
}

export type GetControllerResult = FunctionResult<"getController">;
/** GARM's controller: its id, webhook, metadata and callback URLs, and version. */
export const getController = (_opts?: GarmInvokeOptions): Promise<GetControllerResult> => invoke("getController", {});
export const getControllerOutput = (_opts?: GarmInvokeOptions): pulumi.Output<GetControllerResult> => invokeOutput("getController", {});

export type GetProvidersResult = FunctionResult<"getProviders">;
/** The external providers GARM has loaded (name, type, description), sorted by name. */
export const getProviders = (_opts?: GarmInvokeOptions): Promise<GetProvidersResult> => invoke("getProviders", {});
export const getProvidersOutput = (_opts?: GarmInvokeOptions): pulumi.Output<GetProvidersResult> => invokeOutput("getProviders", {});

export type GetEndpointArgs = FunctionArgs<"getEndpoint">;
export type GetEndpointResult = FunctionResult<"getEndpoint">;
/** A forge endpoint by name (ignoring case) and forge (default github). */
export const getEndpoint = (args: GetEndpointArgs, _opts?: GarmInvokeOptions): Promise<GetEndpointResult> => invoke("getEndpoint", args);
export const getEndpointOutput = (args: InputArgs<GetEndpointArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetEndpointResult> => invokeOutput("getEndpoint", args);

export type GetCredentialsArgs = FunctionArgs<"getCredentials">;
export type GetCredentialsResult = FunctionResult<"getCredentials">;
/** Forge credentials by name (ignoring case), forge and optionally endpoint; never a secret. */
export const getCredentials = (args: GetCredentialsArgs, _opts?: GarmInvokeOptions): Promise<GetCredentialsResult> => invoke("getCredentials", args);
export const getCredentialsOutput = (args: InputArgs<GetCredentialsArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetCredentialsResult> =>
  invokeOutput("getCredentials", args);

export type GetEntityArgs = FunctionArgs<"getOrganization">;
export type GetEntityResult = FunctionResult<"getOrganization">;
/** An organization by name (ignoring case) and, when two endpoints hold it, endpoint: its id (a scale set's entityId). */
export const getOrganization = (args: GetEntityArgs, _opts?: GarmInvokeOptions): Promise<GetEntityResult> => invoke("getOrganization", args);
export const getOrganizationOutput = (args: InputArgs<GetEntityArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetEntityResult> => invokeOutput("getOrganization", args);
/** A repository by owner/name (ignoring case) and, when two endpoints hold it, endpoint. */
export const getRepository = (args: GetEntityArgs, _opts?: GarmInvokeOptions): Promise<GetEntityResult> => invoke("getRepository", args);
export const getRepositoryOutput = (args: InputArgs<GetEntityArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetEntityResult> => invokeOutput("getRepository", args);
/** An enterprise by name (ignoring case) and, when two endpoints hold it, endpoint. */
export const getEnterprise = (args: GetEntityArgs, _opts?: GarmInvokeOptions): Promise<GetEntityResult> => invoke("getEnterprise", args);
export const getEnterpriseOutput = (args: InputArgs<GetEntityArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetEntityResult> => invokeOutput("getEnterprise", args);

export type GetTemplateArgs = FunctionArgs<"getTemplate">;
export type GetTemplateResult = FunctionResult<"getTemplate">;
/** A runner install template by id, by name, or GARM's system template for a forge and osType. */
export const getTemplate = (args: GetTemplateArgs, _opts?: GarmInvokeOptions): Promise<GetTemplateResult> => invoke("getTemplate", args);
export const getTemplateOutput = (args: InputArgs<GetTemplateArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetTemplateResult> => invokeOutput("getTemplate", args);

export type GetTemplatesArgs = FunctionArgs<"getTemplates">;
export type GetTemplatesResult = FunctionResult<"getTemplates">;
/** The runner install templates, optionally of one forge and osType. */
export const getTemplates = (args?: GetTemplatesArgs, _opts?: GarmInvokeOptions): Promise<GetTemplatesResult> => invoke("getTemplates", args);
export const getTemplatesOutput = (args?: InputArgs<GetTemplatesArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetTemplatesResult> => invokeOutput("getTemplates", args);

export type GetScaleSetArgs = FunctionArgs<"getScaleSet">;
export type GetScaleSetResult = FunctionResult<"getScaleSet">;
/** A scale set by GARM id, or by name (its live name or its GarmScaleSet's name) narrowed by entity and endpoint. */
export const getScaleSet = (args: GetScaleSetArgs, _opts?: GarmInvokeOptions): Promise<GetScaleSetResult> => invoke("getScaleSet", args);
export const getScaleSetOutput = (args: InputArgs<GetScaleSetArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetScaleSetResult> => invokeOutput("getScaleSet", args);

export type GetPoolArgs = FunctionArgs<"getPool">;
export type GetPoolResult = FunctionResult<"getPool">;
/** A pool by GARM id: its settings and runner count. */
export const getPool = (args: GetPoolArgs, _opts?: GarmInvokeOptions): Promise<GetPoolResult> => invoke("getPool", args);
export const getPoolOutput = (args: InputArgs<GetPoolArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetPoolResult> => invokeOutput("getPool", args);

export type GetRunnersArgs = FunctionArgs<"getRunners">;
export type GetRunnersResult = FunctionResult<"getRunners">;
/** The runners of a scale set (scaleSetId) or a pool (poolId). */
export const getRunners = (args: GetRunnersArgs, _opts?: GarmInvokeOptions): Promise<GetRunnersResult> => invoke("getRunners", args);
export const getRunnersOutput = (args: InputArgs<GetRunnersArgs>, _opts?: GarmInvokeOptions): pulumi.Output<GetRunnersResult> => invokeOutput("getRunners", args);
