// Destroy never cancels a running job: a scale set whose runner is busy is disabled and left draining; when the drain
// timeout passes the delete fails naming the busy runner, Pulumi keeps the resource, and the next destroy (after the
// job is done) finishes the job.
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

const builds = new garm.GarmScaleSet("builds", {
  name: "ci-builds",
  organization: config.get("organization") ?? "acme",
  providerName: provider.name,
  image: "ubuntu-24.04",
  flavor: "large",
  labels: ["linux", "x64", "builds"],
  maxRunners: 2,
  minIdleRunners: 1,
  // A short drain so the example shows the failure quickly; a real stack keeps the 10-minute default or more.
  drain: { timeoutSeconds: config.getNumber("drainTimeoutSeconds") ?? 10, pollSeconds: 1 },
});

export const liveName = builds.liveName;
export const scaleSetId = builds.scaleSetId;
