// pulumi-garm: Pulumi resources for GARM (GitHub Actions Runner Manager).
export { GarmScaleSet, type GarmScaleSetArgs } from "./scaleset";
export { GarmProvider, type GarmProviderArgs, type GarmProviderConnectionArgs, type GarmSshLoginArgs } from "./garm-provider";
export { GarmEndpoint, type GarmEndpointArgs } from "./endpoint";
export { GarmCredentials, type GarmCredentialsArgs } from "./credentials";
export { GarmOrganization, GarmRepository, GarmEnterprise, type GarmOrganizationArgs, type GarmRepositoryArgs, type GarmEnterpriseArgs } from "./entity";
export { GarmController, type GarmControllerArgs } from "./controller";
export { GarmTemplate, type GarmTemplateArgs } from "./template";
export { GarmPool, type GarmPoolArgs } from "./pool";
