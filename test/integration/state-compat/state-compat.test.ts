// State written by an earlier build (main at 7196b41, fixtures/main-7196b41-*) previews with no change and destroys with
// this build, through both front doors: the dynamic provider's checkpoint names its kinds by the keys of
// `pulumi-garm/provider` in each resource's serialized `__provider`, and the plugin's state names the tokens that build
// served (`garm:index:ScaleSet` among them, now an alias of `garm:index:GarmScaleSet`). record.ts wrote the fixtures: the
// checkpoint, and the simulator's database and GARM config file behind it, loaded here into a fresh simulator.
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { KINDS } from "../../../provider/registry/kinds";
import { type ResourceDecl } from "../../../harness/engine";
import { type PluginProcess, settingsOf, startPlugin } from "../../../harness/plugin-process";
import { type Simulator, startSimulator } from "../../../simulator";
import { forwardingProvider } from "../../../sdk/nodejs/shim";
import { type Fixture, startFixture } from "../garm-provider/engine-fixture";
import { mutatingCalls } from "../../support/fixtures";

type Props = Record<string, unknown>;
const FIXTURES = join(__dirname, "..", "..", "..", "..", "test", "integration", "state-compat", "fixtures");
const fixture = (name: string) => readFileSync(join(FIXTURES, `main-7196b41-${name}.json`), "utf8");

/** Puts a recorded database and GitHub side into the simulator, as record.ts read them (a test-only reach into its store). */
function loadDatabase(sim: Simulator, recorded: unknown): void {
  const { image, githubScaleSets } = recorded as { image: unknown; githubScaleSets: [number, unknown][] };
  const store = (sim as unknown as { store: { restore(image: unknown): void; github: { scaleSets: Map<number, unknown> } } }).store;
  store.restore(image);
  for (const [id, scaleSet] of githubScaleSets) store.github.scaleSets.set(id, scaleSet);
}

/** The recorded text with the recording machine's temp directory, simulator and restart service replaced by this run's. */
function relocated(text: string, from: Record<string, string>, to: Record<string, string>): string {
  return Object.keys(from).reduce((t, key) => t.split(from[key]).join(to[key]), text);
}

describe("state written by main at 7196b41", function () {
  this.timeout(120_000);

  describe("through the dynamic provider", () => {
    let fx: Fixture;
    afterEach(async () => fx?.close());

    it("previews with no change and destroys every kind", async () => {
      fx = await startFixture();
      const machine = (JSON.parse(fixture("dynamic-garm")) as { machine: Record<string, string> }).machine;
      const from = { dir: machine.dir, simulatorUrl: machine.simulatorUrl, serviceRestart: machine.serviceRestart };
      const here = { dir: fx.dir, simulatorUrl: fx.sim.url, serviceRestart: fx.serviceRestart };
      const recorded = JSON.parse(relocated(fixture("dynamic-garm"), from, here)) as {
        program: (Omit<ResourceDecl, "provider"> & { type: string })[];
        garmConfig: string;
        database: unknown;
      };
      writeFileSync(fx.file, recorded.garmConfig);
      await fx.sim.restart();
      loadDatabase(fx.sim, recorded.database);
      const checkpoint = join(fx.dir, "checkpoint.json");
      writeFileSync(checkpoint, relocated(fixture("dynamic-checkpoint"), from, here));
      fx.engine.loadState(checkpoint);
      const old = fx.engine.state().resources;
      assert.deepEqual(old.map((r) => r.type).sort(), recorded.program.map((d) => `pulumi-nodejs:dynamic/garm:${d.type}`).sort());
      assert.ok(old.every((r) => /require\("pulumi-garm\/provider"\)\[kind\]/.test(String(r.outputs.__provider))), "the old state forwards by kind key");

      // The same program, declared with this build's SDK provider objects, chosen by the registry's class names.
      const program = recorded.program.map((d) => {
        const row = KINDS.find((k) => k.sdkClass === d.type);
        assert.ok(row, `no kind for ${d.type}`);
        return { ...d, provider: forwardingProvider(row.key) } as ResourceDecl;
      });
      fx.sim.clearRequests();
      const preview = await fx.engine.preview(program);
      assert.ok(preview.ok, JSON.stringify({ errors: preview.errors, failures: preview.checkFailures }));
      assert.deepEqual(preview.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}`), []);
      assert.deepEqual(Object.entries(preview.diffs).filter(([, d]) => d.changes === "some").map(([n]) => n), []);
      assert.deepEqual(mutatingCalls(fx.sim), [], "preview asks GARM for no change");

      const destroy = await fx.engine.destroy();
      assert.ok(destroy.ok, JSON.stringify(destroy.errors));
      assert.deepEqual(destroy.deleted.sort(), recorded.program.map((d) => d.name).sort());
      assert.deepEqual(fx.sim.scaleSets(), []);
      assert.deepEqual(fx.sim.pools(), []);
      assert.doesNotMatch(readFileSync(fx.file, "utf8"), /BEGIN pulumi-garm provider/);
    });
  });

  describe("through the plugin", () => {
    let sim: Simulator | undefined;
    let plugin: PluginProcess | undefined;
    afterEach(async () => {
      await plugin?.stop();
      await sim?.stop();
    });

    it("diffs as no change under the tokens it names and deletes each resource", async () => {
      const recorded = JSON.parse(fixture("plugin-state")) as { resources: { token: string; name: string; id: string; inputs: Props; outputs: Props }[]; database: unknown };
      assert.ok(recorded.resources.some((r) => r.token === "garm:index:ScaleSet"), "the fixture holds the earlier scale-set token");
      sim = await startSimulator({ tickMs: 25, consolidationMs: 300 });
      loadDatabase(sim, recorded.database);
      plugin = await startPlugin();
      await plugin.configure(settingsOf(sim));
      sim.clearRequests();
      for (const r of recorded.resources) {
        const checked: { inputs: Props; failures: string[] } = await plugin.check(r.token, r.name, r.inputs, r.inputs);
        assert.deepEqual(checked.failures, [], `${r.token} ${r.name}`);
        const diff: proto.DiffResponse = await plugin.diff(r.token, r.name, r.id, r.outputs, checked.inputs, r.inputs);
        assert.equal(diff.getChanges(), proto.DiffResponse.DiffChanges.DIFF_NONE, `${r.token} ${r.name}: ${diff.getDiffsList().join(", ")}`);
      }
      assert.deepEqual(mutatingCalls(sim), [], "preview asks GARM for no change");
      for (const r of [...recorded.resources].reverse()) await plugin.delete(r.token, r.name, r.id, r.outputs);
      assert.deepEqual(sim.scaleSets(), []);
      assert.deepEqual(sim.pools(), []);
    });
  });
});
