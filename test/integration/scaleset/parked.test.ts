// A scale set parked at max_runners 0 (disabled, 0 runners), as teams park them in GARM (issue 34 item 1): it imports
// and previews with no change, raising it is a plain update rather than the recovery from a stopped delete, and a
// program may create one at 0 although GARM's create refuses 0 (garm-behaviour.md §4.1, §4.4).
import { strict as assert } from "node:assert";
import { importScaleSet } from "../../../provider/kinds/scaleset/import";
import { checkScaleSetInputs } from "../../../provider/kinds/scaleset/check";
import { IMPORT_INPUT } from "../../../provider/registry/kinds";
import { type Fixture, mutatingCalls, startFixture } from "./fixture";

describe("GarmScaleSet parked at maxRunners 0", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  /** A scale set made and parked with GARM's own API, as garm-cli does. */
  async function parkedInGarm(): Promise<number> {
    const garm = fx.garm();
    const created = await garm.createScaleSet(
      { kind: "organization", id: fx.sim.organizationId },
      { name: "parked-ci", provider_name: "fake", image: "ubuntu-24.04", flavor: "small", max_runners: 2, labels: ["linux", "parked"], os_type: "linux", os_arch: "amd64", enabled: true } as never,
    );
    await garm.updateScaleSet(created.id, { enabled: false, max_runners: 0, min_idle_runners: 0 });
    return created.id;
  }

  it("imports with the import option, previews with no change, and raising it to 1 is a plain update", async () => {
    fx = await startFixture();
    const id = await parkedInGarm();
    const imported = await importScaleSet(fx.garm(), String(id));
    assert.equal(imported.inputs.maxRunners, 0);
    // What `pulumi import` and import-plan's programs are checked against.
    assert.deepEqual(checkScaleSetInputs(imported.inputs).failures, []);

    const program = (extra: Record<string, unknown> = {}) => [
      { ...fx.scaleSet("parked", {}), inputs: { ...imported.inputs, ...extra } },
    ];
    fx.sim.clearRequests();
    const up = await fx.engine.up(program({ [IMPORT_INPUT]: String(id) }));
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.deepEqual(mutatingCalls(fx.sim), [], "the import writes nothing to GARM");

    const preview = await fx.engine.preview(program());
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    assert.equal(preview.diffs.parked?.changes, "none", JSON.stringify(preview.diffs));

    fx.engine.logs.length = 0;
    const raised = await fx.engine.up(program({ maxRunners: 1 }));
    assert.ok(raised.ok, JSON.stringify(raised.errors));
    const logs = fx.engine.logs.join("\n");
    assert.doesNotMatch(logs, /stopped part-way/, "a parked scale set is not taken for a stopped delete");
    assert.match(logs, /will update maxRunners 0 → 1/);
    const [record] = fx.sim.scaleSets();
    assert.equal(record.maxRunners, 1);
    assert.equal(record.enabled, false, "only what the program changed was sent");
  });

  it("a create at maxRunners 0 is made disabled at 1 and then set to 0, and preview says so", async () => {
    fx = await startFixture();
    const program = [fx.scaleSet("parked", { maxRunners: 0, minIdleRunners: 0, enabled: false })];
    const preview = await fx.engine.preview(program);
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    assert.ok(preview.logs.some((l) => /refuses max_runners 0 on create.*disabled at maxRunners 1.*then sets maxRunners 0/.test(l)), preview.logs.join("\n"));
    fx.sim.clearRequests();
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [record] = fx.sim.scaleSets();
    assert.equal(record.maxRunners, 0);
    assert.equal(record.enabled, false);
    const calls = mutatingCalls(fx.sim).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(calls, [`POST /api/v1/organizations/${fx.sim.organizationId}/scalesets`, `PUT /api/v1/scalesets/${record.id}`]);
    assert.equal(fx.engine.state().resources.find((r) => r.name === "parked")?.outputs.maxRunners, 0);
    fx.sim.clearRequests();
    const again = await fx.engine.up(program);
    assert.deepEqual(again.same, ["parked"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });
});
