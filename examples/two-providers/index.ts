// Two GARM provider entries (two backends) in the same config file, written together with one GARM restart, and a
// scale set on each. Destroy removes both scale sets before either provider entry.
import * as garm from "pulumi-garm";
import { type ExampleConfig, type ExampleProgram, drainOptions } from "../config";

export function program(cfg: ExampleConfig): ExampleProgram {
  return async () => {
    const common = {
      executable: cfg.providerExecutable,
      garmConfigPath: cfg.garmConfigPath,
      restartCommand: cfg.restartCommand,
    };
    const east = new garm.GarmProvider("east", { ...common, name: "east", description: "runners in region east" });
    const west = new garm.GarmProvider("west", { ...common, name: "west", description: "runners in region west" });

    const scaleSet = (region: string, provider: garm.GarmProvider) =>
      new garm.GarmScaleSet(`ci-${region}`, {
        name: `ci-${region}`,
        organization: cfg.organization ?? "acme",
        providerName: provider.name,
        image: "ubuntu-24.04",
        flavor: "small",
        labels: ["linux", "x64", region],
        maxRunners: 2,
        drain: drainOptions(cfg),
      });
    const eastSet = scaleSet("east", east);
    const westSet = scaleSet("west", west);

    return {
      eastLiveName: eastSet.liveName,
      eastScaleSetId: eastSet.scaleSetId,
      westLiveName: westSet.liveName,
      westScaleSetId: westSet.scaleSetId,
    };
  };
}
