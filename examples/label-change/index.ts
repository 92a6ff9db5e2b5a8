// A label change: GitHub cannot change a scale set's labels, so a new label set is a new scale set (a new live name,
// "<name>-<hash of labels>"). Pulumi brings the new generation up, then drains and deletes the old one: CI always has
// runners for the old labels until the new ones exist.
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();

const provider = new garm.GarmProvider("fake", {
  name: config.get("providerName") ?? "fake",
  executable: config.require("providerExecutable"),
  configFile: config.get("providerConfigFile"),
  garmConfigPath: config.require("garmConfigPath"),
  restartCommand: config.require("restartCommand"),
});

const gpu = new garm.GarmScaleSet("gpu", {
  name: "ci-gpu",
  repository: config.get("repository") ?? "acme/app",
  providerName: provider.name,
  image: "ubuntu-24.04",
  flavor: "gpu",
  // The scale set's labels, e.g. ["linux","x64","gpu"]; set them, run `pulumi up`, change them, run it again.
  labels: config.requireObject<string[]>("labels"),
  maxRunners: 2,
  minIdleRunners: 1,
  drain: { timeoutSeconds: 120, pollSeconds: 1 },
});

export const liveName = gpu.liveName;
export const scaleSetId = gpu.scaleSetId;
export const labels = gpu.labels;
