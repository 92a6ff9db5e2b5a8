import assert from "node:assert/strict";
import { Client, QUICK_RESTART, setup, ticks } from "./helpers";
import type { Simulator } from "../../../simulator";

describe("simulator: scale set delete (§5)", () => {
  let sim: Simulator;
  let api: Client;
  beforeEach(async () => ({ sim, api } = await setup(QUICK_RESTART)));
  afterEach(async () => sim.stop());

  it("§5 DELETE of an unknown id answers 200 with an empty body", async () => {
    const r = await api.del("/scalesets/777");
    assert.deepEqual([r.status, r.text], [200, ""]);
  });

  it("§5 DELETE with any instance row is 400 `scale set has runners`, checked before `enabled`", async () => {
    const ss = await api.createScaleSet({ enabled: true });
    sim.addRunner(ss.id, { status: "pending_delete" });
    const r = await api.del(`/scalesets/${ss.id}`);
    assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "scale set has runners" }]);
  });

  it("§5 DELETE of an enabled scale set is 400 `scale set is enabled; disable it first`", async () => {
    const ss = await api.createScaleSet({ enabled: true });
    const r = await api.del(`/scalesets/${ss.id}`);
    assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "scale set is enabled; disable it first" }]);
  });

  it("§5 DELETE of a disabled empty scale set answers 200 with an empty body and removes it", async () => {
    const ss = await api.createScaleSet({ enabled: false });
    const r = await api.del(`/scalesets/${ss.id}`);
    assert.deepEqual([r.status, r.text], [200, ""]);
    assert.equal(r.body, undefined);
    assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 404);
  });

  it("§5 inverted delete: DELETE answers 200 and keeps the scale set when GitHub fails", async () => {
    const ss = await api.createScaleSet({ enabled: false });
    for (const status of [404, 500, 401] as const) {
      sim.failNextGitHub("scaleset-delete", status);
      const r = await api.del(`/scalesets/${ss.id}`);
      assert.equal(r.status, 200);
      assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 200, `kept after GitHub ${status}`);
    }
    assert.equal((await api.del(`/scalesets/${ss.id}`)).status, 200);
    assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 404);
  });

  it("§5 a 404 while fetching the GitHub token is the one error DELETE reports (404, scale set kept)", async () => {
    const ss = await api.createScaleSet({ enabled: false });
    sim.failNextGitHub("scaleset-delete-token", 404);
    const r = await api.del(`/scalesets/${ss.id}`);
    assert.equal(r.status, 404);
    assert.match(r.body.details, /^error deleting scale set from github: failed to update token: /);
    assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 200);
  });

  it("§5/§4.5 a GitHub scale set deleted out of band makes DELETE a 200 no-op until a restart re-creates it", async () => {
    const ss = await api.createScaleSet({ enabled: false });
    sim.deleteGitHubScaleSet(ss.id);
    assert.equal((await api.del(`/scalesets/${ss.id}`)).status, 200);
    assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 200);
    await sim.restart();
    const after = await api.get(`/scalesets/${ss.id}`);
    assert.notEqual(after.body.scale_set_id, ss.scale_set_id, "re-created with a new GitHub id");
    assert.equal((await api.del(`/scalesets/${ss.id}`)).status, 200);
    assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 404);
  });

  it("Appendix B: disable, drain idle runners, delete, verify", async () => {
    const ss = await api.createScaleSet({ enabled: true, min_idle_runners: 2, max_runners: 4 });
    await ticks(sim, 2);
    assert.equal((await api.get(`/scalesets/${ss.id}/instances`)).body.length, 2);
    await api.put(`/scalesets/${ss.id}`, { enabled: false, min_idle_runners: 0, max_runners: 0 });
    await ticks(sim, 3);
    assert.deepEqual((await api.get(`/scalesets/${ss.id}/instances`)).body, []);
    assert.equal((await api.del(`/scalesets/${ss.id}`)).status, 200);
    assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 404);
  });
});
