// Through Pulumi's engine: the provider process opens one events socket for all its drains, and events are the default.
import { strict as assert } from "node:assert";
import { startFixture, type Fixture } from "../scaleset/fixture";
import { until } from "./harness";

describe("events socket through the engine", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("three drains in one destroy share one events socket, and each ends on its job's events", async () => {
    fx = await startFixture();
    const slow = { drain: { timeoutSeconds: 60, pollSeconds: 30 } };
    await fx.engine.up(["a", "b", "c"].map((n) => fx.scaleSet(n, { ...slow, name: `ci-${n}` })));
    const ids = fx.sim.scaleSets().map((ss) => ss.id);
    const runners = fx.sim.scaleSets().map((ss) => {
      const r = fx.sim.addRunner(ss.id, { name: `garm-busy-${ss.id}` });
      fx.sim.startJob(r);
      return r;
    });
    const destroying = fx.engine.destroy();
    // The jobs end only once every drain's first pass has seen its runner busy (its disable, then its instances read),
    // so each drain has to wait; a fixed sleep let a slow engine start its passes after the jobs ended, on a loaded machine.
    const firstPassSeen = (id: number) => {
      const log = fx.sim.requests();
      const disabled = log.findIndex((r) => r.method === "PUT" && r.path === `/api/v1/scalesets/${id}`);
      return disabled >= 0 && log.slice(disabled).some((r) => r.method === "GET" && r.path === `/api/v1/scalesets/${id}/instances`);
    };
    await until(() => ids.every(firstPassSeen), 30_000);
    const completed = Date.now();
    for (const r of runners) fx.sim.completeJob(r);
    const result = await destroying;
    assert.ok(result.ok, JSON.stringify(result.errors));
    assert.ok(Date.now() - completed < 5000, `destroy took ${Date.now() - completed} ms after the jobs completed, with a 30 s poll interval`);
    assert.equal(fx.sim.eventsSocket.upgrades, 1, "one events socket per provider process");
    assert.deepEqual(fx.sim.scaleSets(), []);
  });
});
