import assert from "node:assert/strict";
import { Client, setup, ticks } from "./helpers";
import type { Simulator } from "../../../simulator";

const NOT_DELETABLE = 'runner must be in one of the following states: "running, error, pending_force_delete, pending_delete"';

describe("simulator: runners and jobs (§6, §7)", () => {
  let sim: Simulator;
  let api: Client;
  let ssId: number;
  beforeEach(async () => {
    ({ sim, api } = await setup());
    ssId = (await api.createScaleSet({ enabled: false, max_runners: 10 })).id;
  });
  afterEach(async () => sim.stop());

  const status = async (name: string) => (await api.get(`/instances/${name}`)).body?.status;

  it("§6 DELETE /instances/{name} of a missing runner is 404 with GARM's details", async () => {
    const r = await api.del("/instances/nope");
    assert.deepEqual([r.status, r.body], [
      404,
      { error: "Not Found", details: "error fetching instance: error fetching instance: error fetching instance by name: not found" },
    ]);
  });

  it("§6 only running, error, pending_force_delete and pending_delete runners can be deleted; others are 400", async () => {
    for (const s of ["pending_create", "creating", "deleting", "stopped", "unknown"] as const) {
      const name = sim.addRunner(ssId, { status: s });
      const r = await api.del(`/instances/${name}`);
      assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: NOT_DELETABLE }], s);
    }
    for (const s of ["running", "error"] as const) {
      const name = sim.addRunner(ssId, { status: s });
      const r = await api.del(`/instances/${name}`);
      assert.deepEqual([r.status, r.text], [200, ""], s);
      assert.equal(await status(name), "pending_delete");
    }
  });

  it("§2.2/§6 forceRemove and bypassGHUnauthorized are camelCase with ParseBool semantics", async () => {
    const a = sim.addRunner(ssId);
    await api.del(`/instances/${a}?forceRemove=T`);
    assert.equal(await status(a), "pending_force_delete");
    const b = sim.addRunner(ssId);
    await api.del(`/instances/${b}?force_remove=true&forceRemove=yes`);
    assert.equal(await status(b), "pending_delete", "`yes` and snake_case are false");
  });

  it("§6 a GitHub removal error fails the call (401/403 as Not Authorized) unless bypassGHUnauthorized", async () => {
    const name = sim.addRunner(ssId);
    sim.failNextGitHub("runner-delete", 403);
    let r = await api.del(`/instances/${name}`);
    assert.deepEqual([r.status, r.body], [401, { error: "Not Authorized", details: "" }]);
    assert.equal(await status(name), "running");
    sim.failNextGitHub("runner-delete", 500);
    r = await api.del(`/instances/${name}`);
    assert.deepEqual([r.status, r.body], [500, { error: "Server error", details: "" }]);
    // The flag bypasses every non-404 GitHub error, not only 401.
    sim.failNextGitHub("runner-delete", 500);
    r = await api.del(`/instances/${name}?bypassGHUnauthorized=true`);
    assert.equal(r.status, 200);
    assert.equal(await status(name), "pending_delete");
  });

  it("§6 a GitHub 404 on runner removal is ignored", async () => {
    const name = sim.addRunner(ssId);
    sim.failNextGitHub("runner-delete", 404);
    assert.equal((await api.del(`/instances/${name}`)).status, 200);
  });

  it("§6 v0.2.1: pending_force_delete → pending_delete is refused with 400 `invalid instance status transition`; same status is a no-op", async () => {
    const name = sim.addRunner(ssId);
    assert.equal((await api.del(`/instances/${name}?forceRemove=true`)).status, 200);
    assert.equal((await api.del(`/instances/${name}?forceRemove=true`)).status, 200, "same status is a no-op success");
    const r = await api.del(`/instances/${name}`);
    assert.deepEqual([r.status, r.body], [
      400,
      { error: "Bad Request", details: "invalid instance status transition from pending_force_delete to pending_delete" },
    ]);
    const pd = sim.addRunner(ssId, { status: "pending_delete" });
    assert.equal((await api.del(`/instances/${pd}?forceRemove=1`)).status, 200, "pending_delete → pending_force_delete is allowed");
    assert.equal(await status(pd), "pending_force_delete");
  });

  it("§6.1 teardown runs on ticks: pending_delete → deleting → deleted, then the row is gone (404)", async () => {
    const name = sim.addRunner(ssId);
    await api.del(`/instances/${name}`);
    await sim.tick();
    assert.equal(await status(name), "deleting");
    await sim.tick();
    assert.equal((await api.get(`/instances/${name}`)).status, 404);
  });

  it("§6.1/§6.2 a failing provider delete goes back to pending_delete with a base64 provider_fault; `deleting` clears it", async () => {
    const name = sim.addRunner(ssId);
    sim.setTeardownFails(name, true);
    await api.del(`/instances/${name}`);
    await ticks(sim, 2);
    let r = await api.get(`/instances/${name}`);
    assert.equal(r.body.status, "pending_delete");
    assert.match(Buffer.from(r.body.provider_fault, "base64").toString(), /injected delete failure/);
    await sim.tick();
    r = await api.get(`/instances/${name}`);
    assert.equal(r.body.status, "deleting");
    assert.equal("provider_fault" in r.body, false);
    await sim.tick();
    assert.equal((await api.get(`/instances/${name}`)).body.status, "pending_delete");
    // pending_force_delete ignores provider errors.
    assert.equal((await api.del(`/instances/${name}?forceRemove=true`)).status, 200);
    await ticks(sim, 2);
    assert.equal((await api.get(`/instances/${name}`)).status, 404);
  });

  it("§6.2 any instance update clears provider_fault, including the API DELETE itself", async () => {
    const name = sim.addRunner(ssId, { status: "pending_delete", providerFault: "boom" });
    let r = await api.get(`/instances/${name}`);
    assert.equal(r.body.provider_fault, Buffer.from("boom").toString("base64"));
    await api.del(`/instances/${name}?forceRemove=true`);
    r = await api.get(`/instances/${name}`);
    assert.equal("provider_fault" in r.body, false);
  });

  it("§3.2 instances carry the always-present keys and omit empty ones", async () => {
    const name = sim.addRunner(ssId);
    const r = await api.get(`/instances/${name}`);
    for (const k of ["provider_name", "created_at", "updated_at", "heartbeat", "capabilities", "generation", "agent_id", "scale_set_id"]) {
      assert.ok(k in r.body, k);
    }
    assert.equal(r.body.generation, 0);
    assert.equal(r.body.provider_name, "fake");
    assert.equal("pool_id" in r.body, false);
    assert.equal("provider_fault" in r.body, false);
    assert.equal("job" in r.body, false);
    // GET by UUID works too.
    assert.equal((await api.get(`/instances/${r.body.id}`)).body.name, name);
  });

  it("§7.5/§7.3 startJob and completeJob while enabled: job queued → in_progress → completed, runner active → pending_delete + terminated", async () => {
    await api.put(`/scalesets/${ssId}`, { enabled: true });
    const name = sim.addRunner(ssId);
    sim.startJob(name, { ageMs: 60_000 });
    let inst = (await api.get(`/instances/${name}`)).body;
    assert.equal(inst.runner_status, "active");
    assert.equal(inst.job.status, "in_progress");
    assert.equal(inst.job.runner_name, name);
    const all = (await api.get("/instances")).body;
    assert.equal(all.find((i: { name: string }) => i.name === name).job.status, "in_progress", "GET /instances has `job` too");
    const jobs = (await api.get("/jobs")).body;
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].runner_name, name);
    assert.equal(jobs[0].action, "push");
    assert.equal(jobs[0].locked_by, "00000000-0000-0000-0000-000000000000");
    assert.ok(Date.now() - Date.parse(jobs[0].started_at) >= 59_000, "started_at reflects ageMs");
    assert.equal("workflow_job_id" in jobs[0], false);
    sim.completeJob(name);
    inst = (await api.get(`/instances/${name}`)).body;
    assert.equal(inst.status, "pending_delete");
    assert.equal(inst.runner_status, "terminated");
    assert.equal((await api.get("/jobs")).body[0].status, "completed");
  });

  it("§7.7 deleting a runner row deletes its jobs", async () => {
    await api.put(`/scalesets/${ssId}`, { enabled: true, max_runners: 1 });
    const name = sim.addRunner(ssId);
    sim.startJob(name);
    sim.completeJob(name);
    assert.equal((await api.get("/jobs")).body.length, 1);
    await ticks(sim, 2);
    assert.equal((await api.get(`/instances/${name}`)).status, 404);
    assert.deepEqual((await api.get("/jobs")).body, []);
  });

  it("§6 a busy runner cannot be removed from GitHub (400), and bypassGHUnauthorized skips even that", async () => {
    await api.put(`/scalesets/${ssId}`, { enabled: true });
    const name = sim.addRunner(ssId);
    sim.startJob(name);
    const r = await api.del(`/instances/${name}`);
    assert.equal(r.status, 400);
    assert.equal(await status(name), "running");
    assert.equal((await api.del(`/instances/${name}?bypassGHUnauthorized=true`)).status, 200);
    assert.equal(await status(name), "pending_delete");
  });
});
