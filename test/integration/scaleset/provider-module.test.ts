// A stack written with the forwarding object serialized by value (before the provider module of sdk/nodejs/dynamic/) meets a
// program that hands over the module: only `__provider` differs, so the scale set is unchanged, GARM is not called to
// change anything, and destroy works with either text.
import { strict as assert } from "node:assert";
import * as dynamicScaleSet from "../../../sdk/nodejs/dynamic/scaleset";
import { type Fixture, mutatingCalls, startFixture } from "./fixture";

describe("GarmScaleSet: the provider module in place of the serialized forwarding object", function () {
  this.timeout(120_000);
  let fx: Fixture;
  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it("an up after the change of provider text plans nothing and changes nothing in GARM; destroy deletes the scale set", async () => {
    const before = fx.scaleSet("small");
    const up1 = await fx.engine.up([before]);
    assert.ok(up1.ok, JSON.stringify(up1.errors));
    const [set] = fx.sim.scaleSets();
    fx.sim.clearRequests();

    const after = { ...before, provider: dynamicScaleSet };
    const preview = await fx.engine.preview([after]);
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    const up2 = await fx.engine.up([after]);
    assert.ok(up2.ok, JSON.stringify(up2.errors));
    assert.deepEqual(up2.same, ["small"]);
    assert.deepEqual([...up2.created, ...up2.updated, ...up2.replaced], []);
    assert.deepEqual(mutatingCalls(fx.sim), []);
    assert.deepEqual(fx.sim.scaleSets().map((s) => s.id), [set.id]);

    const destroyed = await fx.engine.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
    assert.deepEqual(fx.sim.scaleSets(), []);
  });
});
