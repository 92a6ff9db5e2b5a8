// Through Pulumi's engine: the provider process opens one events socket for all its drains, and events are the default.
import { strict as assert } from "node:assert";
import { startFixture, type Fixture } from "../scaleset/fixture";
import { sleep } from "./harness";

describe("events socket through the engine", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("three drains in one destroy share one events socket, and each ends on its job's events", async () => {
    fx = await startFixture();
    const slow = { drain: { timeoutSeconds: 60, pollSeconds: 30 } };
    await fx.engine.up(["a", "b", "c"].map((n) => fx.scaleSet(n, { ...slow, name: `ci-${n}` })));
    const runners = fx.sim.scaleSets().map((ss) => {
      const r = fx.sim.addRunner(ss.id, { name: `garm-busy-${ss.id}` });
      fx.sim.startJob(r);
      return r;
    });
    const destroying = fx.engine.destroy();
    await sleep(2500);
    const completed = Date.now();
    for (const r of runners) fx.sim.completeJob(r);
    const result = await destroying;
    assert.ok(result.ok, JSON.stringify(result.errors));
    assert.ok(Date.now() - completed < 5000, `destroy took ${Date.now() - completed} ms after the jobs completed, with a 30 s poll interval`);
    assert.equal(fx.sim.eventsSocket.upgrades, 1, "one events socket per provider process");
    assert.deepEqual(fx.sim.scaleSets(), []);
  });
});
