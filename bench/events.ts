// Issue 15's measurements: drains and readiness waits woken by GARM's events socket versus polling, against the
// simulator in this process (its events socket imitates GARM v0.2.1's). Both modes run in one bench run.
import { readFileSync, readdirSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { GarmClient } from "../provider/garm/client";
import { GarmEvents } from "../provider/garm/events";
import { type WaiterOptions, changeWaiter, scaleSetConcern } from "../provider/common/events-wait";
import { checkScaleSetInputs } from "../provider/kinds/scaleset/check";
import { DRAIN_DEFAULTS } from "../provider/kinds/scaleset/inputs";
import { waitForRunners } from "../provider/kinds/scaleset/readiness";
import { scaleSetProviderWith } from "../provider/kinds/scaleset/resource";
import { scaleSetProvider } from "../sdk/nodejs/shim";
import { type ResourceDecl, startEngine } from "../harness/engine";
import { REPO_ROOT } from "../harness/engine-for-garm";
import { type Simulator, startSimulator } from "../simulator";
import { simulatorScaleSetInputs } from "../harness/scaleset-inputs";

export interface Result {
  target: string;
  measured: string;
  met: boolean;
  details?: Record<string, unknown>;
}

type Mode = "events" | "polling";
const MODES: Mode[] = ["polling", "events"];
const silent = { info: () => {}, warn: () => {} };

/** A clock `scale` times faster than real time, for the provider only; GARM (the simulator) keeps real time. */
function fastClock(scale: number) {
  const start = Date.now();
  return {
    now: () => start + (Date.now() - start) * scale,
    sleep: (ms: number, signal?: AbortSignal) => delay(ms / scale, undefined, { signal }).then(
      () => undefined,
      () => undefined,
    ),
  };
}

interface Setup {
  sim: Simulator;
  client: GarmClient;
  events?: GarmEvents;
  impl: ReturnType<typeof scaleSetProviderWith>;
  close(): Promise<void>;
}

async function setup(mode: Mode, clock = fastClock(1), waiter: WaiterOptions = {}, tickMs = 25): Promise<Setup> {
  const sim = await startSimulator({ tickMs, consolidationMs: 400 });
  const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
  const events =
    mode === "events" ? new GarmEvents({ url: sim.url, login: (refused) => client.transport.socketLogin(refused), log: silent }) : undefined;
  const impl = scaleSetProviderWith({
    client: () => client,
    log: silent,
    now: clock.now,
    sleep: (ms) => clock.sleep(ms),
    events: () => events,
    waiter: { sleep: clock.sleep, ...waiter },
  });
  return {
    sim,
    client,
    events,
    impl,
    close: async () => {
      await events?.close();
      await client.close();
      await sim.stop();
    },
  };
}

const inputs = (name: string, extra: Record<string, unknown> = {}) =>
  checkScaleSetInputs(simulatorScaleSetInputs(name, { minIdleRunners: 0, enabled: true, ...extra })).inputs as never;

const restCalls = (sim: Simulator) => sim.requests().filter((r) => !r.path.endsWith("/auth/login"));

/** Resolves when `cond` holds, checking every millisecond; returns when that was. */
async function when(cond: () => boolean): Promise<number> {
  while (!cond()) await delay(1);
  return Date.now();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One busy runner; its job completes while the drain waits. Latency is measured against GARM's own teardown. */
async function oneDrain(mode: Mode): Promise<{ latencyMs: number; teardownMs: number }> {
  const s = await setup(mode);
  try {
    const created = (await s.impl.create(inputs("lat", { drain: { timeoutSeconds: 120, pollSeconds: DRAIN_DEFAULTS.pollSeconds } }))) as {
      id: string;
      outs: Record<string, unknown>;
    };
    const id = Number(created.id);
    const runner = s.sim.addRunner(id, { name: "garm-busy" });
    s.sim.startJob(runner);
    const deleting = s.impl.delete!(created.id, created.outs);
    // Let the drain settle into its wait; a random offset so polling is not always caught at the same phase.
    await delay(1500 + Math.random() * DRAIN_DEFAULTS.pollSeconds * 1000);
    const completed = Date.now();
    s.sim.completeJob(runner);
    const tornDown = when(() => !s.sim.instances().some((i) => i.scaleSetId === id));
    await deleting;
    const gone = Date.now();
    return { latencyMs: gone - completed, teardownMs: (await tornDown) - completed };
  } finally {
    await s.close();
  }
}

export async function drainLatency(): Promise<Result[]> {
  const runs = 3;
  const byMode: Record<Mode, { latencyMs: number; teardownMs: number }[]> = { polling: [], events: [] };
  for (let i = 0; i < runs; i++) for (const mode of MODES) byMode[mode].push(await oneDrain(mode));
  const overhead = (mode: Mode) => median(byMode[mode].map((r) => r.latencyMs - r.teardownMs));
  const latency = (mode: Mode) => median(byMode[mode].map((r) => r.latencyMs));
  const teardown = median([...byMode.polling, ...byMode.events].map((r) => r.teardownMs));
  return [
    {
      target: "drain latency (events): the scale set is gone within GARM's own teardown plus 250 ms after the last job completes",
      measured:
        `events ${latency("events")} ms (GARM teardown ${teardown} ms + ${overhead("events")} ms) vs polling every ${DRAIN_DEFAULTS.pollSeconds}s ` +
        `${latency("polling")} ms (+${overhead("polling")} ms); medians of ${runs} runs against the simulator (consolidation 400 ms, tick 25 ms)`,
      met: overhead("events") <= 250,
      details: { runs: byMode, pollSeconds: DRAIN_DEFAULTS.pollSeconds },
    },
  ];
}

/** A drain of one busy runner whose job runs ten minutes, on a clock 60x faster than real time. */
async function tenMinuteJob(mode: Mode): Promise<{ calls: number; byPath: Record<string, number>; ok: boolean }> {
  const scale = 60;
  const clock = fastClock(scale);
  const s = await setup(mode, clock);
  try {
    const created = (await s.impl.create(inputs("ten", { drain: { timeoutSeconds: 1800, pollSeconds: DRAIN_DEFAULTS.pollSeconds } }))) as {
      id: string;
      outs: Record<string, unknown>;
    };
    const runner = s.sim.addRunner(Number(created.id), { name: "garm-busy" });
    s.sim.startJob(runner);
    s.sim.clearRequests();
    const deleting = s.impl.delete!(created.id, created.outs);
    await delay((10 * 60_000) / scale);
    s.sim.completeJob(runner);
    // GARM notices a finished job of a disabled scale set at its next consolidation; here at once, so both modes
    // see the same teardown.
    await s.sim.consolidate();
    let ok = true;
    await deleting.catch(() => (ok = false));
    const calls = restCalls(s.sim);
    const byPath: Record<string, number> = {};
    for (const c of calls) {
      const key = `${c.method} ${c.path.replace(/\/\d+/g, "/{id}")}`;
      byPath[key] = (byPath[key] ?? 0) + 1;
    }
    return { calls: calls.length, byPath, ok };
  } finally {
    await s.close();
  }
}

export async function restCallsForBusyRunner(): Promise<Result[]> {
  const byMode = { polling: await tenMinuteJob("polling"), events: await tenMinuteJob("events") };
  return [
    {
      target: "REST calls to drain one busy runner whose job runs 10 minutes (events): at most 20",
      measured: `events ${byMode.events.calls} calls vs polling every ${DRAIN_DEFAULTS.pollSeconds}s ${byMode.polling.calls} calls (provider clock 60x, simulator teardown in real time)`,
      met: byMode.events.ok && byMode.polling.ok && byMode.events.calls <= 20,
      details: byMode,
    },
  ];
}

/** A scale set scales up to one idle runner while the readiness wait runs; latency after the runner is ready. */
async function oneReadiness(mode: Mode): Promise<number> {
  const s = await setup(mode);
  try {
    const created = (await s.impl.create(inputs("ready"))) as { id: string };
    const id = Number(created.id);
    const waiter = s.events && changeWaiter(s.events, scaleSetConcern(id));
    const ready = () => s.sim.instances().some((i) => i.scaleSetId === id && i.status === "running" && i.runnerStatus === "idle");
    const waiting = waitForRunners("bench", id, 1, 60_000, DRAIN_DEFAULTS.pollSeconds * 1000, {
      client: s.client,
      log: silent,
      now: Date.now,
      sleep: (ms) => delay(ms),
      wait: waiter?.wait,
    });
    await delay(1000 + Math.random() * DRAIN_DEFAULTS.pollSeconds * 1000);
    await s.client.updateScaleSet(id, { min_idle_runners: 1 });
    const readyAt = await when(ready);
    await waiting;
    waiter?.close();
    return Date.now() - readyAt;
  } finally {
    await s.close();
  }
}

export async function readinessLatency(): Promise<Result[]> {
  const runs = 3;
  const byMode: Record<Mode, number[]> = { polling: [], events: [] };
  for (let i = 0; i < runs; i++) for (const mode of MODES) byMode[mode].push(await oneReadiness(mode));
  return [
    {
      target: "readiness wait of a replacement generation (events): ends within 250 ms after its last runner goes idle",
      measured: `events ${median(byMode.events)} ms vs polling every ${DRAIN_DEFAULTS.pollSeconds}s ${median(byMode.polling)} ms; medians of ${runs} runs`,
      met: median(byMode.events) <= 250,
      details: { latencyMs: byMode },
    },
  ];
}

/** Peak resident memory (VmHWM) of this process's child processes whose command line matches `pattern`, in MiB. */
function childPeakRssMiB(pattern: RegExp): number {
  let peak = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid) continue;
      if (!pattern.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"))) continue;
      peak = Math.max(peak, Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024);
    } catch {
      // exited meanwhile
    }
  }
  return peak;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/**
 * `pulumi destroy` (the engine harness, provider in its own process) of 100 scale sets, each with one busy runner whose
 * job ends at a random time within 60 s.
 */
async function hundredDestroy(mode: Mode): Promise<{ calls: number; p50Ms: number; p99Ms: number; peakRssMiB: number; ok: boolean }> {
  const count = 100;
  const sim = await startSimulator({ tickMs: 25, consolidationMs: 400 });
  const saved = process.env["PULUMI_GARM_EVENTS"];
  process.env["PULUMI_GARM_EVENTS"] = mode === "events" ? "on" : "off";
  try {
    const engine = startEngine({
      cwd: REPO_ROOT,
      project: "bench",
      stack: `hundred-destroy-${mode}`,
      config: { "garm:url": sim.url, "garm:username": sim.username },
      secretConfig: { "garm:password": sim.password },
      // `pulumi destroy` runs every delete at once by default.
      parallel: count,
    });
    const drain = { timeoutSeconds: 180, pollSeconds: DRAIN_DEFAULTS.pollSeconds };
    const program = Array.from({ length: count }, (_, i): ResourceDecl => ({
      name: `s${i}`,
      type: "GarmScaleSet",
      module: "garm",
      provider: scaleSetProvider,
      inputs: { name: `h${i}`, organization: "acme", providerName: "fake", image: "ubuntu", flavor: "small", labels: ["linux"], maxRunners: 2, minIdleRunners: 0, enabled: true, drain },
    }));
    const up = await engine.up(program);
    if (!up.ok) throw new Error(`up failed: ${JSON.stringify(up.errors)}`);
    const runners = sim.scaleSets().map((ss) => {
      const runner = sim.addRunner(ss.id, { name: `garm-busy-${ss.id}` });
      sim.startJob(runner);
      return { ss: ss.id, runner };
    });
    sim.clearRequests();
    // One watcher for all: each scale set's disappearance, checked every 5 ms.
    const goneAt = new Map<number, (at: number) => void>();
    const watcher = setInterval(() => {
      const present = new Set(sim.scaleSets().map((s) => s.id));
      for (const [id, resolve] of goneAt) if (!present.has(id)) (goneAt.delete(id), resolve(Date.now()));
    }, 5);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, childPeakRssMiB(/node/))), 250);
    const destroying = engine.destroy();
    const latencies: number[] = [];
    // The 60 s start once every drain has begun (all scale sets disabled), so the provider process's start is not counted.
    await when(() => sim.scaleSets().every((s) => !s.enabled));
    await Promise.all(
      runners.map(async ({ ss, runner }) => {
        await delay(Math.random() * 60_000);
        const ended = Date.now();
        sim.completeJob(runner);
        // GARM notices at its consolidation; the latency counts from the job's end to the scale set being gone.
        const gone = await new Promise<number>((resolve) => goneAt.set(ss, resolve));
        latencies.push(gone - ended);
      }),
    );
    const result = await destroying;
    clearInterval(sampler);
    clearInterval(watcher);
    return {
      calls: restCalls(sim).length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      peakRssMiB: Math.round(peak),
      ok: result.ok,
    };
  } finally {
    if (saved === undefined) delete process.env["PULUMI_GARM_EVENTS"];
    else process.env["PULUMI_GARM_EVENTS"] = saved;
    await sim.stop();
  }
}

export async function hundredScaleSetDestroy(): Promise<Result[]> {
  const byMode = { polling: await hundredDestroy("polling"), events: await hundredDestroy("events") };
  const e = byMode.events;
  const p = byMode.polling;
  return [
    {
      target: "destroy of 100 scale sets, each with a busy runner whose job ends within 60 s (events vs polling; recorded, no target)",
      measured:
        `events ${e.calls} REST calls, p50 ${e.p50Ms} ms / p99 ${e.p99Ms} ms after each job's end, provider peak RSS ${e.peakRssMiB} MiB; ` +
        `polling every ${DRAIN_DEFAULTS.pollSeconds}s ${p.calls} calls, p50 ${p.p50Ms} / p99 ${p.p99Ms} ms, ${p.peakRssMiB} MiB (simulator, consolidation 400 ms)`,
      met: e.ok && p.ok,
      details: byMode,
    },
  ];
}

/**
 * One runner that gets stuck (its provider teardown fails, so GARM keeps it pending_delete with a fault) under a scale
 * set being destroyed, drained on GARM's events. GARM's workers pick a runner up on their own schedule, not at once: a slow
 * simulator tick keeps it pending_force_delete for a while, as real GARM does, and every forced DELETE sent meanwhile
 * is an instance update GARM publishes (database/sql/instances.go L466-468), which wakes the drain again.
 */
async function stuckRunnerDrain(): Promise<{ forced: number; plain: number; ok: boolean; ms: number }> {
  const s = await setup("events", fastClock(1), {}, 1500);
  try {
    const created = (await s.impl.create(inputs("stuck", { drain: { timeoutSeconds: 60, pollSeconds: DRAIN_DEFAULTS.pollSeconds } }))) as {
      id: string;
      outs: Record<string, unknown>;
    };
    // Idle at first: the drain removes it, its teardown fails (pending_delete with a fault) while the drain already
    // waits on the socket, and the drain force-removes it.
    const runner = s.sim.addRunner(Number(created.id), { name: "garm-stuck" });
    s.sim.setTeardownFails(runner, true);
    s.sim.clearRequests();
    const started = Date.now();
    const ok = await s.impl.delete!(created.id, created.outs).then(
      () => true,
      () => false,
    );
    const deletes = s.sim.requests().filter((r) => r.method === "DELETE" && r.path.endsWith(`/instances/${runner}`));
    const forced = deletes.filter((r) => /[?&]forceRemove=true/.test(r.query)).length;
    return { forced, plain: deletes.length - forced, ok, ms: Date.now() - started };
  } finally {
    await s.close();
  }
}

export async function forcedDeletesForStuckRunner(): Promise<Result[]> {
  const runs = 3;
  const results: Awaited<ReturnType<typeof stuckRunnerDrain>>[] = [];
  for (let i = 0; i < runs; i++) results.push(await stuckRunnerDrain());
  return [
    {
      target: "forced DELETEs for one stuck runner while its scale set is drained on GARM's events: 1",
      measured:
        `${results.map((r) => r.forced).join(", ")} forced and ${results.map((r) => r.plain).join(", ")} plain DELETEs in ${runs} runs ` +
        `(drains of ${results.map((r) => r.ms).join(", ")} ms; simulator tick 1500 ms)`,
      met: results.every((r) => r.ok && r.forced === 1),
      details: { runs: results },
    },
  ];
}

/**
 * Issue 35 item 1: 100 drains in one process on one events socket that is live before they start (other drains of
 * the run opened it). Once half of them have listed their busy runner, every job ends and GARM tears the runners down
 * at once, while the rest of those first passes (job lists) wait behind the transport's 8 slots. A drain whose wait
 * counted as covered by events it was not listening for slept until its deadline (52 of 100 before the fix).
 */
async function tornDownMidPass(count: number): Promise<{ stalled: number; p50Ms: number; maxMs: number; ok: boolean }> {
  const sim = await startSimulator({ tickMs: 0, consolidationMs: 3_600_000 });
  const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
  const events = new GarmEvents({ url: sim.url, login: (refused) => client.transport.socketLogin(refused), log: silent });
  const impl = scaleSetProviderWith({ client: () => client, log: silent, now: Date.now, sleep: (ms) => delay(ms), events: () => events });
  let ticker: NodeJS.Timeout | undefined;
  try {
    const drain = { timeoutSeconds: 20, pollSeconds: DRAIN_DEFAULTS.pollSeconds };
    const made: { created: { id: string; outs: Record<string, unknown> }; runner: string }[] = [];
    for (let i = 0; i < count; i++) {
      const created = (await impl.create(inputs(`gap${i}`, { drain }))) as { id: string; outs: Record<string, unknown> };
      const runner = sim.addRunner(Number(created.id), { name: `garm-busy-${i}` });
      sim.startJob(runner);
      made.push({ created, runner });
    }
    const other = events.subscribe({ onEvent: () => {}, onLost: () => {} });
    await when(() => events.live);
    const started = Date.now();
    const deletes = made.map(({ created }) => impl.delete!(created.id, created.outs).then(() => Date.now() - started));
    const lists = () => sim.requests().filter((r) => r.method === "GET" && /^\/api\/v1\/scalesets\/\d+\/instances$/.test(r.path)).length;
    while (lists() < count / 2) await new Promise((resolve) => setImmediate(resolve));
    for (const { runner } of made) sim.completeJob(runner);
    await sim.consolidate();
    for (let t = 0; t < 6; t++) await sim.tick();
    ticker = setInterval(() => void sim.tick(), 25);
    const ms = (await Promise.all(deletes)).sort((a, b) => a - b);
    other();
    // Nothing holds a drain here longer than GARM's teardown and a pass or two: a wait of the poll interval is a stall.
    const stalled = ms.filter((m) => m >= drain.pollSeconds * 1000).length;
    return { stalled, p50Ms: median(ms), maxMs: ms[ms.length - 1], ok: stalled === 0 };
  } finally {
    if (ticker) clearInterval(ticker);
    await events.close();
    await client.close();
    await sim.stop();
  }
}

export async function drainsTornDownMidPass(): Promise<Result[]> {
  const r = await tornDownMidPass(100);
  return [
    {
      target: "100 drains on a live events socket whose runners are torn down while their first passes are queued: none waits for its deadline",
      measured: `${r.stalled} of 100 stalled; p50 ${r.p50Ms} ms, max ${r.maxMs} ms from the destroy's start (simulator, 20 s drain timeout)`,
      met: r.ok,
      details: r,
    },
  ];
}
