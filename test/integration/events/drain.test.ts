// Event-driven drains and readiness waits against the simulator's events socket, and their fallbacks: the socket
// refused, dropped mid-drain, silent (lost events), and busy with another scale set's events.
import { strict as assert } from "node:assert";
import { changeWaiter, scaleSetConcern } from "../../../provider/common/events-wait";
import { waitForRunners } from "../../../provider/kinds/scaleset/readiness";
import { type Simulator, startSimulator } from "../../../simulator";
import { type Harness, harness, sleep, until } from "./harness";

// A poll interval no test waits out: a drain that ends quickly was woken by an event.
const slowPoll = { timeoutSeconds: 60, pollSeconds: 30 };

describe("event-driven drains and readiness (GARM's events socket)", function () {
  this.timeout(30_000);
  let sim: Simulator;
  let h: Harness;
  beforeEach(async () => {
    sim = await startSimulator({ tickMs: 25, consolidationMs: 300 });
  });
  afterEach(async () => {
    await h?.close();
    await sim.stop();
  });

  async function busyScaleSet(name: string, drain: Record<string, number>) {
    const created = await h.create(name, { drain });
    const id = Number(created.id);
    const runner = sim.addRunner(id, { name: `garm-${name}-busy` });
    sim.startJob(runner);
    return { created, id, runner };
  }

  it("wakes on GARM's events: gone within GARM's teardown after the job completes, though the poll interval is 30 s", async () => {
    h = harness(sim, "events", { fallbackMs: 60_000 });
    const { created, runner } = await busyScaleSet("wake", slowPoll);
    const deleting = h.destroy(created);
    await sleep(1000);
    const completed = Date.now();
    sim.completeJob(runner);
    await deleting;
    const latency = Date.now() - completed;
    // GARM notices at the consolidation (300 ms) and tears down in ticks (25 ms).
    assert.ok(latency < 2000, `drain took ${latency} ms after the job completed`);
    assert.deepEqual(sim.scaleSets(), []);
  });

  it("an event for another scale set does not end the wait early", async () => {
    h = harness(sim, "events", { fallbackMs: 60_000 });
    const other = await h.create("other", { drain: slowPoll });
    const { created, id, runner } = await busyScaleSet("mine", slowPoll);
    const deleting = h.destroy(created);
    await until(() => h.events?.live === true);
    await sleep(300);
    const listsOfMine = () => sim.requests().filter((r) => r.path === `/api/v1/scalesets/${id}/instances`).length;
    const before = listsOfMine();
    const received = h.events!.received;
    // Runner rows and jobs of the other scale set change: GARM sends instance and job events for them.
    const theirs = sim.addRunner(Number(other.id), { name: "garm-other-1" });
    sim.startJob(theirs);
    sim.completeJob(theirs);
    await until(() => h.events!.received > received);
    await sleep(500);
    assert.equal(listsOfMine(), before, "the drain re-read GARM on another scale set's event");
    sim.completeJob(runner);
    await deleting;
    assert.deepEqual(sim.scaleSets().map((s) => s.id), [Number(other.id)]);
  });

  it("with the socket refused, drains by polling as before, with one warning line", async () => {
    sim.eventsSocket.mode = "refuse";
    h = harness(sim, "events");
    const { created, runner } = await busyScaleSet("refused", { timeoutSeconds: 60, pollSeconds: 1 });
    const deleting = h.destroy(created);
    await sleep(2500);
    sim.completeJob(runner);
    await deleting;
    assert.deepEqual(sim.scaleSets(), []);
    const warnings = h.lines.filter((l) => l.startsWith("warning:"));
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0], /refused its events socket \(HTTP 400\).*poll GARM every drain\.pollSeconds/);
    assert.ok(!/token|password/i.test(warnings[0]));
    assert.equal(h.events?.refused, true);
  });

  it("with the socket dropped mid-drain, re-reads at once, reconnects, and still ends on the job's events", async () => {
    h = harness(sim, "events", { fallbackMs: 60_000 });
    const { created, id, runner } = await busyScaleSet("dropped", slowPoll);
    const deleting = h.destroy(created);
    await until(() => h.events?.live === true);
    await sleep(300);
    const lists = () => sim.requests().filter((r) => r.path === `/api/v1/scalesets/${id}/instances`).length;
    const before = lists();
    sim.eventsSocket.drop();
    // Events may have been lost with the socket: the drain re-reads GARM now rather than at its next poll.
    await until(() => lists() > before, 2000);
    await until(() => sim.eventsSocket.openSockets() === 1 && h.events?.live === true, 5000);
    await sleep(100);
    const completed = Date.now();
    sim.completeJob(runner);
    await deleting;
    assert.ok(Date.now() - completed < 2000, `drain took ${Date.now() - completed} ms after the job completed`);
    assert.ok(sim.eventsSocket.upgrades >= 2, "the client reconnected");
  });

  it("with events lost (socket open but silent), the fallback interval still ends the drain", async () => {
    sim.eventsSocket.mode = "silent";
    h = harness(sim, "events", { fallbackMs: 2500 });
    const { created, id, runner } = await busyScaleSet("silent", { timeoutSeconds: 60, pollSeconds: 1 });
    const deleting = h.destroy(created);
    await until(() => h.events?.live === true);
    const lists = () => sim.requests().filter((r) => r.path === `/api/v1/scalesets/${id}/instances`).length;
    await sleep(1200);
    const before = lists();
    await sleep(2600);
    // While the socket is open it polls at the fallback interval, not every pollSeconds.
    assert.ok(lists() - before <= 2, `${lists() - before} passes in 2.6 s`);
    sim.completeJob(runner);
    const completed = Date.now();
    await deleting;
    const latency = Date.now() - completed;
    assert.ok(latency < 8000, `drain took ${latency} ms with lost events`);
    assert.deepEqual(sim.scaleSets(), []);
  });

  it("the readiness wait ends when the new generation's runners come up, though the poll interval is 30 s", async () => {
    h = harness(sim, "events", { fallbackMs: 60_000 });
    const created = await h.create("ready", { minIdleRunners: 0 });
    const id = Number(created.id);
    // Listening starts before the first read, as in awaitSuccessorReadiness.
    const waiter = changeWaiter(h.events!, scaleSetConcern(id), { fallbackMs: 60_000 });
    const started = Date.now();
    const waiting = waitForRunners("ready", id, 1, 30_000, 30_000, { client: h.client, log: { info: () => {}, warn: () => {} }, now: Date.now, sleep: async (ms) => void (await sleep(ms)), wait: waiter.wait });
    await sleep(300);
    // GARM scales up to one idle runner and boots it over a few worker ticks.
    await h.client.updateScaleSet(id, { min_idle_runners: 1 });
    assert.equal(await waiting, true);
    waiter.close();
    assert.ok(Date.now() - started < 5000);
  });
});

describe("events socket client (GarmEvents) against the simulator", function () {
  this.timeout(20_000);
  let sim: Simulator;
  let h: Harness;
  beforeEach(async () => {
    sim = await startSimulator({ tickMs: 0 });
  });
  afterEach(async () => {
    await h?.close();
    await sim.stop();
  });

  const listen = () => h.events!.subscribe({ onEvent: () => {}, onLost: () => {} });

  it("logs in again once when GARM refuses the session's token (401 before the upgrade, auth/jwt.go:89-97)", async () => {
    h = harness(sim, "events");
    await h.client.listJobs(); // a session token exists
    sim.invalidateTokens();
    const stop = listen();
    await until(() => h.events!.live);
    assert.equal(sim.eventsSocket.upgrades, 2);
    assert.deepEqual(h.lines, []);
    stop();
  });

  it("treats a rejected filter as a refusal: one warning line, then polling for the rest of the process", async () => {
    // GARM closes the socket on a filter it rejects (events.go:185-188), as on one naming a type it lacks.
    h = harness(sim, "events", {}, { filter: { filters: [{ "entity-type": "runner", operations: ["update"] }] } });
    const stop = listen();
    await until(() => h.events!.refused, 10_000);
    stop();
    assert.equal(h.lines.length, 1);
    assert.match(h.lines[0], /^warning: GARM at http:\/\/127\.0\.0\.1:\d+ closed its events socket 3 times as soon as it got the events filter; drains and readiness waits poll/);
    assert.equal(sim.eventsSocket.upgrades, 3);
  });

  it("takes GARM's rejection text, when it gets through, as a refusal at once", async () => {
    sim.eventsSocket.textBeforeClose = true;
    h = harness(sim, "events", {}, { filter: { filters: [{ "entity-type": "runner", operations: ["update"] }] } });
    const stop = listen();
    await until(() => h.events!.refused);
    stop();
    assert.equal(h.lines.length, 1);
    assert.match(h.lines[0], /^warning: GARM at http:\/\/127\.0\.0\.1:\d+ rejected the events filter \("invalid filter"\); drains and readiness waits poll/);
  });

  it("reconnects with backoff while GARM is down, and is live again when it is back", async () => {
    h = harness(sim, "events");
    const stop = listen();
    await until(() => h.events!.live);
    sim.stopServing("refuse");
    await until(() => !h.events!.live);
    await sleep(1500);
    const attempts = sim.eventsSocket.upgrades;
    await sim.resumeServing();
    await until(() => h.events!.live, 10_000);
    assert.ok(sim.eventsSocket.upgrades > attempts);
    assert.deepEqual(h.lines, [], "a dropped socket is not a refusal");
    stop();
  });
});
