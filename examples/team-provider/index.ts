// One operator's GarmProvider on a GARM that other operators' stacks also add providers to. Every input of the
// GarmProvider comes from the stack config object `garmProvider`, so each stack (each operator) names its own provider
// and says where GARM's config file is and how GARM is restarted there.
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();
const args = config.requireObject<garm.GarmProviderArgs>("garmProvider");

const provider = new garm.GarmProvider(pulumi.getStack(), args);

export const providerName = provider.name;
export const owner = provider.owner;
