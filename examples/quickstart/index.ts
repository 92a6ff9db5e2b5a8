// Quick start: one GARM provider entry and one scale set under an organization, keeping one idle runner ready.
// GARM's URL and login come from the stack config garm:url, garm:username and garm:password (see README.md).
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();

// GARM loads providers from its config file only at start, so this resource edits the file and restarts GARM.
const provider = new garm.GarmProvider("fake", {
  name: config.get("providerName") ?? "fake",
  description: "runners of the pulumi-garm quick start",
  executable: config.require("providerExecutable"),
  configFile: config.get("providerConfigFile"),
  garmConfigPath: config.require("garmConfigPath"),
  restartCommand: config.require("restartCommand"),
  restartTimeoutSeconds: 30,
});

const small = new garm.GarmScaleSet("small", {
  name: "ci-small",
  organization: config.get("organization") ?? "acme",
  // An output of the provider resource: Pulumi creates the provider first and deletes the scale set first.
  providerName: provider.name,
  image: "ubuntu-24.04",
  flavor: "small",
  // Extra labels from the stack config; changing them replaces the scale set, new generation first.
  labels: ["linux", "x64", ...(config.getObject<string[]>("extraLabels") ?? [])],
  maxRunners: 2,
  minIdleRunners: 1,
  // Check every second while draining (the default is every 5 s); give up after 2 minutes.
  drain: { timeoutSeconds: 120, pollSeconds: 1 },
});

export const providerName = provider.name;
export const liveName = small.liveName;
export const scaleSetId = small.scaleSetId;
export const labels = small.labels;
