// pulumi-garm: Pulumi resources for GARM (GitHub Actions Runner Manager).
export { GarmScaleSet, type GarmScaleSetArgs } from "./scaleset";
export { GarmProvider, type GarmProviderArgs } from "./garm-provider";
export { GarmTemplate, type GarmTemplateArgs } from "./template";
export { GarmPool, type GarmPoolArgs } from "./pool";
