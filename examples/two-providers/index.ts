// One GARM provider entry per region in the same GARM config file, and a scale set on each. Adding a region adds its
// entry and restarts GARM once; the other region's entry and scale set are left alone. Destroy removes the scale sets
// before the provider entries they use.
import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const config = new pulumi.Config();
const regions = config.requireObject<string[]>("regions"); // e.g. ["east"], then ["east","west"]

const scaleSets: Record<string, { liveName: pulumi.Output<string>; scaleSetId: pulumi.Output<number> }> = {};
for (const region of regions) {
  const provider = new garm.GarmProvider(region, {
    name: region,
    description: `runners in region ${region}`,
    executable: config.require("providerExecutable"),
    configFile: config.get("providerConfigFile"),
    garmConfigPath: config.require("garmConfigPath"),
    restartCommand: config.require("restartCommand"),
  });
  const set = new garm.GarmScaleSet(`ci-${region}`, {
    name: `ci-${region}`,
    organization: config.get("organization") ?? "acme",
    providerName: provider.name,
    image: "ubuntu-24.04",
    flavor: "small",
    labels: ["linux", "x64", region],
    maxRunners: 2,
    drain: { timeoutSeconds: 120, pollSeconds: 1 },
  });
  scaleSets[region] = { liveName: set.liveName, scaleSetId: set.scaleSetId };
}

export const providers = regions;
export const scaleSetsByRegion = scaleSets;
