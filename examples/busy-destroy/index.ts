// Destroy never cancels a running job: a scale set whose runner is busy is disabled and left draining; when the drain
// timeout passes the delete fails naming the busy runner, Pulumi keeps the resource, and the next destroy (after the
// job is done) finishes the job.
import * as garm from "pulumi-garm";
import { type ExampleConfig, type ExampleProgram } from "../config";

export function program(cfg: ExampleConfig): ExampleProgram {
  return async () => {
    const provider = new garm.GarmProvider("fake", {
      name: "fake",
      executable: cfg.providerExecutable,
      garmConfigPath: cfg.garmConfigPath,
      restartCommand: cfg.restartCommand,
    });
    const builds = new garm.GarmScaleSet("builds", {
      name: "ci-builds",
      organization: cfg.organization ?? "acme",
      providerName: provider.name,
      image: "ubuntu-24.04",
      flavor: "large",
      labels: ["linux", "x64", "builds"],
      maxRunners: 2,
      minIdleRunners: 1,
      // A short drain so the example shows the failure quickly; a real stack keeps the 10-minute default or more.
      drain: { timeoutSeconds: cfg.drain?.timeoutSeconds ?? 5, pollSeconds: cfg.drain?.pollSeconds ?? 1 },
    });
    return { liveName: builds.liveName, scaleSetId: builds.scaleSetId };
  };
}
