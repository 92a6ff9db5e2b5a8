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

  it("prints nothing of its own for an empty scale set's delete, and closes a drain with one line once the scale set is gone", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("empty", { name: "empty" }), fx.scaleSet("drained", { name: "drained", drain: { timeoutSeconds: 10, pollSeconds: 1 } })]);
    const drained = fx.sim.scaleSets().find((s) => s.name.startsWith("drained"))!;
    const busy = fx.sim.addRunner(drained.id, { name: "garm-busy" });
    fx.sim.startJob(busy);
    const logsBefore = fx.engine.logs.length;

    const destroying = fx.engine.destroy();
    setTimeout(() => fx.sim.completeJob(busy), 1500);
    const destroy = await destroying;
    assert.ok(destroy.ok, String(destroy.errors.small));
    assert.deepEqual(fx.sim.scaleSets(), []);
    const lines = fx.engine.logs.slice(logsBefore);
    // Pulumi's own rows report both deletes; the drained one's lines end with its own.
    assert.ok(!lines.some((l) => /GarmScaleSet empty-/.test(l)), lines.join("\n"));
    const mine = lines.filter((l) => l.includes(`GarmScaleSet ${drained.name} (id ${drained.id}): `));
    assert.match(mine.at(-1) ?? "", /: drained and deleted from GARM$/, mine.join("\n"));
    assert.equal(mine.filter((l) => /deleted from GARM/.test(l)).length, 1, mine.join("\n"));
  });
});
