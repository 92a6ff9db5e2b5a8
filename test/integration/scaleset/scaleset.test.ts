// GarmScaleSet scenarios through the engine harness against the GARM simulator (issue: GarmScaleSet).
import { strict as assert } from "node:assert";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Fixture, apiCalls, mutatingCalls, sleep, startFixture } from "./fixture";
import { isVersionRead } from "../../../harness/garm-calls";

describe("GarmScaleSet against the GARM simulator", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("1. creates, refreshes, and an unchanged up makes no mutating GARM call", async () => {
    fx = await startFixture();
    const program = [fx.scaleSet("small")];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [record] = fx.sim.scaleSets();
    assert.match(record.name, /^ci-small-[0-9a-f]{8}$/);
    assert.equal(record.enabled, true);
    const state = fx.engine.state().resources.find((r) => r.name === "small");
    assert.equal(state?.id, String(record.id));
    assert.equal(state?.outputs.liveName, record.name);
    assert.deepEqual(state?.outputs.labels, ["linux", "x64"]);

    const refresh = await fx.engine.refresh();
    assert.ok(refresh.ok, JSON.stringify(refresh.errors));
    fx.sim.clearRequests();
    const again = await fx.engine.up(program);
    assert.ok(again.ok);
    assert.deepEqual(again.same, ["small"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("2. a label change previews as a replacement and brings the new generation up before retiring the old", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small")]);
    const [old] = fx.sim.scaleSets();
    const changed = [fx.scaleSet("small", { labels: ["linux", "x64", "gpu"] })];

    const preview = await fx.engine.preview(changed);
    assert.deepEqual(preview.diffs.small?.replaces, ["labels"]);
    assert.equal(preview.diffs.small?.deleteBeforeReplace, false);

    fx.sim.clearRequests();
    const up = await fx.engine.up(changed);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const calls = mutatingCalls(fx.sim).map((r) => `${r.method} ${r.path}`);
    const createdAt = calls.findIndex((c) => c.startsWith("POST /api/v1/organizations/"));
    const disabledAt = calls.indexOf(`PUT /api/v1/scalesets/${old.id}`);
    assert.ok(createdAt >= 0 && disabledAt > createdAt, calls.join("\n"));
    const now = fx.sim.scaleSets();
    assert.equal(now.length, 1);
    assert.notEqual(now[0].id, old.id);
    assert.notEqual(now[0].name, old.name);
  });

  it("3. destroy leaves a busy runner alone, fails naming it and its job, and succeeds once the job completes", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small", { drain: { timeoutSeconds: 3, pollSeconds: 1 } })]);
    const [ss] = fx.sim.scaleSets();
    const busy = fx.sim.addRunner(ss.id, { name: "garm-busy" });
    const idle1 = fx.sim.addRunner(ss.id, { name: "garm-idle1" });
    const idle2 = fx.sim.addRunner(ss.id, { name: "garm-idle2" });
    fx.sim.startJob(busy);

    const first = await fx.engine.destroy();
    assert.equal(first.ok, false);
    const message = String(first.errors.small);
    assert.match(message, /garm-busy: job .*in_progress/);
    assert.match(message, /the next `pulumi destroy` retries the delete/);
    const names = fx.sim.instances().map((i) => i.name);
    assert.ok(!names.includes(idle1) && !names.includes(idle2), `idle runners still there: ${names}`);
    const busyNow = fx.sim.instances().find((i) => i.name === busy);
    assert.equal(busyNow?.status, "running");
    assert.equal(busyNow?.runnerStatus, "active");
    assert.ok(!fx.sim.requests().some((r) => r.method === "DELETE" && r.path.endsWith(`/instances/${busy}`)), "busy runner was touched");
    assert.ok(fx.engine.logs.some((l) => /draining: 1 busy \[garm-busy/.test(l)), "a progress line names the busy runner");

    fx.sim.completeJob(busy);
    const second = await fx.engine.destroy();
    assert.ok(second.ok, JSON.stringify(second.errors));
    assert.deepEqual(fx.sim.scaleSets(), []);
    assert.deepEqual(fx.sim.instances(), []);
  });

  it("3b. PULUMI_GARM_DRAIN_TIMEOUT_SECONDS lengthens one destroy's drain beyond the stored drain.timeoutSeconds", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small", { drain: { timeoutSeconds: 1, pollSeconds: 1 } })]);
    const [ss] = fx.sim.scaleSets();
    const busy = fx.sim.addRunner(ss.id, { name: "garm-busy" });
    fx.sim.startJob(busy);
    // The job ends after the stored 1 s but well within the 30 s this run asks for.
    const completes = setTimeout(() => fx!.sim.completeJob(busy), 2500);
    process.env.PULUMI_GARM_DRAIN_TIMEOUT_SECONDS = "30";
    try {
      const destroyed = await fx.engine.destroy();
      assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
    } finally {
      delete process.env.PULUMI_GARM_DRAIN_TIMEOUT_SECONDS;
      clearTimeout(completes);
    }
    assert.deepEqual(fx.sim.scaleSets(), []);
  });

  it("4. force-removes a runner stuck in pending_delete with a provider fault, and only that one (§6.1, §6.2)", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small")]);
    const [ss] = fx.sim.scaleSets();
    const stuck = fx.sim.addRunner(ss.id, { name: "garm-stuck", status: "pending_delete", providerFault: "injected delete failure" });
    fx.sim.setTeardownFails(stuck, true);
    const tearing = fx.sim.addRunner(ss.id, { name: "garm-tearing", status: "pending_delete" });

    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    const forced = fx.sim.requests().filter((r) => r.method === "DELETE" && r.query.includes("forceRemove=true"));
    assert.ok(forced.some((r) => r.path.endsWith(`/instances/${stuck}`)));
    assert.ok(!forced.some((r) => r.path.endsWith(`/instances/${tearing}`)));
    assert.deepEqual(fx.sim.scaleSets(), []);
  });

  it("5. retries an idle runner's delete with bypassGHUnauthorized on GitHub's 401, warns, and never bypasses a busy one", async () => {
    // No worker ticks: GARM's own scale-down would otherwise remove the idle runner before the drain gets to it (§7.6).
    fx = await startFixture({ tickMs: 0 });
    await fx.engine.up([fx.scaleSet("small", { drain: { timeoutSeconds: 3, pollSeconds: 1 } })]);
    const [ss] = fx.sim.scaleSets();
    const busy = fx.sim.addRunner(ss.id, { name: "garm-busy" });
    const idle = fx.sim.addRunner(ss.id, { name: "garm-idle" });
    fx.sim.startJob(busy);
    fx.sim.failNextGitHub("runner-delete", 401, 100);

    const destroy = await fx.engine.destroy();
    assert.equal(destroy.ok, false, "the busy runner keeps the scale set");
    const bypassed = fx.sim.requests().filter((r) => r.method === "DELETE" && r.query.includes("bypassGHUnauthorized=true"));
    assert.ok(bypassed.some((r) => r.path.endsWith(`/instances/${idle}`)), "idle runner retried with the bypass");
    assert.ok(!fx.sim.requests().some((r) => r.method === "DELETE" && r.path.endsWith(`/instances/${busy}`)));
    assert.ok(fx.engine.logs.some((l) => /may stay registered in GitHub/.test(l)), "a warning says the runner may stay in GitHub");
  });

  it("6. a job record older than the staleness bound does not hold its runner", async () => {
    // GARM misses JobCompleted while a scale set is disabled (no listener, §7.5), so its job record stays in_progress
    // and runner_status stays active; a long consolidation period keeps GARM from cleaning up on its own.
    fx = await startFixture({ consolidationMs: 600_000 });
    const drain = { timeoutSeconds: 10, pollSeconds: 1, jobStaleAfterHours: 120 };
    await fx.engine.up([fx.scaleSet("small", { drain })]);
    const [ss] = fx.sim.scaleSets();
    const runner = fx.sim.addRunner(ss.id, { name: "garm-old" });
    fx.sim.startJob(runner, { ageMs: 6 * 24 * 3600_000 });
    await fx.engine.up([fx.scaleSet("small", { drain, enabled: false })]);
    fx.sim.completeJob(runner);
    const held = fx.sim.instances().find((i) => i.name === runner);
    assert.equal(held?.runnerStatus, "active", "GARM still believes the runner is busy");
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(fx.sim.scaleSets(), []);
  });

  it("7. GARM's inverted delete (200 while keeping the scale set) fails with the explanation; it succeeds once the fault clears (§5)", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small")]);
    fx.sim.failNextGitHub("scaleset-delete", 500);
    const first = await fx.engine.destroy();
    assert.equal(first.ok, false);
    assert.match(String(first.errors.small), /answered the delete with success but still has the scale set/);
    assert.equal(fx.sim.scaleSets().length, 1);
    const second = await fx.engine.destroy();
    assert.ok(second.ok, JSON.stringify(second.errors));
    assert.deepEqual(fx.sim.scaleSets(), []);
  });

  it("8. resumes and completes a drain when GARM drops connections in the middle of it", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small", { drain: { timeoutSeconds: 40, pollSeconds: 1 } })]);
    const [ss] = fx.sim.scaleSets();
    const busy = fx.sim.addRunner(ss.id, { name: "garm-busy" });
    fx.sim.startJob(busy);
    const destroying = fx.engine.destroy();
    await sleep(2500);
    fx.sim.stopServing("drop");
    await sleep(3000);
    await fx.sim.resumeServing();
    fx.sim.completeJob(busy);
    const destroy = await destroying;
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(fx.sim.scaleSets(), []);
    assert.ok(fx.sim.requests().some((r) => r.status === 0), "some requests were dropped");
  });

  it("9. a create whose answer is lost does not make a duplicate", async () => {
    fx = await startFixture();
    fx.sim.loseNextResponse("POST", /\/scalesets$/);
    const up = await fx.engine.up([fx.scaleSet("small")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(fx.sim.scaleSets().length, 1);
    assert.equal(fx.engine.state().resources.find((r) => r.name === "small")?.id, String(fx.sim.scaleSets()[0].id));
  });

  it("10. rejects invalid inputs at check, and a provider GARM lacks before any create", async () => {
    fx = await startFixture();
    const preview = await fx.engine.preview([fx.scaleSet("small", { maxRunners: 2, minIdleRunners: 5, labels: ["linux", "Linux"] })]);
    const failures = preview.checkFailures.small ?? [];
    assert.ok(failures.some((f) => f.property === "minIdleRunners" && /at most maxRunners/.test(f.reason)), JSON.stringify(failures));
    assert.ok(failures.some((f) => f.property === "labels"), JSON.stringify(failures));

    fx.sim.clearRequests();
    const up = await fx.engine.up([fx.scaleSet("small", { providerName: "openstack" })]);
    assert.equal(up.ok, false);
    assert.match(String(up.errors.small), /providerName "openstack" is not a provider GARM has loaded \(it has: fake\)/);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("11. deleting an empty scale set takes at most 4 GARM calls (get, disable, delete, verify)", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small")]);
    fx.sim.clearRequests();
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    const calls = apiCalls(fx.sim).map((r) => `${r.method} ${r.path}`);
    assert.ok(calls.length <= 4, calls.join("\n"));
    // The destroy's provider process reads GARM's version once, whatever it deletes.
    assert.ok(fx.sim.requests().filter(isVersionRead).length <= 1, fx.sim.requests().map((r) => `${r.method} ${r.path}`).join("\n"));
    assert.deepEqual(fx.sim.scaleSets(), []);
  });

  it("updates in place only the changed fields, never state or extended_state", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small")]);
    fx.sim.clearRequests();
    const up = await fx.engine.up([fx.scaleSet("small", { maxRunners: 5, minIdleRunners: 1, runnerGroup: "Default" })]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.deepEqual(up.updated, ["small"]);
    const [ss] = fx.sim.scaleSets();
    assert.equal(ss.maxRunners, 5);
    assert.equal(ss.minIdleRunners, 1);
    assert.equal(ss.state, "pending_create");
  });

  it("drops a scale set deleted behind Pulumi's back on refresh, and deleting it again succeeds", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small"), fx.scaleSet("other", { name: "ci-other" })]);
    const other = fx.sim.scaleSets().find((s) => s.name.startsWith("ci-other"));
    assert.ok(other);
    await fx.engine.up([fx.scaleSet("small")]);
    const refresh = await fx.engine.refresh();
    assert.ok(refresh.ok);
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
  });
  it("refuses to take over a scale set of the same live name unless adoptExisting is set, then adopts it", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small")]);
    const [existing] = fx.sim.scaleSets();
    const second = engineForGarm(fx.sim, "scaleset-it", "other");
    const refused = await second.up([fx.scaleSet("twin")]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.twin), new RegExp(`a scale set named ${existing.name} already exists .*adoptExisting: true`));
    const adopted = await second.up([fx.scaleSet("twin", { adoptExisting: true, maxRunners: 6 })]);
    assert.ok(adopted.ok, JSON.stringify(adopted.errors));
    assert.equal(second.state().resources.find((r) => r.name === "twin")?.id, String(existing.id));
    assert.equal(fx.sim.scaleSets().length, 1);
    assert.equal(fx.sim.scaleSets()[0].maxRunners, 6, "adoption brings the updatable fields to the inputs");
  });
  it("stores a changed drain option without calling GARM, and the next up sees no change", async () => {
    fx = await startFixture();
    const labels = ["Linux", "X64"];
    await fx.engine.up([fx.scaleSet("small", { labels })]);
    fx.sim.clearRequests();
    const changed = [fx.scaleSet("small", { labels, drain: { timeoutSeconds: 7, pollSeconds: 1 } })];
    const up = await fx.engine.up(changed);
    assert.deepEqual(up.updated, ["small"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);
    const outputs = fx.engine.state().resources.find((r) => r.name === "small")?.outputs;
    assert.equal((outputs?.drain as { timeoutSeconds: number }).timeoutSeconds, 7);
    assert.deepEqual(outputs?.labels, ["linux", "x64"]);
    const again = await fx.engine.up(changed);
    assert.deepEqual(again.same, ["small"]);
  });
  it("drains the same way against GARM's later behaviour, where a repeated runner delete answers 200 (Appendix A)", async () => {
    fx = await startFixture({ behaviour: "head" });
    await fx.engine.up([fx.scaleSet("small")]);
    const [ss] = fx.sim.scaleSets();
    const stuck = fx.sim.addRunner(ss.id, { name: "garm-stuck", status: "pending_delete", providerFault: "injected delete failure" });
    fx.sim.setTeardownFails(stuck, true);
    fx.sim.addRunner(ss.id, { name: "garm-idle" });
    fx.sim.addRunner(ss.id, { name: "garm-gone", status: "deleting" });
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(fx.sim.scaleSets(), []);
    assert.deepEqual(fx.sim.instances(), []);
  });
  it("waits for the new generation's idle runners before the old one is retired, so warm capacity has no gap", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small", { minIdleRunners: 1 })]);
    const [old] = fx.sim.scaleSets();
    fx.sim.clearRequests();
    const up = await fx.engine.up([fx.scaleSet("small", { minIdleRunners: 1, labels: ["linux", "x64", "gpu"] })]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [next] = fx.sim.scaleSets();
    const calls = fx.sim.requests().map((r) => `${r.method} ${r.path}`);
    const lastReadinessCheck = calls.lastIndexOf(`GET /api/v1/scalesets/${next.id}/instances`);
    const disabled = calls.indexOf(`PUT /api/v1/scalesets/${old.id}`);
    assert.ok(lastReadinessCheck >= 0 && lastReadinessCheck < disabled, calls.join("\n"));
    assert.ok(fx.sim.instances().some((i) => i.scaleSetId === next.id && i.status === "running"));
  });
});
