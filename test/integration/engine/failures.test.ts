// Engine harness: check failures, stop-on-error vs continue-on-error, and init errors (pulumi-behaviour.md
// §1.2, pulumi-behaviour.md §2.3, pulumi-behaviour.md §2.8).
import { strict as assert } from "node:assert";
import { ref } from "../../../harness/engine";
import { widgetFixture, type WidgetFixture } from "../../../harness/engine/widgets/fixture";

describe("engine harness: failures", function () {
  let fx: WidgetFixture;
  beforeEach(async () => {
    fx = await widgetFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it("check failures are reported per resource; dependents are skipped; the run fails", async () => {
    const e = fx.engine();
    const r = await e.up([fx.widget("bad", { size: "big" }), fx.widget("dep", { size: 1, link: ref("bad", "serial") }), fx.widget("ok", { size: 1 })]);
    assert.equal(r.ok, false);
    assert.deepEqual(r.checkFailures, { bad: [{ property: "size", reason: "must be a number" }] });
    assert.equal(r.steps.find((s) => s.name === "dep")!.skipped, true);
    assert.ok(!e.steps.some((s) => s.op === "create" && s.name === "bad"));
    // "ok" was independent and started concurrently, so it completed (in-flight steps finish).
    assert.deepEqual(r.created, ["ok"]);
    const p = await e.preview([fx.widget("bad", { size: "big" })]);
    assert.equal(p.ok, false);
    assert.deepEqual(p.checkFailures.bad, [{ property: "size", reason: "must be a number" }]);
  });

  it("a provider process killed before Configure fails the operation, as the CLI reports a crashed plugin, instead of throwing", async () => {
    const e = fx.engine({ onLaunch: (pid) => process.kill(pid, "SIGKILL") });
    const r = await e.up([fx.widget("x", { size: 1 })]);
    assert.equal(r.ok, false);
    assert.deepEqual(r.created, []);
    assert.match(Object.values(r.errors).join("\n"), /provider process/);
  });

  it("stops starting new steps after an error by default; continueOnError keeps independent ones going", async () => {
    const program = [fx.widget("x", { size: 1 }), fx.widget("y", { size: 1 })];
    fx.store.failCreates.set("x", 2);
    const stop = await fx.engine({ parallel: 1 }).up(program);
    assert.equal(stop.ok, false);
    assert.match(stop.errors.x, /HTTP 500/);
    assert.equal(stop.steps.find((s) => s.name === "y")!.skipped, true);

    const cont = fx.engine({ parallel: 1, continueOnError: true });
    const r = await cont.up(program);
    assert.equal(r.ok, false);
    assert.deepEqual(r.created, ["y"]);
    assert.deepEqual(cont.state().resources.map((s) => s.name), ["y"], "a plain create failure records nothing (pulumi-behaviour.md §2.8)");
  });

  it("a Create failing with ErrorResourceInitFailed is saved with init errors; the next up updates it", async () => {
    const e = fx.engine();
    const r = await e.up([fx.widget("a", { size: 1, initFail: true })]);
    assert.equal(r.ok, false);
    assert.deepEqual(r.steps[0].initErrors, ["unhealthy"]);
    const [st] = e.state().resources;
    assert.equal(st.id, "1");
    assert.deepEqual(st.initErrors, ["unhealthy"]);
    assert.equal(typeof st.outputs.__provider, "string");
    // Unchanged inputs but init errors: an (empty) update continues initialization.
    const r2 = await e.up([fx.widget("a", { size: 1, initFail: true })]);
    assert.deepEqual(r2.updated, ["a"]);
    assert.equal(e.state().resources[0].initErrors, undefined);
  });
});
