// A runner install template used by a classic pool and a scale set. Editing the template text updates it in place; the
// template is deleted only after the pool and the scale set that use it (Pulumi orders this from templateId).
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();
const organization = config.get("organization") ?? "acme";

// GARM loads providers from its config file only at start, so this resource edits the file and restarts GARM.
const provider = new garm.GarmProvider("fake", {
  name: config.get("providerName") ?? "fake",
  executable: config.require("providerExecutable"),
  garmConfigPath: config.require("garmConfigPath"),
  restartCommand: config.require("restartCommand"),
  restartTimeoutSeconds: 30,
});
const providerName = provider.name;

const install = new garm.GarmTemplate("install", {
  name: "ci-linux",
  description: "runner install script of the pools-templates example",
  osType: "linux",
  forgeType: "github",
  // A file path works too (bodyFile: "install.sh"): its text is read at preview and compared as text.
  body: config.get("templateBody") ?? "#!/bin/bash\nset -e\necho installing {{ .RunnerName }}\n",
});

const pool = new garm.GarmPool("linux-pool", {
  organization,
  providerName,
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64", "pool"],
  maxRunners: 2,
  // GARM's pool manager makes a runner for each queued job whose labels the pool's tags hold.
  minIdleRunners: 0,
  templateId: install.templateId,
  drain: { timeoutSeconds: 120, pollSeconds: 1 },
});

const scaleSet = new garm.GarmScaleSet("small", {
  name: "ci-small",
  organization,
  providerName,
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64", "small"],
  maxRunners: 2,
  templateId: install.templateId,
  drain: { timeoutSeconds: 120, pollSeconds: 1 },
});

export const templateId = install.templateId;
export const poolId = pool.poolId;
export const scaleSetId = scaleSet.scaleSetId;
