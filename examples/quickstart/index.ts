// Quick start: one GARM provider entry and one scale set under an organization, keeping one idle runner ready.
import * as garm from "pulumi-garm";
import { type ExampleConfig, type ExampleProgram, drainOptions } from "../config";

export function program(cfg: ExampleConfig): ExampleProgram {
  return async () => {
    // GARM loads providers from its config file only at start, so this resource edits the file and restarts GARM.
    const provider = new garm.GarmProvider("fake", {
      name: "fake",
      description: "fake runners (pulumi-garm quick start)",
      executable: cfg.providerExecutable,
      garmConfigPath: cfg.garmConfigPath,
      restartCommand: cfg.restartCommand,
      restartTimeoutSeconds: 30,
    });

    const small = new garm.GarmScaleSet("small", {
      name: "ci-small",
      organization: cfg.organization ?? "acme",
      // An output of the provider resource: Pulumi creates the provider first and deletes the scale set first.
      providerName: provider.name,
      image: "ubuntu-24.04",
      flavor: "small",
      labels: ["linux", "x64", ...(cfg.extraLabels ?? [])],
      maxRunners: 2,
      minIdleRunners: 1,
      drain: drainOptions(cfg),
    });

    return { providerName: provider.name, liveName: small.liveName, scaleSetId: small.scaleSetId, labels: small.labels };
  };
}
