// One operator's GarmProvider on a GARM that lives on its own machine, reached over SSH, which other operators' stacks
// also add providers to. Every input of the GarmProvider comes from the stack config object `garmProvider`, so each
// stack (each operator) names its own provider and says where GARM's config file is and how GARM is restarted there;
// the SSH login comes from the secret config object `connection` (without it, the file is on this machine). The optional
// config object `scaleSet` adds a scale set whose runners come from that provider.
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();
const args = config.requireObject<garm.GarmProviderArgs>("garmProvider");
const connection = config.getSecretObject<garm.GarmProviderConnectionArgs>("connection");

const provider = new garm.GarmProvider(pulumi.getStack(), { ...args, ...(connection ? { connection } : {}) });

const scaleSetArgs = config.getObject<Omit<garm.GarmScaleSetArgs, "providerName">>("scaleSet");
// providerName is the provider's output: Pulumi adds the provider first and removes the scale set first.
const scaleSet = scaleSetArgs ? new garm.GarmScaleSet(`${pulumi.getStack()}-runners`, { ...scaleSetArgs, providerName: provider.name }) : undefined;

export const providerName = provider.name;
export const owner = provider.owner;
export const scaleSetId = scaleSet?.scaleSetId;
