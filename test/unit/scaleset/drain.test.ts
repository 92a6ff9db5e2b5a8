import { strict as assert } from "node:assert";
import * as sinon from "sinon";
import type { InstanceView, JobView, ScaleSetView } from "../../../provider/garm/client";
import { GarmApiError } from "../../../provider/garm/errors";
import { REMINDER_MS } from "../../../provider/common/log";
import { DrainError, type DrainClient, retireScaleSet } from "../../../provider/kinds/scaleset/drain";

const options = { timeoutSeconds: 30, pollSeconds: 5, jobStaleAfterHours: 120 };
const target = { id: 12, liveName: "ci-small-42e04976", owns: (v: ScaleSetView) => v.name === "ci-small-42e04976" };
/** GARM's view of the scale set, with runners unless a test says otherwise. */
const ours = { id: 12, name: "ci-small-42e04976", instances: [{ name: "garm-any" }] } as unknown as ScaleSetView;

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
  // The ownership check before anything is touched; later GETs verify the delete.
  client.getScaleSet.onFirstCall().resolves(ours);
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
  it("retires an empty scale set with get, disable, delete and verify (Appendix B)", async () => {
    const h = harness();
    h.client.getScaleSet.onFirstCall().resolves({ ...ours, instances: [] });
    assert.deepEqual(await retireScaleSet(target, options, h.deps), { kind: "deleted", drained: false });
    assert.deepEqual(h.client.updateScaleSet.firstCall.args, [12, { enabled: false, min_idle_runners: 0, max_runners: 0 }]);
    const calls = [h.client.updateScaleSet, h.client.listScaleSetInstances, h.client.deleteScaleSet, h.client.getScaleSet].map((s) => s.callCount);
    assert.deepEqual(calls, [1, 0, 1, 2]);
    assert.equal(h.client.listJobs.callCount, 0);
  });

  it("leaves a scale set alone whose id now names another scale set", async () => {
    const h = harness();
    const theirs = { ...ours, name: "team-b" } as ScaleSetView;
    h.client.getScaleSet.onFirstCall().resolves(theirs);
    assert.deepEqual(await retireScaleSet(target, options, h.deps), { kind: "not-ours", holder: theirs });
    assert.equal(h.client.updateScaleSet.callCount + h.client.deleteScaleSet.callCount + h.client.deleteInstance.callCount, 0);
  });

  it("treats a scale set gone before the drain as already gone", async () => {
    const h = harness();
    h.client.getScaleSet.onFirstCall().rejects(notFound("GET /scalesets/12"));
    assert.deepEqual(await retireScaleSet(target, options, h.deps), { kind: "already-gone" });
    assert.equal(h.client.updateScaleSet.callCount, 0);
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
      { id: 88, name: "build", status: "in_progress", runnerName: "garm-busy", repository: "acme/app", startedAt: new Date(-185_000).toISOString(), createdAt: undefined, updatedAt: undefined },
    ]);
    await assert.rejects(retireScaleSet(target, options, h.deps), (err: Error) => {
      assert.ok(err instanceof DrainError);
      assert.match(err.message, /ci-small-42e04976 \(id 12\): not deleted after 30s: 1 runner is still busy: garm-busy: job "build" \(id 88\) in_progress/);
      assert.match(err.message, /the next `pulumi destroy` retries the delete/);
      return true;
    });
    assert.equal(h.client.deleteInstance.callCount, 0);
    assert.equal(h.elapsed(), 30_000);
    assert.equal(h.lines.length, 1, `7 polls of one unchanged state print one line:\n${h.lines.join("\n")}`);
    assert.match(h.lines[0], /draining: 1 busy \[garm-busy: job "build" \(id 88\) in_progress for 3m05s\]; checking every 5s, giving up in 30s/);
  });

  it("names the waiter's cadence in its progress line when events wake it", async () => {
    const h = harness();
    const busy = runner("garm-busy", "running", "active");
    h.client.listScaleSetInstances.resolves([busy]);
    const asked: number[][] = [];
    const cadence = (pollMs: number, leftMs: number) => (asked.push([pollMs, leftMs]), "on GARM's events, at least every 3m00s");
    const deps = { ...h.deps, wait: (ms: number) => h.deps.sleep(ms), cadence };
    await assert.rejects(retireScaleSet(target, options, deps), DrainError);
    assert.match(h.lines[0], /; checking on GARM's events, at least every 3m00s, giving up in 30s$/);
    assert.deepEqual(asked[0], [5000, 30_000], "the waiter is told the poll interval and the time left, so it can leave out a bound the drain never reaches");
  });

  it("removes idle runners, force-removes stuck ones, then deletes once none remain", async () => {
    const h = harness();
    const stuck = { ...runner("garm-stuck", "pending_delete", "terminated"), providerFault: "boom" };
    h.client.listScaleSetInstances.onFirstCall().resolves([runner("garm-idle", "running", "idle"), stuck]);
    h.client.listScaleSetInstances.onSecondCall().resolves([]);
    // drained: the resource closes the drain's lines with one saying the scale set is gone.
    assert.deepEqual(await retireScaleSet(target, options, h.deps), { kind: "deleted", drained: true });
    assert.deepEqual(h.client.deleteInstance.getCalls().map((c) => c.args), [
      ["garm-idle", { forceRemove: false }],
      ["garm-stuck", { forceRemove: true }],
    ]);
    assert.equal(h.client.deleteScaleSet.callCount, 1);
  });

  it("forces a stuck runner once, then waits while GARM force-removes it: no second DELETE, never a plain one (issue 23 item 16)", async () => {
    const h = harness();
    const stuck = { ...runner("garm-stuck", "pending_delete", "terminated"), providerFault: "boom" };
    const forcing = runner("garm-stuck", "pending_force_delete", "terminated");
    h.client.listScaleSetInstances.onFirstCall().resolves([stuck]);
    for (let pass = 1; pass <= 4; pass++) h.client.listScaleSetInstances.onCall(pass).resolves([forcing]);
    h.client.listScaleSetInstances.onCall(5).resolves([]);
    assert.deepEqual(await retireScaleSet(target, options, h.deps), { kind: "deleted", drained: true });
    assert.deepEqual(h.client.deleteInstance.getCalls().map((c) => c.args), [["garm-stuck", { forceRemove: true }]]);
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
    h.client.getScaleSet.resolves(ours);
    await assert.rejects(retireScaleSet(target, options, h.deps), /answered the delete with success but still has the scale set.*restarting GARM/);
  });

  it("rides out GARM being unreachable and says so if it stays down past the timeout", async () => {
    const h = harness();
    h.client.listScaleSetInstances.rejects(down());
    await assert.rejects(retireScaleSet(target, options, h.deps), /could not finish draining after 30s: GARM is unreachable/);
    assert.ok(h.lines.every((l) => /GARM is unreachable/.test(l)), "no progress is claimed while GARM is down");
    assert.equal(h.lines.length, 1, `one warning for one outage, not one per poll:\n${h.lines.join("\n")}`);
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

  it("waits out a delete answered `scale set is enabled` within the deadline and with the sleep (§5)", async () => {
    const h = harness();
    const runaway = 50;
    h.client.deleteScaleSet.callsFake(async () => {
      if (h.client.deleteScaleSet.callCount > runaway) throw new Error("runaway delete loop");
      throw badRequest("scale set is enabled; disable it first");
    });
    await assert.rejects(retireScaleSet(target, { ...options, timeoutSeconds: 1, pollSeconds: 1 }, h.deps), (err: Error) => {
      assert.ok(err instanceof DrainError, err.message);
      assert.match(err.message, /not deleted after 1s: GARM refused the delete: .*scale set is enabled/);
      return true;
    });
    assert.ok(h.client.deleteScaleSet.callCount <= 2, `${h.client.deleteScaleSet.callCount} DELETEs in 1s`);
    assert.equal(h.elapsed(), 1000);
  });

  it("carries on with the other runners when one runner's removal keeps failing with 500, and names that failure", async () => {
    const h = harness();
    const refused = runner("garm-refused", "running", "idle");
    const fine = runner("garm-fine", "running", "idle");
    h.client.listScaleSetInstances.onFirstCall().resolves([refused, fine]);
    h.client.listScaleSetInstances.resolves([refused]);
    const failure = new GarmApiError("server-error", "DELETE /instances/garm-refused", 500, "Internal Server Error", "error removing runner from github");
    h.client.deleteInstance.withArgs("garm-refused").rejects(failure);
    await assert.rejects(retireScaleSet(target, { ...options, timeoutSeconds: 10 }, h.deps), (err: Error) => {
      assert.ok(err instanceof DrainError, err.message);
      assert.doesNotMatch(err.message, /unreachable/);
      assert.match(err.message, /garm-refused \(idle: could not remove: GARM DELETE \/instances\/garm-refused failed with 500 Internal Server Error: error removing runner from github/);
      return true;
    });
    assert.ok(h.client.deleteInstance.calledWith("garm-fine"), "the other runner was removed in the same pass");
    assert.match(h.lines[0], /removing 1 idle \[garm-fine\]; could not remove \[garm-refused \(GARM DELETE \/instances\/garm-refused failed with 500/);
    assert.ok(!h.lines.some((l) => /unreachable/.test(l)), h.lines.join("\n"));
  });

  describe("progress lines (one per change, not per poll)", () => {
    const busyJob = (startedMsAgo: number, clock: () => number): JobView => ({
      id: 88, name: "build", status: "in_progress", runnerName: "garm-busy", repository: "acme/app",
      startedAt: new Date(clock() - startedMsAgo).toISOString(), createdAt: undefined, updatedAt: undefined,
    });

    it("prints one line for many polls of an unchanged state, and a new line when the state changes", async () => {
      const h = harness();
      const busy = runner("garm-busy", "running", "active");
      // 10 polls busy (ages grow every poll), then 3 polls with the runner being removed, then empty.
      for (let i = 0; i < 10; i++) h.client.listScaleSetInstances.onCall(i).resolves([busy]);
      for (let i = 10; i < 13; i++) h.client.listScaleSetInstances.onCall(i).resolves([runner("garm-busy", "pending_delete", "terminated")]);
      h.client.listJobs.callsFake(async () => [busyJob(60_000, h.elapsed)]);
      for (let i = 10; i < 13; i++) h.client.listJobs.onCall(i).resolves([]);
      await retireScaleSet(target, { ...options, timeoutSeconds: 600 }, h.deps);
      assert.equal(h.client.listScaleSetInstances.callCount, 14);
      assert.deepEqual(
        h.lines.map((l) => l.replace(/; checking every.*/, "")),
        [
          'GarmScaleSet ci-small-42e04976 (id 12): draining: 1 busy [garm-busy: job "build" (id 88) in_progress for 1m00s]',
          "GarmScaleSet ci-small-42e04976 (id 12): draining: 1 being removed [garm-busy pending_delete]",
        ],
      );
    });

    it("repeats an unchanged state as a reminder every REMINDER_MS", async () => {
      const h = harness();
      h.client.listScaleSetInstances.resolves([runner("garm-busy", "running", "active")]);
      assert.equal(REMINDER_MS, 120_000);
      await assert.rejects(retireScaleSet(target, { ...options, timeoutSeconds: 270 }, h.deps), DrainError);
      assert.deepEqual(
        h.lines.map((l) => l.replace(/: (still )?draining: .*giving up in /, ": $1draining, giving up in ")),
        [
          `GarmScaleSet ci-small-42e04976 (id 12): draining, giving up in 4m30s`,
          `GarmScaleSet ci-small-42e04976 (id 12): still draining, giving up in 2m30s`,
          `GarmScaleSet ci-small-42e04976 (id 12): still draining, giving up in 30s`,
        ],
      );
    });

    it("prints the state again when GARM answers after an outage", async () => {
      const h = harness();
      const busy = runner("garm-busy", "running", "active");
      h.client.listScaleSetInstances.resolves([busy]);
      h.client.listScaleSetInstances.onCall(2).rejects(down());
      h.client.listScaleSetInstances.onCall(3).rejects(down());
      await assert.rejects(retireScaleSet(target, options, h.deps), DrainError);
      assert.deepEqual(
        h.lines.map((l) => (/unreachable/.test(l) ? "unreachable" : /draining: 1 busy/.test(l) ? "busy" : l)),
        ["busy", "unreachable", "busy"],
      );
    });

    // Every branch of classifyRunner (classify.test.ts has the same statuses) and the words its progress line and
    // timeout error use for it. A runner being created is not "tearing down".
    const words: [string, InstanceView, string, string][] = [
      ["active, no job record", runner("garm-r1", "running", "active"), "1 busy [garm-r1: running a job: GARM shows runner_status active and has no job record for it]", "1 runner is still busy: garm-r1"],
      ["idle", runner("garm-r1", "running", "idle"), "removing 1 idle [garm-r1]", "garm-r1 (idle: "],
      ["failed", runner("garm-r1", "error", "failed"), "removing 1 failed [garm-r1]", "garm-r1 (failed: "],
      ["stuck", { ...runner("garm-r1", "pending_delete", "terminated"), providerFault: "boom" }, "force-removing 1 stuck [garm-r1]", "garm-r1 (stuck: its provider failed to delete it: boom)"],
      ["pending_force_delete", runner("garm-r1", "pending_force_delete", "terminated"), "1 being force-removed [garm-r1]", "garm-r1 (being force-removed: "],
      ["pending_create", runner("garm-r1", "pending_create", ""), "1 being created [garm-r1 pending_create]", "garm-r1 (being created: GARM is creating it, status pending_create"],
      ["creating", runner("garm-r1", "creating", ""), "1 being created [garm-r1 creating]", "garm-r1 (being created: "],
      ["pending_delete", runner("garm-r1", "pending_delete", "terminated"), "1 being removed [garm-r1 pending_delete]", "garm-r1 (being removed: GARM is tearing it down, status pending_delete)"],
      ["deleting", runner("garm-r1", "deleting", ""), "1 being removed [garm-r1 deleting]", "garm-r1 (being removed: "],
      ["deleted", runner("garm-r1", "deleted", ""), "1 being removed [garm-r1 deleted]", "garm-r1 (being removed: "],
      ["stopped", runner("garm-r1", "stopped", ""), "1 stopped [garm-r1]", "garm-r1 (stopped: its provider reports it stopped"],
      ["unknown", runner("garm-r1", "unknown", ""), "1 in an unknown state [garm-r1 unknown]", "garm-r1 (in an unknown state: GARM reports status unknown)"],
    ];
    for (const [status, r, line, error] of words) {
      it(`names a runner (${status}): "${line}"`, async () => {
        const h = harness();
        h.client.listScaleSetInstances.resolves([r]);
        await assert.rejects(retireScaleSet(target, { ...options, timeoutSeconds: 5 }, h.deps), (err: Error) => {
          assert.ok(err.message.includes(error), `error:\n${err.message}\nlacks:\n${error}`);
          return true;
        });
        assert.ok(h.lines[0].includes(`: draining: ${line}; checking every 5s`), `line:\n${h.lines[0]}\nlacks:\n${line}`);
      });
    }
  });
});
