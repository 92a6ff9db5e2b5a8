// Cancellation (provider/common/cancel.ts): an aborted instance signal ends a drain's waits within a second with a
// message that says where it stopped, starts no GARM request, and never touches a busy runner.
import { strict as assert } from "node:assert";
import { EventEmitter } from "node:events";
import * as sinon from "sinon";
import type { InstanceView, JobView, ScaleSetView } from "../../../provider/garm/client";
import { GarmClient } from "../../../provider/garm/client";
import type { GarmEvents } from "../../../provider/garm/events";
import { CancelledError, cancelNow, cancelOnSignals, newCancellation, sleepUnlessCancelled } from "../../../provider/common/cancel";
import { changeWaiter, scaleSetConcern } from "../../../provider/common/events-wait";
import { DrainError, type DrainClient, retireScaleSet } from "../../../provider/kinds/scaleset/drain";
import { RestartCoordinator } from "../../../provider/kinds/garm-provider/restart";
import { waitForRunners } from "../../../provider/kinds/scaleset/readiness";
import { type HttpStub, sendJson, startHttpStub } from "../../support/http-stub";

const target = { id: 12, liveName: "ci-small-42e04976", owns: (v: ScaleSetView) => v.name === "ci-small-42e04976" };
const ours = { id: 12, name: "ci-small-42e04976", instances: [{ name: "garm-busy" }] } as unknown as ScaleSetView;
const busy: InstanceView = {
  id: "garm-busy",
  name: "garm-busy",
  status: "running",
  runnerStatus: "active",
  providerName: "fake",
  scaleSetId: 12,
  providerFault: "",
  job: undefined,
  createdAt: undefined,
  updatedAt: undefined,
};
const job: JobView = { id: 88, name: "build", status: "in_progress", runnerName: "garm-busy", repository: "acme/app", startedAt: new Date().toISOString(), createdAt: undefined, updatedAt: undefined };
// A drain that would wait ten minutes between passes and an hour in all: only the cancellation can end it soon.
const options = { timeoutSeconds: 3600, pollSeconds: 600, jobStaleAfterHours: 120 };

/** A scale set with one runner running a job, and a client that records every call. */
function busyScaleSet() {
  const client = {
    updateScaleSet: sinon.stub().resolves({}),
    listScaleSetInstances: sinon.stub().resolves([busy]),
    listJobs: sinon.stub().resolves([job]),
    deleteInstance: sinon.stub().resolves(),
    deleteScaleSet: sinon.stub().resolves(),
    getScaleSet: sinon.stub().resolves(ours),
  };
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(`warning: ${l}`) };
  const calls = () => Object.values(client).reduce((n, stub) => n + stub.callCount, 0);
  return { client, log, lines, calls };
}

/** Runs `retire` until its first pass has read the jobs, cancels, and returns how long it took to fail and why. */
async function cancelDuringWait(retire: () => Promise<unknown>, cancellation: AbortController, h: ReturnType<typeof busyScaleSet>) {
  const outcome = retire().then(
    () => assert.fail("the retire finished instead of being cancelled"),
    (err: unknown) => err as Error,
  );
  while (h.client.listJobs.callCount === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  // Let the pass reach its wait.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const before = h.calls();
  const cancelledAt = Date.now();
  cancelNow(cancellation, "the engine asked to cancel (Ctrl-C)");
  const err = await outcome;
  return { err, ms: Date.now() - cancelledAt, callsAfter: h.calls() - before };
}

function assertCancelledDrain(err: Error, ms: number, callsAfter: number, h: ReturnType<typeof busyScaleSet>) {
  assert.ok(ms < 1000, `the drain ended ${ms} ms after the cancellation`);
  assert.ok(err instanceof DrainError, `a DrainError, not ${String(err)}`);
  assert.equal(err.message.split("\n").length, 1, "one line");
  assert.match(
    err.message,
    /^GarmScaleSet ci-small-42e04976 \(id 12\): cancelled while draining: the scale set stays disabled, its runners as last seen: 1 busy \[garm-busy: job "build" \(id 88\) in_progress\]; running jobs are not interrupted\. /,
  );
  assert.match(err.message, /the next `pulumi destroy` retries the delete/);
  assert.equal(callsAfter, 0, "no GARM call after the cancellation");
  assert.equal(h.client.deleteInstance.callCount, 0, "the busy runner is never removed");
  assert.equal(h.client.deleteScaleSet.callCount, 0);
}

describe("cancellation", () => {
  it("ends a drain's poll wait within a second with where it stopped and what the next run does", async () => {
    const h = busyScaleSet();
    const cancellation = newCancellation();
    const cancel = cancellation.signal;
    const deps = { client: h.client as unknown as DrainClient, log: h.log, now: Date.now, sleep: (ms: number) => sleepUnlessCancelled(ms, cancel), cancel };
    const { err, ms, callsAfter } = await cancelDuringWait(() => retireScaleSet(target, options, deps), cancellation, h);
    assertCancelledDrain(err, ms, callsAfter, h);
    assert.equal(h.client.updateScaleSet.callCount, 1, "disabled once, before the cancellation");
  });

  it("ends a drain's wait on GARM's events within a second as well", async () => {
    const h = busyScaleSet();
    const cancellation = newCancellation();
    const cancel = cancellation.signal;
    // A socket that is live and never reports anything: the wait would last the fallback interval.
    const events = { liveSince: Date.now() - 1000, subscribe: () => () => undefined, open: () => undefined } as unknown as GarmEvents;
    const waiter = changeWaiter(events, scaleSetConcern(12), { cancel });
    // The plain sleep must not be what ends the wait.
    const sleep = () => new Promise<void>(() => undefined);
    const deps = { client: h.client as unknown as DrainClient, log: h.log, now: Date.now, sleep, wait: waiter.wait, cadence: waiter.cadence, cancel };
    const { err, ms, callsAfter } = await cancelDuringWait(() => retireScaleSet(target, options, deps).finally(() => waiter.close()), cancellation, h);
    assertCancelledDrain(err, ms, callsAfter, h);
  });

  it("says nothing was changed when the cancellation comes before the first pass", async () => {
    const h = busyScaleSet();
    const cancellation = newCancellation();
    cancelNow(cancellation, "test");
    const deps = { client: h.client as unknown as DrainClient, log: h.log, now: Date.now, sleep: async () => undefined, cancel: cancellation.signal };
    await assert.rejects(retireScaleSet(target, options, deps), /cancelled before it was changed: the scale set is as it was\. Pulumi keeps it in its state/);
    assert.equal(h.calls(), 0);
  });

  it("ends a replacement's readiness wait within a second", async () => {
    const cancellation = newCancellation();
    const cancel = cancellation.signal;
    const client = { listScaleSetInstances: sinon.stub().resolves([]) };
    const log = { info: () => undefined, warn: () => undefined };
    const waiting = waitForRunners("GarmScaleSet ci-small-1a2b3c4d (id 13)", 13, 1, 3_600_000, 600_000, { client, log, now: Date.now, sleep: (ms) => sleepUnlessCancelled(ms, cancel) });
    while (client.listScaleSetInstances.callCount === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    cancelNow(cancellation, "test");
    await assert.rejects(waiting, CancelledError);
    assert.ok(Date.now() - started < 1000);
    assert.equal(client.listScaleSetInstances.callCount, 1);
  });

  describe("the GARM transport", () => {
    let stub: HttpStub | undefined;
    let client: GarmClient | undefined;
    afterEach(async () => {
      await client?.close();
      await stub?.close();
    });

    it("sends no request once cancelled, and ends a read in flight with the cancellation", async () => {
      let hold = false;
      stub = await startHttpStub((req, res) => {
        if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: "t1" });
        // A read GARM is slow to answer: only the cancellation ends it before the request timeout.
        if (hold) return void setTimeout(() => sendJson(res, 200, []), 20_000);
        return sendJson(res, 200, []);
      });
      const cancellation = newCancellation();
      client = new GarmClient({ url: stub.url, username: "admin", password: "pw-12345678", cancel: cancellation.signal });
      assert.deepEqual(await client.listJobs(), []);
      hold = true;
      const inFlight = client.listJobs();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      cancelNow(cancellation, "test");
      await assert.rejects(inFlight, CancelledError);
      assert.ok(Date.now() - started < 1000);
      const sent = stub.requests.length;
      await assert.rejects(client.updateScaleSet(12, { enabled: false }), CancelledError);
      assert.equal(stub.requests.length, sent, "the write was never sent");
    });
  });

  it("withdraws a cancelled GARM restart request before its batch runs, so the command never runs", async () => {
    const run = sinon.stub().resolves({ code: 0, signal: null, output: "", timedOut: false });
    const coordinator = new RestartCoordinator({ run, quietMs: 50 });
    const cancellation = newCancellation();
    const request = coordinator.request("systemctl restart garm", 60_000, undefined, cancellation.signal);
    cancelNow(cancellation, "test");
    await assert.rejects(request, CancelledError);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(run.callCount, 0);
  });

  describe("the dynamic provider's signal handler", () => {
    /** A stand-in for `process`: records the signals it re-raises. */
    function fakeProcess() {
      const emitter = new EventEmitter();
      const raised: string[] = [];
      return Object.assign(emitter, { pid: 4242, raised, kill: (_pid: number, signal: NodeJS.Signals) => raised.push(signal) });
    }

    it("aborts the cancellation on SIGINT and ends the process by the same signal at once when nothing waits", () => {
      const proc = fakeProcess();
      const cancellation = newCancellation();
      cancelOnSignals(cancellation, proc);
      proc.emit("SIGINT");
      assert.ok(cancellation.signal.aborted);
      assert.ok(cancellation.signal.reason instanceof CancelledError);
      assert.deepEqual(proc.raised, ["SIGINT"]);
      assert.equal(proc.listenerCount("SIGINT") + proc.listenerCount("SIGTERM"), 0, "a second signal gets Node's default action");
    });

    it("gives an ended wait the grace period to log before re-raising SIGTERM", async () => {
      const proc = fakeProcess();
      const cancellation = newCancellation();
      cancelOnSignals(cancellation, proc, 50);
      const wait = sleepUnlessCancelled(60_000, cancellation.signal).catch((err: unknown) => err);
      proc.emit("SIGTERM");
      assert.ok((await wait) instanceof CancelledError);
      assert.deepEqual(proc.raised, [], "not yet");
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(proc.raised, ["SIGTERM"]);
    });
  });
});
