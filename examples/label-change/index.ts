// A label change: GitHub cannot change a scale set's labels, so a new label set is a new scale set (a new live name,
// "<name>-<hash of labels>"). Pulumi brings the new generation up, then drains and deletes the old one: CI always has
// runners for the old labels until the new ones exist.
import * as garm from "pulumi-garm";
import { type ExampleConfig, type ExampleProgram, drainOptions } from "../config";

export interface LabelChangeConfig extends ExampleConfig {
  /** The scale set's labels; run once, change them, run again. */
  readonly labels: readonly string[];
}

export function program(cfg: LabelChangeConfig): ExampleProgram {
  return async () => {
    const provider = new garm.GarmProvider("fake", {
      name: "fake",
      executable: cfg.providerExecutable,
      garmConfigPath: cfg.garmConfigPath,
      restartCommand: cfg.restartCommand,
    });
    const gpu = new garm.GarmScaleSet("gpu", {
      name: "ci-gpu",
      repository: `${cfg.organization ?? "acme"}/app`,
      providerName: provider.name,
      image: "ubuntu-24.04",
      flavor: "gpu",
      labels: [...cfg.labels],
      maxRunners: 2,
      minIdleRunners: 1,
      drain: drainOptions(cfg),
    });
    return { liveName: gpu.liveName, scaleSetId: gpu.scaleSetId, labels: gpu.labels };
  };
}
