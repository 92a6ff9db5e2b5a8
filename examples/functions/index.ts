// Functions: read what GARM holds without managing it, and build on it. The organization is one another stack (or
// garm-cli) made; its id, GARM's system template and a provider GARM has loaded feed a scale set, and the stack exports
// GARM's webhook URL (for a GitHub webhook another provider manages) and the scale set's runners.
// GARM's URL and login come from the stack config garm:url, garm:username and garm:password (see README.md).
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();

const controller = garm.getControllerOutput();
const org = garm.getOrganizationOutput({ name: config.get("organization") ?? "acme" });
const linux = garm.getTemplateOutput({ forge: "github", osType: "linux" });
const provider = garm.getProvidersOutput().providers.apply((loaded) => {
  const wanted = config.get("providerName") ?? "fake";
  if (!loaded.some((p) => p.name === wanted)) throw new Error(`GARM has no provider ${wanted}: it has ${loaded.map((p) => p.name).join(", ")}`);
  return wanted;
});

const small = new garm.GarmScaleSet("small", {
  name: "ci-small",
  entityId: org.id,
  providerName: provider,
  templateId: linux.id,
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64"],
  maxRunners: 2,
  minIdleRunners: 1,
  drain: { timeoutSeconds: 120, pollSeconds: 1 },
});

export const webhookUrl = controller.controllerWebhookUrl;
export const garmVersion = controller.version;
export const organizationId = org.id;
export const templateName = linux.name;
export const liveName = garm.getScaleSetOutput({ id: small.scaleSetId }).name;
export const runners = garm.getRunnersOutput({ scaleSetId: small.scaleSetId }).runners;
