// The defects the first fault campaign found (issue 11), each replayed through the engine harness against the GARM
// simulator: a stopped delete that left a dead fleet, `labels: []`, and a lost create answer that stranded the user.
import { strict as assert } from "node:assert";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Fixture, mutatingCalls, sleep, startFixture, startFixtureGoneAfterLostAnswer } from "../scaleset/fixture";

const drainFast = { timeoutSeconds: 2, pollSeconds: 1 };

async function until(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

describe("issue 11: faults a fleet meets", function () {
  this.timeout(120_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  describe("a delete that stops part-way", () => {
    it("after a drain timeout, preview plans an update and a plain up restores the program's values (§7.6, Appendix B)", async () => {
      fx = await startFixture();
      const program = [fx.scaleSet("small", { maxRunners: 3, minIdleRunners: 1, drain: drainFast })];
      assert.ok((await fx.engine.up(program)).ok);
      const [ss] = fx.sim.scaleSets();
      const busy = fx.sim.addRunner(ss.id, { name: "garm-busy" });
      fx.sim.startJob(busy);

      const destroy = await fx.engine.destroy();
      assert.equal(destroy.ok, false);
      const message = String(destroy.errors.small);
      assert.match(message, /next `pulumi destroy` retries the delete/, message);
      assert.match(message, /`pulumi up` of a program that still declares it enables it again/, message);
      const [drained] = fx.sim.scaleSets();
      assert.deepEqual([drained.enabled, drained.maxRunners, drained.minIdleRunners], [false, 0, 0]);

      fx.sim.clearRequests();
      const preview = await fx.engine.preview(program);
      assert.ok(preview.ok, JSON.stringify(preview.errors));
      assert.equal(preview.diffs.small?.changes, "some", "preview must not call the dead fleet unchanged");
      assert.deepEqual(preview.steps.map((s) => s.op), ["update"]);
      assert.ok(preview.logs.some((l) => /disabled at 0 runners.*enabled, maxRunners, minIdleRunners/.test(l)), preview.logs.join("\n"));
      assert.deepEqual(mutatingCalls(fx.sim), [], "preview only reads GARM");

      const up = await fx.engine.up(program);
      assert.ok(up.ok, JSON.stringify(up.errors));
      assert.deepEqual(up.updated, ["small"]);
      const [restored] = fx.sim.scaleSets();
      assert.deepEqual([restored.enabled, restored.maxRunners, restored.minIdleRunners], [true, 3, 1]);
      const state = fx.engine.state().resources.find((r) => r.name === "small");
      assert.equal(state?.outputs.maxRunners, 3);

      fx.sim.completeJob(busy);
      const again = await fx.engine.preview(program);
      assert.deepEqual(again.steps.map((s) => s.op), ["same"], "a no-change preview passes once restored");
    });

    it("after the provider process is killed mid-drain, a plain up restores the fleet", async () => {
      fx = await startFixture();
      const program = [fx.scaleSet("small", { maxRunners: 2, drain: { timeoutSeconds: 60, pollSeconds: 1 } })];
      assert.ok((await fx.engine.up(program)).ok);
      const [ss] = fx.sim.scaleSets();
      fx.sim.startJob(fx.sim.addRunner(ss.id, { name: "garm-busy" }));

      const destroying = fx.engine.destroy();
      await until("the drain has disabled the scale set", () => fx.sim.scaleSets()[0]?.enabled === false);
      const proc = fx.engine.processes.at(-1);
      assert.equal(proc?.operation, "destroy");
      process.kill(proc.pid, "SIGKILL");
      const destroy = await destroying;
      assert.equal(destroy.ok, false);
      assert.equal(fx.engine.state().resources.length, 1, "Pulumi keeps a resource whose delete did not finish");

      const up = await fx.engine.up(program);
      assert.ok(up.ok, JSON.stringify(up.errors));
      assert.deepEqual(up.updated, ["small"]);
      const [restored] = fx.sim.scaleSets();
      assert.deepEqual([restored.enabled, restored.maxRunners], [true, 2]);
    });

    it("a provider process interrupted mid-drain (as the engine does on a second Ctrl-C) stops at once, says where, and touches no busy runner", async () => {
      fx = await startFixture();
      const program = [fx.scaleSet("small", { maxRunners: 2, drain: { timeoutSeconds: 600, pollSeconds: 60 } })];
      assert.ok((await fx.engine.up(program)).ok);
      const [ss] = fx.sim.scaleSets();
      fx.sim.startJob(fx.sim.addRunner(ss.id, { name: "garm-busy" }));

      const destroying = fx.engine.destroy();
      await until("the drain has read the jobs", () => fx.sim.scaleSets()[0]?.enabled === false && fx.sim.requests().some((r) => r.path.endsWith("/jobs")));
      await sleep(200);
      fx.sim.clearRequests();
      const proc = fx.engine.processes.at(-1)!;
      const interruptedAt = Date.now();
      process.kill(proc.pid, "SIGINT");
      const destroy = await destroying;
      assert.ok(Date.now() - interruptedAt < 5000, `the destroy ended ${Date.now() - interruptedAt} ms after the interrupt`);
      assert.equal(destroy.ok, false);
      assert.match(destroy.errors.small ?? "", /cancelled while draining: the scale set stays disabled, its runners as last seen: 1 busy \[garm-busy/, JSON.stringify(destroy.errors));
      assert.deepEqual(mutatingCalls(fx.sim), [], "no GARM change after the interrupt");
      assert.equal(fx.sim.instances().find((i) => i.name === "garm-busy")?.runnerStatus, "active");
      assert.equal(fx.engine.state().resources.length, 1, "Pulumi keeps a resource whose delete did not finish");
    });

    it("a preview while GARM is unreachable plans from Pulumi's state and says so in one line", async () => {
      fx = await startFixture();
      const program = [fx.scaleSet("a", { name: "ci-a" }), fx.scaleSet("b", { name: "ci-b" })];
      assert.ok((await fx.engine.up(program)).ok);
      fx.sim.stopServing("refuse");
      const started = Date.now();
      const preview = await fx.engine.preview(program);
      assert.ok(preview.ok, JSON.stringify(preview.errors));
      assert.deepEqual(preview.steps.map((s) => s.op), ["same", "same"]);
      const warnings = preview.logs.filter((l) => /could not read GARM/.test(l));
      assert.equal(warnings.length, 1, preview.logs.join("\n"));
      assert.ok(Date.now() - started < 20_000, "an unreachable GARM does not hold the preview up for long");
      await fx.sim.resumeServing();
    });
  });

  it("labels: [] is refused at preview with hashed naming, and creates a scale set with naming \"exact\"", async () => {
    fx = await startFixture();
    const hashed = await fx.engine.preview([fx.scaleSet("small", { labels: [] })]);
    assert.equal(hashed.ok, false);
    const [failure] = hashed.checkFailures.small ?? [];
    assert.equal(failure?.property, "labels");
    assert.match(failure.reason, /labels is empty; with naming "hashed"/);
    fx.sim.clearRequests();
    assert.equal((await fx.engine.up([fx.scaleSet("small", { labels: [] })])).ok, false);
    assert.deepEqual(mutatingCalls(fx.sim), [], "refused before anything is touched");

    const exact = await fx.engine.up([fx.scaleSet("small", { labels: [], naming: "exact" })]);
    assert.ok(exact.ok, JSON.stringify(exact.errors));
    assert.deepEqual(fx.sim.scaleSets().map((s) => s.name), ["ci-small"]);
  });

  describe("a lost create answer whose follow-up lookups also fail", () => {
    /** A fixture whose GARM goes away right after carrying out a create whose answer it then loses. */
    async function withLostCreates(): Promise<Fixture & { loseNextCreate(): void }> {
      const fx = await startFixtureGoneAfterLostAnswer();
      return { ...fx, loseNextCreate: () => fx.sim.loseNextResponse("POST", /\/scalesets$/) };
    }

    /** Removes a scale set the way an operator would, through GARM's API. */
    async function removeByHand(sim: Fixture["sim"], id: number): Promise<void> {
      const login = await fetch(`${sim.url}/api/v1/auth/login`, { method: "POST", body: JSON.stringify({ username: sim.username, password: sim.password }) });
      const { token } = (await login.json()) as { token: string };
      const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
      await fetch(`${sim.url}/api/v1/scalesets/${id}`, { method: "PUT", headers, body: JSON.stringify({ enabled: false }) });
      const deleted = await fetch(`${sim.url}/api/v1/scalesets/${id}`, { method: "DELETE", headers });
      assert.equal(deleted.status, 200);
    }

    it("the first up says what happened, and the next up adopts the scale set this resource created, without adoptExisting", async () => {
      const lost = await withLostCreates();
      fx = lost;
      const program = [fx.scaleSet("small")];
      lost.loseNextCreate();
      const first = await fx.engine.up(program);
      assert.equal(first.ok, false);
      const message = String(first.errors.small);
      assert.match(message, /may or may not have created it/, message);
      assert.match(message, /next `pulumi up` looks it up/, message);
      assert.doesNotMatch(message, /Pulumi keeps the resource and the next run retries/);
      assert.equal(fx.sim.scaleSets().length, 1, "GARM carried out the create");
      await fx.sim.resumeServing();

      const second = await fx.engine.up(program);
      assert.ok(second.ok, JSON.stringify(second.errors));
      assert.equal(fx.sim.scaleSets().length, 1, "no duplicate");
      const [ss] = fx.sim.scaleSets();
      const state = fx.engine.state().resources.find((r) => r.name === "small");
      assert.equal(state?.outputs.scaleSetId, ss.id);
      assert.equal(state?.outputs.liveName, ss.name);
      assert.equal(state?.initErrors, undefined);
      assert.deepEqual((await fx.engine.preview(program)).steps.map((s) => s.op), ["same"]);

      const refresh = await fx.engine.refresh();
      assert.ok(refresh.ok, JSON.stringify(refresh.errors));
      assert.equal(fx.engine.state().resources[0].id, String(ss.id), "refresh records GARM's id as the resource id");
      const destroy = await fx.engine.destroy();
      assert.ok(destroy.ok, JSON.stringify(destroy.errors));
      assert.deepEqual(fx.sim.scaleSets(), []);
    });

    it("destroy right after it finds and deletes the scale set; if it was removed meanwhile, the next up creates it", async () => {
      const lost = await withLostCreates();
      fx = lost;
      const program = [fx.scaleSet("small")];
      lost.loseNextCreate();
      assert.equal((await fx.engine.up(program)).ok, false);
      await fx.sim.resumeServing();
      const destroy = await fx.engine.destroy();
      assert.ok(destroy.ok, JSON.stringify(destroy.errors));
      assert.deepEqual(fx.sim.scaleSets(), []);

      lost.loseNextCreate();
      assert.equal((await fx.engine.up(program)).ok, false);
      await fx.sim.resumeServing();
      await removeByHand(fx.sim, fx.sim.scaleSets()[0].id);
      const up = await fx.engine.up(program);
      assert.ok(up.ok, JSON.stringify(up.errors));
      assert.equal(fx.sim.scaleSets().length, 1);
      assert.equal(fx.engine.state().resources[0].outputs.scaleSetId, fx.sim.scaleSets()[0].id);
    });

    it("never adopts a scale set of that name that existed before its create; says so and how to take it over", async () => {
      const lost = await withLostCreates();
      fx = lost;
      // Another stack already holds the live name, so GitHub refuses this create (§8); its answer is lost.
      const other = engineForGarm(fx.sim, "scaleset-it", "other");
      const holder = await other.up([fx.scaleSet("twin")]);
      assert.ok(holder.ok, JSON.stringify(holder.errors));
      const program = [fx.scaleSet("small")];
      lost.loseNextCreate();
      assert.equal((await fx.engine.up(program)).ok, false);
      await fx.sim.resumeServing();
      const [theirs] = fx.sim.scaleSets();

      const second = await fx.engine.up(program);
      assert.equal(second.ok, false);
      assert.match(String(second.errors.small), new RegExp(`${theirs.name} already exists .*before this resource's create.*adoptExisting: true`));
      assert.equal(fx.sim.scaleSets().length, 1);

      const destroy = await fx.engine.destroy();
      assert.ok(destroy.ok, JSON.stringify(destroy.errors));
      assert.deepEqual(fx.sim.scaleSets().map((s) => s.id), [theirs.id], "destroy leaves the other stack's scale set alone");
    });
  });
});
