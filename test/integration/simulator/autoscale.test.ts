import assert from "node:assert/strict";
import { Client, setup, ticks } from "./helpers";
import type { Simulator } from "../../../simulator";

describe("simulator: autoscale and consolidation (§7.5, §7.6)", () => {
  let sim: Simulator;
  let api: Client;
  afterEach(async () => sim.stop());

  const list = async (id: number) => (await api.get(`/scalesets/${id}/instances`)).body as any[];

  describe("with manual ticks", () => {
    beforeEach(async () => ({ sim, api } = await setup({ consolidationMs: 60_000 })));

    it("§7.6 an enabled scale set keeps min_idle_runners idle runners, created through pending_create → creating → running", async () => {
      const ss = await api.createScaleSet({ enabled: true, min_idle_runners: 2, max_runners: 5 });
      await sim.tick();
      let runners = await list(ss.id);
      assert.equal(runners.length, 2);
      assert.ok(runners.every((r) => r.status === "creating"));
      await sim.tick();
      runners = await list(ss.id);
      assert.ok(runners.every((r) => r.status === "running" && r.runner_status === "idle"));
      assert.ok(runners.every((r) => r.name.startsWith("garm-") && r.provider_id === `fake-${r.name}`));
      await ticks(sim, 3);
      assert.equal((await list(ss.id)).length, 2, "stable at the target");
    });

    it("§7.6 target = min(min_idle + desired, max): a busy runner makes room for another idle one, capped at max", async () => {
      const ss = await api.createScaleSet({ enabled: true, min_idle_runners: 1, max_runners: 2 });
      await ticks(sim, 2);
      const [first] = await list(ss.id);
      sim.startJob(first.name);
      await ticks(sim, 2);
      let runners = await list(ss.id);
      assert.equal(runners.length, 2);
      assert.equal((await api.get(`/scalesets/${ss.id}`)).body.desired_runner_count, 1);
      const second = runners.find((r) => r.name !== first.name)!;
      sim.startJob(second.name);
      await ticks(sim, 2);
      runners = await list(ss.id);
      assert.equal(runners.length, 2, "max_runners caps the target");
    });

    it("§7.6 a disabled scale set never scales up, not even to min_idle_runners", async () => {
      const ss = await api.createScaleSet({ enabled: false, min_idle_runners: 2, max_runners: 5 });
      await ticks(sim, 3);
      assert.deepEqual(await list(ss.id), []);
    });

    it("§7.6 scale-down of idle runners runs even when disabled; busy (active) runners are kept", async () => {
      const ss = await api.createScaleSet({ enabled: true, max_runners: 5 });
      const idle = sim.addRunner(ss.id);
      const busy = sim.addRunner(ss.id);
      sim.startJob(busy);
      const installing = sim.addRunner(ss.id, { runnerStatus: "installing" });
      await api.put(`/scalesets/${ss.id}`, { enabled: false, max_runners: 0 });
      await sim.tick();
      const byName = new Map((await list(ss.id)).map((r) => [r.name, r]));
      assert.equal(byName.get(idle)?.status, "deleting");
      assert.equal(byName.get(installing)?.status, "deleting");
      assert.equal(byName.get(busy)?.status, "running");
      assert.equal(byName.get(busy)?.runner_status, "active");
    });

    it("§7.6 without max_runners 0, a disabled scale set keeps min_idle + frozen desired idle runners", async () => {
      const ss = await api.createScaleSet({ enabled: true, min_idle_runners: 1, max_runners: 5 });
      sim.addRunner(ss.id);
      sim.addRunner(ss.id);
      await api.put(`/scalesets/${ss.id}`, { enabled: false });
      await ticks(sim, 3);
      assert.equal((await list(ss.id)).length, 1);
    });

    it("§7.5 a job completing while DISABLED is noticed only by the consolidation, which sets pending_delete", async () => {
      const ss = await api.createScaleSet({ enabled: true, max_runners: 2 });
      const name = sim.addRunner(ss.id);
      sim.startJob(name);
      await api.put(`/scalesets/${ss.id}`, { enabled: false, max_runners: 0 });
      sim.completeJob(name);
      await ticks(sim, 2);
      let r = (await api.get(`/instances/${name}`)).body;
      assert.equal(r.status, "running");
      assert.equal(r.runner_status, "active", "no listener: GARM still believes it is busy");
      assert.equal(r.job.status, "in_progress");
      await sim.consolidate();
      r = (await api.get(`/instances/${name}`)).body;
      assert.equal(r.status, "pending_delete");
      await ticks(sim, 2);
      assert.deepEqual(await list(ss.id), []);
      assert.deepEqual((await api.get("/jobs")).body, [], "the job went with the runner");
    });

    it("§7.5 a job started while disabled is not seen by GARM (no listener)", async () => {
      const ss = await api.createScaleSet({ enabled: false, max_runners: 2 });
      const name = sim.addRunner(ss.id);
      sim.startJob(name);
      const r = (await api.get(`/instances/${name}`)).body;
      assert.equal(r.runner_status, "idle");
      assert.deepEqual((await api.get("/jobs")).body, []);
    });

    it("§6.2 a provider create failure leaves `error` with a fault for one tick, then pending_delete with the fault cleared", async () => {
      const ss = await api.createScaleSet({ enabled: true, min_idle_runners: 1, max_runners: 1 });
      sim.setCreateFails(ss.id, true);
      await ticks(sim, 2);
      let [r] = await list(ss.id);
      assert.equal(r.status, "error");
      assert.ok(r.provider_fault);
      await sim.tick();
      [r] = await list(ss.id);
      assert.equal(r.status, "pending_delete");
      assert.equal("provider_fault" in r, false);
    });
  });

  describe("with the background timer", () => {
    beforeEach(async () => ({ sim, api } = await setup({ tickMs: 10, consolidationMs: 50 })));

    it("§7.5 consolidationMs drives the periodic consolidation", async () => {
      const ss = await api.createScaleSet({ enabled: true, max_runners: 2 });
      const name = sim.addRunner(ss.id);
      sim.startJob(name);
      await api.put(`/scalesets/${ss.id}`, { enabled: false, max_runners: 0 });
      sim.completeJob(name);
      const deadline = Date.now() + 1500;
      while (Date.now() < deadline && (await list(ss.id)).length > 0) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(await list(ss.id), []);
      assert.equal((await api.del(`/scalesets/${ss.id}`)).status, 200);
    });
  });
});
