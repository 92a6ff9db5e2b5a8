// pulumi-garm: Pulumi resources for GARM (GitHub Actions Runner Manager).
export { GarmScaleSet, type GarmScaleSetArgs } from "./scaleset";
export { GarmProvider, type GarmProviderArgs, type GarmProviderConnectionArgs, type GarmSshLoginArgs } from "./garm-provider";
export { GarmEndpoint, type GarmEndpointArgs } from "./endpoint";
export { GarmCredentials, type GarmCredentialsArgs } from "./credentials";
export { GarmOrganization, GarmRepository, GarmEnterprise, type GarmOrganizationArgs, type GarmRepositoryArgs, type GarmEnterpriseArgs } from "./entity";
export { GarmController, type GarmControllerArgs } from "./controller";
export { GarmTemplate, type GarmTemplateArgs } from "./template";
export { GarmPool, type GarmPoolArgs } from "./pool";
export type { GarmConnectionArgs, InGarmArgs } from "./garm-connection";
export {
  type GarmInvokeOptions,
  type GarmInvokeOutputOptions,
  getController,
  getControllerOutput,
  type GetControllerResult,
  getProviders,
  getProvidersOutput,
  type GetProvidersResult,
  getEndpoint,
  getEndpointOutput,
  type GetEndpointArgs,
  type GetEndpointResult,
  getCredentials,
  getCredentialsOutput,
  type GetCredentialsArgs,
  type GetCredentialsResult,
  getOrganization,
  getOrganizationOutput,
  getRepository,
  getRepositoryOutput,
  getEnterprise,
  getEnterpriseOutput,
  type GetEntityArgs,
  type GetEntityResult,
  getTemplate,
  getTemplateOutput,
  type GetTemplateArgs,
  type GetTemplateResult,
  getTemplates,
  getTemplatesOutput,
  type GetTemplatesArgs,
  type GetTemplatesResult,
  getScaleSet,
  getScaleSetOutput,
  type GetScaleSetArgs,
  type GetScaleSetResult,
  getPool,
  getPoolOutput,
  type GetPoolArgs,
  type GetPoolResult,
  getRunners,
  getRunnersOutput,
  type GetRunnersArgs,
  type GetRunnersResult,
} from "./functions";
