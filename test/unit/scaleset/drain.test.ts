import { strict as assert } from "node:assert";
import * as sinon from "sinon";
import type { InstanceView, JobView } from "../../../provider/garm/client";
import { GarmApiError } from "../../../provider/garm/errors";
import { DrainError, type DrainClient, retireScaleSet } from "../../../provider/scaleset/drain";

const options = { timeoutSeconds: 30, pollSeconds: 5, jobStaleAfterHours: 120 };
const target = { id: 12, liveName: "ci-small-42e04976" };

function runner(name: string, status: string, runnerStatus: string): InstanceView {
  return { id: name, name, status, runnerStatus, providerName: "fake", scaleSetId: 12, providerFault: "", job: undefined, createdAt: undefined, updatedAt: undefined };
}

const notFound = (request: string) => new GarmApiError("not-found", request, 404, "Not Found", "not found");
const badRequest = (details: string) => new GarmApiError("bad-request", "DELETE /scalesets/12", 400, "Bad Request", details);
const down = () => new GarmApiError("connection", "GET /scalesets/12/instances", undefined, "ECONNREFUSED", "");

/** A scripted client whose calls are sinon stubs; a virtual clock advances only when the drain sleeps. */
function harness() {
  let clock = 0;
  const client = {
    updateScaleSet: sinon.stub().resolves({}),
    listScaleSetInstances: sinon.stub().resolves([]),
    listJobs: sinon.stub().resolves([] as JobView[]),
    deleteInstance: sinon.stub().resolves(),
    deleteScaleSet: sinon.stub().resolves(),
    getScaleSet: sinon.stub().rejects(notFound("GET /scalesets/12")),
  };
  const lines: string[] = [];
  const deps = {
    client: client as unknown as DrainClient,
    log: { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(`warning: ${l}`) },
    now: () => clock,
    sleep: async (ms: number) => {
      clock += ms;
    },
  };
  return { client, deps, lines, elapsed: () => clock };
}

describe("retireScaleSet", () => {
  it("retires an empty scale set with disable, list, delete and verify (Appendix B)", async () => {
    const h = harness();
    await retireScaleSet(target, options, h.deps);
    assert.deepEqual(h.client.updateScaleSet.firstCall.args, [12, { enabled: false, min_idle_runners: 0, max_runners: 0 }]);
    const calls = [h.client.updateScaleSet, h.client.listScaleSetInstances, h.client.deleteScaleSet, h.client.getScaleSet].map((s) => s.callCount);
    assert.deepEqual(calls, [1, 1, 1, 1]);
    assert.equal(h.client.listJobs.callCount, 0);
  });

  it("treats a 404 on disable as already gone", async () => {
    const h = harness();
    h.client.updateScaleSet.rejects(notFound("PUT /scalesets/12"));
    await retireScaleSet(target, options, h.deps);
    assert.equal(h.client.deleteScaleSet.callCount, 0);
  });

  it("fails after the timeout naming the busy runner, its job and the retry, without touching it", async () => {
    const h = harness();
    h.client.listScaleSetInstances.resolves([runner("garm-busy", "running", "active")]);
    h.client.listJobs.resolves([
      { id: "88", name: "build", status: "in_progress", runnerName: "garm-busy", repository: "acme/app", startedAt: new Date(-185_000).toISOString(), createdAt: undefined, updatedAt: undefined },
    ]);
    await assert.rejects(retireScaleSet(target, options, h.deps), (err: Error) => {
      assert.ok(err instanceof DrainError);
      assert.match(err.message, /ci-small-42e04976 \(id 12\): not deleted after 30s: 1 runner is still busy: garm-busy: job "build" \(id 88\) in_progress/);
      assert.match(err.message, /the next `pulumi destroy` retries the delete/);
      return true;
    });
    assert.equal(h.client.deleteInstance.callCount, 0);
    assert.equal(h.elapsed(), 30_000);
    assert.equal(h.lines.length, 7, "one progress line per poll");
    assert.match(h.lines[0], /draining: 1 busy \[garm-busy: job "build" \(id 88\) in_progress for 3m05s\]; next check in 5s, giving up in 30s/);
  });

  it("removes idle runners, force-removes stuck ones, then deletes once none remain", async () => {
    const h = harness();
    const stuck = { ...runner("garm-stuck", "pending_delete", "terminated"), providerFault: "boom" };
    h.client.listScaleSetInstances.onFirstCall().resolves([runner("garm-idle", "running", "idle"), stuck]);
    h.client.listScaleSetInstances.onSecondCall().resolves([]);
    await retireScaleSet(target, options, h.deps);
    assert.deepEqual(h.client.deleteInstance.getCalls().map((c) => c.args), [
      ["garm-idle", { forceRemove: false }],
      ["garm-stuck", { forceRemove: true }],
    ]);
    assert.equal(h.client.deleteScaleSet.callCount, 1);
  });

  it("goes back to draining on 400 `scale set has runners`, and disables again on 400 `is enabled` (§5)", async () => {
    const h = harness();
    h.client.deleteScaleSet.onFirstCall().rejects(badRequest("scale set has runners"));
    h.client.deleteScaleSet.onSecondCall().rejects(badRequest("scale set is enabled; disable it first"));
    await retireScaleSet(target, options, h.deps);
    assert.equal(h.client.deleteScaleSet.callCount, 3);
    assert.equal(h.client.updateScaleSet.callCount, 2);
  });

  it("fails with the explanation when GARM keeps the scale set after a successful delete (§5)", async () => {
    const h = harness();
    h.client.getScaleSet.resolves({ id: 12 });
    await assert.rejects(retireScaleSet(target, options, h.deps), /answered the delete with success but still has the scale set.*restarting GARM/);
  });

  it("rides out GARM being unreachable and says so if it stays down past the timeout", async () => {
    const h = harness();
    h.client.listScaleSetInstances.rejects(down());
    await assert.rejects(retireScaleSet(target, options, h.deps), /could not finish draining after 30s: GARM is unreachable/);
    assert.ok(h.lines.every((l) => /GARM is unreachable/.test(l)), "no progress is claimed while GARM is down");
  });

  it("resumes when GARM comes back", async () => {
    const h = harness();
    h.client.updateScaleSet.onFirstCall().rejects(down());
    h.client.listScaleSetInstances.onFirstCall().rejects(down());
    await retireScaleSet(target, options, h.deps);
    assert.equal(h.client.updateScaleSet.callCount, 2, "disables once GARM answers");
    assert.equal(h.client.deleteScaleSet.callCount, 1);
  });

  it("retries an idle runner's removal with bypassGHUnauthorized on GitHub's 401 and warns (§1.5)", async () => {
    const h = harness();
    h.client.listScaleSetInstances.onFirstCall().resolves([runner("garm-idle", "running", "idle")]);
    h.client.deleteInstance.onFirstCall().rejects(new GarmApiError("github-unauthorized", "DELETE /instances/garm-idle", 401, "Not Authorized", ""));
    await retireScaleSet(target, options, h.deps);
    assert.deepEqual(h.client.deleteInstance.secondCall.args, ["garm-idle", { forceRemove: false, bypassGHUnauthorized: true }]);
    assert.ok(h.lines.some((l) => l.startsWith("warning:") && /may stay registered in GitHub/.test(l)));
  });
});
