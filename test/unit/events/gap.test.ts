// An event that arrives while a drain's or readiness wait's pass is still reading GARM (issue 35 item 1): GARM's
// events are shared by every wait of the process, so the socket is live long before this wait; a change GARM reports
// between the pass's reads and its wait must end the wait, not be lost behind the 3-minute fallback poll. The fake
// event source, GARM's answers and the waiter's sleeps are all in the test's hands: no timer decides anything here.
import { strict as assert } from "node:assert";
import * as sinon from "sinon";
import type { InstanceView, JobView, ScaleSetView } from "../../../provider/garm/client";
import type { EventListener, GarmEvent, GarmEvents } from "../../../provider/garm/events";
import { GarmApiError } from "../../../provider/garm/errors";
import { changeWaiter, scaleSetConcern } from "../../../provider/common/events-wait";
import { retireScaleSet } from "../../../provider/kinds/scaleset/drain";
import { waitForRunners } from "../../../provider/kinds/scaleset/readiness";

const quiet = { info: () => undefined, warn: () => undefined };
const ev = (entityType: string, operation: string, payload: Record<string, unknown>): GarmEvent => ({ entityType, operation, payload });

/** A promise the test settles. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The process's events socket as a wait sees it: live since `liveSince` (set it to model a drop and a reconnect),
 * and the listeners subscribed now, to which `emit` hands an event at once, as the socket's message handler does.
 */
function fakeSocket(liveSince: number | undefined) {
  const listeners = new Set<EventListener>();
  const source = {
    liveSince: liveSince as number | undefined,
    subscribe: sinon.spy((listener: EventListener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    }),
    open: sinon.spy(),
  };
  return {
    events: source as unknown as GarmEvents,
    source,
    listeners,
    emit: (event: GarmEvent) => [...listeners].forEach((l) => l.onEvent(event)),
    /** The socket closes, as GarmEvents' fail does: the live period ends, and listeners hear of it. */
    lose: () => {
      source.liveSince = undefined;
      [...listeners].forEach((l) => l.onLost());
    },
  };
}

/**
 * The waiter's sleeps. A wait for a change (it passes an abort signal) ends only on a wake or when the test lets it;
 * `started` resolves with the length of the first such wait, so the test sees a wait that would sleep out a timer.
 * Holds after a wake (no signal) end at once.
 */
function scriptedSleeps() {
  const waits: { ms: number; release: () => void }[] = [];
  const first = deferred<number>();
  const sleep = (ms: number, signal?: AbortSignal) => {
    if (!signal) return Promise.resolve();
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener("abort", () => resolve());
      waits.push({ ms, release: resolve });
      first.resolve(ms);
    });
  };
  return { sleep, waits, started: first.promise, releaseAll: () => waits.forEach((w) => w.release()) };
}

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
const ours = { id: 12, name: "ci-small-42e04976", instances: [{ name: "garm-busy" }] } as unknown as ScaleSetView;
const target = { id: 12, liveName: "ci-small-42e04976", owns: (v: ScaleSetView) => v.name === "ci-small-42e04976" };
// The drain of the report: a 120 s deadline, 5 s polls, and the 180 s fallback while events flow.
const options = { timeoutSeconds: 120, pollSeconds: 5, jobStaleAfterHours: 120 };
const notFound = new GarmApiError("not-found", "GET /scalesets/12", 404, "Not Found", "");

/**
 * A busy scale set whose first pass's job list is held until the test answers it: the gap between the pass's reads
 * and its wait. Its second pass finds no runners, and the delete goes through.
 */
function drainInGap() {
  const jobsAsked = deferred<void>();
  const jobsAnswer = deferred<JobView[]>();
  const secondList = deferred<void>();
  let lists = 0;
  const client = {
    getScaleSet: sinon.stub().onFirstCall().resolves(ours).onSecondCall().rejects(notFound),
    updateScaleSet: sinon.stub().resolves({}),
    listScaleSetInstances: sinon.stub().callsFake(async () => {
      if (++lists === 1) return [busy];
      secondList.resolve();
      return [];
    }),
    listJobs: sinon.stub().callsFake(() => {
      jobsAsked.resolve();
      return jobsAnswer.promise;
    }),
    deleteInstance: sinon.stub().resolves(),
    deleteScaleSet: sinon.stub().resolves(),
  };
  return { client, jobsAsked: jobsAsked.promise, answerJobs: jobsAnswer.resolve, secondList: secondList.promise };
}

/** What came first once the pass went on: its next read (the wait ended on the event) or a wait sleeping out a timer. */
async function nextStep(next: Promise<void>, sleeps: ReturnType<typeof scriptedSleeps>): Promise<string> {
  return Promise.race([next.then(() => "re-read"), sleeps.started.then((ms) => `a wait of ${ms} ms`)]);
}

describe("events: a change GARM reports while the pass reads is not lost (issue 35 item 1)", () => {
  const gapEvents: [string, GarmEvent][] = [
    ["the runner's teardown (an instance delete, instances.go:193-195)", ev("instance", "delete", { id: "garm-busy", name: "garm-busy", scale_set_id: 12 })],
    ["its job's completion (a job row names only its runner)", ev("job", "update", { id: 88, runner_name: "garm-busy", status: "completed" })],
  ];
  for (const [what, event] of gapEvents) {
    it(`a drain's first wait ends on ${what} that came between the pass's reads and the wait`, async () => {
      // The shared socket came up long before this drain.
      const socket = fakeSocket(Date.now() - 60_000);
      const sleeps = scriptedSleeps();
      const h = drainInGap();
      const waiter = changeWaiter(socket.events, scaleSetConcern(12), { sleep: sleeps.sleep, fallbackMs: 180_000 });
      const deps = { client: h.client, log: quiet, now: Date.now, sleep: () => assert.fail("the drain polls without its waiter"), wait: waiter.wait, cadence: waiter.cadence };
      const retiring = retireScaleSet(target, options, deps).finally(() => waiter.close());
      try {
        await h.jobsAsked;
        // GARM reports the change while the job list is queued behind the transport's slots; the jobs answer was
        // read before it.
        socket.emit(event);
        h.answerJobs([job]);
        const step = await nextStep(h.secondList, sleeps);
        assert.equal(step, "re-read", `the event was lost: the drain's first wait would sleep ${step.replace(/^a wait of /, "")} instead of re-reading GARM`);
        assert.deepEqual(await retiring, { kind: "deleted", drained: true });
        assert.equal(h.client.listScaleSetInstances.callCount, 2);
        assert.equal(h.client.deleteInstance.callCount, 0, "the busy runner was never removed");
      } finally {
        sleeps.releaseAll();
        await retiring.catch(() => undefined);
      }
    });
  }

  it("a readiness wait's first wait ends on a runner coming up between its read and the wait", async () => {
    const socket = fakeSocket(Date.now() - 60_000);
    const sleeps = scriptedSleeps();
    const asked = deferred<void>();
    const firstAnswer = deferred<InstanceView[]>();
    const secondList = deferred<void>();
    const booting = { ...busy, name: "garm-new", scaleSetId: 13, status: "pending_create", runnerStatus: "" };
    const ready = { ...booting, status: "running", runnerStatus: "idle" };
    let lists = 0;
    const client = {
      listScaleSetInstances: sinon.stub().callsFake(() => {
        if (++lists === 1) {
          asked.resolve();
          return firstAnswer.promise;
        }
        secondList.resolve();
        return Promise.resolve([ready]);
      }),
    };
    // As in awaitSuccessorReadiness: the waiter is made, then the readiness wait reads.
    const waiter = changeWaiter(socket.events, scaleSetConcern(13), { sleep: sleeps.sleep, fallbackMs: 180_000 });
    const waiting = waitForRunners("GarmScaleSet ci-small-1a2b3c4d (id 13)", 13, 1, 120_000, 5000, {
      client,
      log: quiet,
      now: Date.now,
      sleep: () => assert.fail("the readiness wait polls without its waiter"),
      wait: waiter.wait,
    }).finally(() => waiter.close());
    try {
      await asked.promise;
      socket.emit(ev("instance", "update", { name: "garm-new", scale_set_id: 13, status: "running", runner_status: "idle" }));
      firstAnswer.resolve([booting]);
      const step = await nextStep(secondList.promise, sleeps);
      assert.equal(step, "re-read", `the event was lost: the readiness wait would sleep ${step.replace(/^a wait of /, "")} instead of re-reading GARM`);
      assert.equal(await waiting, true);
      assert.equal(client.listScaleSetInstances.callCount, 2);
    } finally {
      sleeps.releaseAll();
      await waiting.catch(() => undefined);
    }
  });
});

describe("events: a wait trusts events only from its own subscription on (issue 35 item 1)", () => {
  /** Makes a waiter, runs `pass` as its first pass would, then starts its first wait: the length that wait sleeps. */
  async function firstWait(socket: ReturnType<typeof fakeSocket>, pass: () => void = () => undefined): Promise<number> {
    const sleeps = scriptedSleeps();
    const waiter = changeWaiter(socket.events, scaleSetConcern(12), { sleep: sleeps.sleep, fallbackMs: 180_000 });
    try {
      pass();
      const waiting = waiter.wait(5000, 600_000, ["garm-busy"]);
      const ms = await sleeps.started;
      sleeps.releaseAll();
      await waiting;
      return ms;
    } finally {
      waiter.close();
    }
  }

  it("listens from its creation, before the caller's first read, without opening a socket for a wait that never comes", () => {
    const socket = fakeSocket(undefined);
    const waiter = changeWaiter(socket.events, scaleSetConcern(12));
    assert.equal(socket.listeners.size, 1, "subscribed when made");
    waiter.close();
    assert.equal(socket.listeners.size, 0);
    assert.equal(socket.source.open.callCount, 0, "a drain that never waits (an empty scale set) opens no socket");
  });

  it("waits the fallback interval when the socket was live from before its subscription", async () => {
    assert.equal(await firstWait(fakeSocket(Date.now() - 60_000)), 180_000);
  });

  it("polls at the caller's interval when the socket was down at its subscription and came up during the pass", async () => {
    const socket = fakeSocket(undefined);
    assert.equal(await firstWait(socket, () => (socket.source.liveSince = Date.now() + 1)), 5000);
  });

  it("polls at the caller's interval when the socket dropped and came back during the pass, though the loss was not reported", async () => {
    const socket = fakeSocket(Date.now() - 60_000);
    // A new live period: events between the two were not sent to anyone.
    assert.equal(await firstWait(socket, () => (socket.source.liveSince = Date.now() + 1)), 5000);
  });

  it("re-reads at once when the socket reports a loss during the pass", async () => {
    const socket = fakeSocket(Date.now() - 60_000);
    const sleeps = scriptedSleeps();
    const waiter = changeWaiter(socket.events, scaleSetConcern(12), { sleep: sleeps.sleep, fallbackMs: 180_000 });
    socket.lose();
    const waiting = waiter.wait(5000, 600_000, ["garm-busy"]);
    const step = await Promise.race([waiting.then(() => "returned"), sleeps.started.then((ms) => `a wait of ${ms} ms`)]);
    sleeps.releaseAll();
    await waiting;
    waiter.close();
    assert.equal(step, "returned", "the wait returned at once for a re-read");
  });

  it("does not wake on an event during the pass that concerns none of the runners the pass found", async () => {
    const socket = fakeSocket(Date.now() - 60_000);
    const ms = await firstWait(socket, () => socket.emit(ev("job", "update", { runner_name: "garm-other", status: "completed" })));
    assert.equal(ms, 180_000);
  });
});
