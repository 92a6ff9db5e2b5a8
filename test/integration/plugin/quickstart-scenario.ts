// The quick start, in whatever language the project is written: preview, up, a label change (replace, new generation
// first), a no-change preview and destroy, with GARM's state checked after each step.
import { strict as assert } from "node:assert";
import { liveName } from "../../../provider/runners/naming";
import { INITIAL_GARM_CONFIG, type SimulatedHost, waitFor } from "../../../scripts/demo/host";
import type { Simulator } from "../../../simulator";
import type { PluginProject } from "./plugin-project";

export const writes = (sim: Simulator) => sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));

export interface QuickstartLanguage {
  /** Project name in Pulumi.yaml (recorded as the GarmProvider block's owner). */
  readonly project: string;
  /** Sets the stack config for the labels [linux, x64] (after the host's config is set). */
  baseLabels(p: PluginProject): Promise<void>;
  /** Adds the label "large". */
  addLabel(p: PluginProject): Promise<void>;
}

export async function runQuickstart(p: PluginProject, host: SimulatedHost, lang: QuickstartLanguage): Promise<void> {
  await p.initStack("dev", host.stackConfig);
  await lang.baseLabels(p);

  host.sim.clearRequests();
  const preview = await p.preview();
  assert.deepEqual(preview.changeSummary, { create: 3 }, "the stack, GarmProvider fake and GarmScaleSet small");
  assert.deepEqual(writes(host.sim), [], "preview changes nothing in GARM");

  await p.cli(["up", "--yes"]);
  const first = await p.outputs();
  const expected = liveName("ci-small", ["linux", "x64"], "fake", "hashed");
  assert.equal(first.liveName, expected);
  assert.deepEqual(host.sim.scaleSets().map((s) => [s.id, s.name, s.maxRunners, s.minIdleRunners]), [[first.scaleSetId, expected, 2, 1]]);
  assert.ok(host.sim.providers().some((pr) => pr.name === "fake"), "GarmProvider fake's block was loaded by GARM");
  assert.ok(host.garmConfig().includes(`"${lang.project}"`), "the block names this project as its owner");

  await lang.addLabel(p);
  const relabel = await p.preview(["--diff"]);
  const step = relabel.steps.find((s) => s.urn.endsWith("::small"));
  assert.equal(step?.op, "replace");
  assert.deepEqual(step?.replaceReasons, ["labels"], "preview --diff names the field that forces the replacement");

  host.sim.clearRequests();
  await p.cli(["up", "--yes"]);
  const second = await p.outputs();
  assert.equal(second.liveName, liveName("ci-small", ["linux", "x64", "large"], "fake", "hashed"));
  assert.deepEqual(host.sim.scaleSets().map((s) => s.name), [second.liveName], "the old generation is gone");
  const log = host.sim.requests();
  const created = log.findIndex((r) => r.method === "POST" && r.path.endsWith("/scalesets"));
  const disabled = log.findIndex((r) => r.method === "PUT" && r.path.endsWith(`/scalesets/${first.scaleSetId}`));
  assert.ok(created >= 0 && disabled > created, "the new generation is created before the old one is disabled");

  host.sim.clearRequests();
  const still = await p.preview();
  assert.deepEqual(still.changeSummary, { same: 3 });
  assert.deepEqual(writes(host.sim), []);

  await p.cli(["destroy", "--yes"]);
  assert.deepEqual(host.sim.scaleSets(), []);
  await waitFor("GARM to drop provider fake", () => (host.sim.providers().length === 0 ? true : undefined));
  assert.equal(host.garmConfig(), INITIAL_GARM_CONFIG, "the operator's GARM config is back byte for byte");
}
