// What a destroy prints while it drains, through the engine harness against the GARM simulator (issue 13, items 2 and 7).
import { strict as assert } from "node:assert";
import { type Fixture, startFixture } from "./fixture";

describe("GarmScaleSet drain messages against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("names a runner being created as being created, and a busy runner's job by GARM's numeric job id (§3.3, §7.3)", async () => {
    // No worker ticks: the pending_create runner stays as it is for the whole drain.
    fx = await startFixture({ tickMs: 0 });
    await fx.engine.up([fx.scaleSet("small", { drain: { timeoutSeconds: 2, pollSeconds: 1 } })]);
    const [ss] = fx.sim.scaleSets();
    const busy = fx.sim.addRunner(ss.id, { name: "garm-busy" });
    fx.sim.startJob(busy);
    fx.sim.addRunner(ss.id, { name: "garm-new", status: "pending_create" });
    const [job] = fx.sim.jobs();

    const destroy = await fx.engine.destroy();
    assert.equal(destroy.ok, false, "the busy runner keeps the scale set");
    const message = String(destroy.errors.small);
    assert.ok(message.includes(`garm-busy: job "${job.name}" (id ${job.id}) in_progress`), message);
    assert.ok(message.includes("garm-new (being created: GARM is creating it, status pending_create"), message);
    assert.doesNotMatch(message, /tearing down|job-\d/);

    const drain = fx.engine.logs.filter((l) => l.includes("draining:"));
    assert.ok(drain.length > 0, fx.engine.logs.join("\n"));
    assert.ok(drain[0].includes(`1 busy [garm-busy: job "${job.name}" (id ${job.id}) in_progress for `), drain[0]);
    assert.ok(drain[0].includes("1 being created [garm-new pending_create]"), drain[0]);
    assert.ok(!drain.some((l) => /tearing down/.test(l)), drain.join("\n"));
  });
});
