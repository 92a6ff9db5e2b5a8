// GARM from scratch: a freshly initialised GARM (its admin user made, nothing else) to a running scale set, and back to
// empty on `pulumi destroy`. GARM's URL and login come from the stack config garm:url, garm:username and garm:password;
// the GitHub to use, its token and the webhook secret from this project's keys (see README.md).
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();
// The URL runners and GitHub reach GARM at; by default the one Pulumi uses.
const garmUrl = (config.get("garmPublicUrl") ?? new pulumi.Config("garm").require("url")).replace(/\/+$/, "");
// A GitHub Enterprise Server lays out its API and uploads under its web URL; set the two keys for another layout.
const githubUrl = config.require("githubUrl").replace(/\/+$/, "");

// Where runners fetch their metadata and report back, and where GitHub delivers webhooks. A fresh GARM answers every
// other call with "Missing required URLs" until the first two are set, so everything below waits for this resource.
// Destroying it leaves GARM's settings as they are.
const controller = new garm.GarmController("controller", {
  metadataUrl: `${garmUrl}/api/v1/metadata`,
  callbackUrl: `${garmUrl}/api/v1/callbacks`,
  webhookUrl: `${garmUrl}/webhooks`,
});

// GARM loads providers from its config file only at start, so this resource edits the file and restarts GARM. The
// endpoint waits for it, so no write is in flight while GARM restarts; on destroy the restart that unloads the provider
// comes after everything else is deleted.
const provider = new garm.GarmProvider(
  "runners",
  {
    name: config.get("providerName") ?? "fake",
    description: "runners of the pulumi-garm from-scratch example",
    executable: config.require("providerExecutable"),
    configFile: config.get("providerConfigFile"),
    garmConfigPath: config.require("garmConfigPath"),
    restartCommand: config.require("restartCommand"),
    restartTimeoutSeconds: 60,
  },
  { dependsOn: [controller] },
);

const endpoint = new garm.GarmEndpoint(
  "github",
  {
    name: config.get("endpointName") ?? "ghes",
    description: "the GitHub of the from-scratch example",
    baseUrl: githubUrl,
    apiBaseUrl: config.get("githubApiUrl") ?? `${githubUrl}/api/v3/`,
    uploadBaseUrl: config.get("githubUploadUrl") ?? `${githubUrl}/api/uploads/`,
  },
  { dependsOn: [provider] },
);

// endpoint.name is an output: Pulumi creates the endpoint first and deletes it last.
const credentials = new garm.GarmCredentials("token", {
  name: "from-scratch-pat",
  description: "personal access token of the from-scratch example",
  endpoint: endpoint.name,
  token: config.requireSecret("githubToken"),
});

// GARM installs its webhook in the organization, and removes it when the organization is deleted. The webhook URL comes
// from the controller settings, hence the dependency.
const organization = new garm.GarmOrganization(
  "org",
  {
    name: config.get("organization") ?? "acme",
    credentials: credentials.name,
    webhookSecret: config.requireSecret("webhookSecret"),
    installWebhook: true,
  },
  { dependsOn: [controller] },
);

// Outputs of the organization and the provider: Pulumi creates both first and deletes the scale set before either.
const scaleSet = new garm.GarmScaleSet("small", {
  name: "ci-small",
  entityId: organization.entityId,
  providerName: provider.name,
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64"],
  maxRunners: 2,
  minIdleRunners: 1,
  drain: { timeoutSeconds: 120, pollSeconds: 1 },
});

export const controllerWebhookUrl = controller.controllerWebhookUrl;
export const endpointName = endpoint.name;
export const credentialsName = credentials.name;
export const organizationId = organization.entityId;
export const webhookInstalled = organization.webhookInstalled;
export const providerName = provider.name;
export const liveName = scaleSet.liveName;
export const scaleSetId = scaleSet.scaleSetId;
