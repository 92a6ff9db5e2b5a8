// A label change's old generation is retired only once its successor is ready, whether the create that made the
// successor started the retirement (succession.ts) or a later run's delete finds the successor by name; and the
// replacement's create does not hold the engine's slot while the runners boot. GARM's worker is ticked by hand here,
// so "the new generation becomes ready late" is a decision of the test, not a race.
import { strict as assert } from "node:assert";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { liveName } from "../../../provider/runners/naming";
import { GARM_INPUT, RETAIN_INPUT } from "../../../provider/registry/kinds";
import type { Simulator } from "../../../simulator";
import { type Fixture, baseInputs, sleep, startFixture } from "./fixture";

const NEW_LABELS = ["linux", "x64", "gpu"];

/** Ticks GARM's worker every 25 ms until stopped. */
function ticking(sim: Simulator): () => void {
  const timer = setInterval(() => void sim.tick().catch(() => {}), 25);
  return () => clearInterval(timer);
}

async function until(cond: () => boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) if (cond()) return true;
  return false;
}

/** Ticks until every scale set has an idle runner. */
async function allIdle(sim: Simulator): Promise<void> {
  const stop = ticking(sim);
  try {
    const idle = () => new Set(sim.instances().filter((r) => r.status === "running" && r.runnerStatus === "idle").map((r) => r.scaleSetId));
    assert.ok(await until(() => sim.scaleSets().every((s) => idle().has(s.id))), "every scale set got an idle runner");
  } finally {
    stop();
  }
}

interface Watched {
  /** Per scale set name: the sample at which its new generation first had an idle runner, and its old one was first disabled or gone. */
  readonly readyAt: Map<string, number>;
  readonly retiredAt: Map<string, number>;
  /** Samples in which a scale set had no enabled generation. */
  gaps: number;
  stop(): void;
}

/** Samples GARM every 10 ms: when each successor was ready, when each old generation was disabled, and any gap. */
function watch(sim: Simulator, olds: ReadonlyMap<string, number>, news: ReadonlyMap<string, string>): Watched {
  let sample = 0;
  const w: Watched = { readyAt: new Map(), retiredAt: new Map(), gaps: 0, stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    sample++;
    const sets = sim.scaleSets();
    const idle = new Set(sim.instances().filter((r) => r.status === "running" && r.runnerStatus === "idle").map((r) => r.scaleSetId));
    for (const [name, oldId] of olds) {
      const old = sets.find((s) => s.id === oldId);
      const next = sets.find((s) => s.name === news.get(name));
      if (next && idle.has(next.id) && !w.readyAt.has(name)) w.readyAt.set(name, sample);
      if (!old?.enabled && !w.retiredAt.has(name)) w.retiredAt.set(name, sample);
      if (!old?.enabled && !next?.enabled) w.gaps++;
    }
  }, 10);
  return w;
}

/** The old generation of every scale set was disabled only at or after the sample that saw its successor ready. */
function assertSuccessorsFirst(w: Watched, names: readonly string[]): void {
  for (const name of names) {
    const ready = w.readyAt.get(name);
    const retired = w.retiredAt.get(name);
    assert.ok(ready !== undefined && retired !== undefined, `${name}: successor ready at sample ${ready}, old retired at ${retired}`);
    assert.ok(ready <= retired, `${name}: the old generation was disabled (sample ${retired}) before its successor was ready (sample ${ready})`);
  }
  assert.equal(w.gaps, 0, "every scale set had an enabled generation at every sample");
}

describe("GarmScaleSet label change: the old generation retires after its successor is ready", function () {
  this.timeout(120_000);
  let fx: Fixture;
  let stopTicking = () => {};
  afterEach(async () => {
    stopTicking();
    await fx?.close();
  });

  it("creates the three replacements one after another without waiting for runners, and disables no old generation before its successor is ready", async () => {
    fx = await startFixture({ tickMs: 0 });
    // One step at a time: a create that waited for its runners would keep the next create from starting.
    const engine = engineForGarm(fx.sim, "succession", "serial", { parallel: 1 });
    const names = ["a", "b", "c"];
    const decls = (labels: string[]) => names.map((n) => fx.scaleSet(n, { name: `ci-${n}`, minIdleRunners: 1, labels }));
    const first = await engine.up(decls(baseInputs.labels));
    assert.ok(first.ok, JSON.stringify(first.errors));
    await allIdle(fx.sim);
    const olds = new Map(names.map((n) => [n, fx.sim.scaleSets().find((s) => s.name.startsWith(`ci-${n}-`))!.id]));
    const news = new Map(names.map((n) => [n, liveName(`ci-${n}`, NEW_LABELS, "fake", "hashed")]));
    fx.sim.clearRequests();

    const watched = watch(fx.sim, olds, news);
    const up = engine.up(decls(NEW_LABELS));
    // No tick yet: no new runner can boot, so only creates that do not wait for runners all reach GARM.
    const posts = () => fx.sim.requests().filter((r) => r.method === "POST" && /\/organizations\/[^/]+\/scalesets$/.test(r.path)).length;
    const allPosted = await until(() => posts() === 3, 15_000);
    await sleep(300);
    const enabledWhileBooting = olds.size === fx.sim.scaleSets().filter((s) => [...olds.values()].includes(s.id) && s.enabled).length;
    stopTicking = ticking(fx.sim);
    const result = await up;
    watched.stop();
    assert.ok(result.ok, JSON.stringify(result.errors));
    assert.ok(allPosted, `the three creates reached GARM before any new runner could boot (${posts()} did)`);
    assert.ok(enabledWhileBooting, "while the new runners could not boot, every old generation stayed enabled");
    assertSuccessorsFirst(watched, names);
    assert.deepEqual(fx.sim.scaleSets().map((s) => s.name).sort(), [...news.values()].sort());
    // In GARM's request log too: for every scale set, its successor was read after the create, before the old one's disable.
    const calls = fx.sim.requests().map((r) => `${r.method} ${r.path}`);
    for (const name of names) {
      const next = fx.sim.scaleSets().find((s) => s.name === news.get(name))!;
      const disabled = calls.indexOf(`PUT /api/v1/scalesets/${olds.get(name)}`);
      const lastRead = calls.findLastIndex((c, i) => i < disabled && c.startsWith(`GET /api/v1/scalesets/${next.id}`));
      assert.ok(disabled > 0 && lastRead >= 0, `${name}: successor ${next.id} read (at ${lastRead}) before the old one's disable (at ${disabled})`);
    }
  });

  it("a run that stops after the replacement's create leaves the old generation serving; the next up waits for the successor before it deletes the old one", async () => {
    fx = await startFixture({ tickMs: 0 });
    const engine = engineForGarm(fx.sim, "succession", "stopped", { parallel: 1 });
    const small = (labels: string[]) => fx.scaleSet("small", { minIdleRunners: 1, labels });
    const first = await engine.up([small(baseInputs.labels)]);
    assert.ok(first.ok, JSON.stringify(first.errors));
    await allIdle(fx.sim);
    const [old] = fx.sim.scaleSets();
    // Another stack holds the name "other" will ask for, so its create fails after small's and the run stops there.
    const elsewhere = await engineForGarm(fx.sim, "succession", "elsewhere").up([fx.scaleSet("other", { name: "ci-other" })]);
    assert.ok(elsewhere.ok, JSON.stringify(elsewhere.errors));
    const other = fx.scaleSet("other", { name: "ci-other" });

    const stopped = await engine.up([small(NEW_LABELS), other]);
    assert.equal(stopped.ok, false, "the run stops at other's create");
    const next = fx.sim.scaleSets().find((s) => s.name === liveName("ci-small", NEW_LABELS, "fake", "hashed"));
    assert.ok(next?.enabled, "the new generation was created");
    assert.equal(fx.sim.scaleSets().find((s) => s.id === old.id)?.enabled, true, "its successor never got ready, so the old generation still serves");
    assert.ok(engine.state().resources.some((r) => r.id === String(old.id) && r.pendingDelete), "the old generation is a pending delete");

    // The next up retries that delete in a new provider process, which never saw the create: it finds the successor by
    // name and waits for its runners, which boot only once that delete has begun (it says it waits, or reads the old one).
    const watched = watch(fx.sim, new Map([["small", old.id]]), new Map([["small", next.name]]));
    fx.sim.clearRequests();
    const logsBefore = engine.logs.length;
    const finishing = engine.up([small(NEW_LABELS)]);
    const deleting = () =>
      engine.logs.slice(logsBefore).some((l) => /waiting for 1 more runner/.test(l)) ||
      fx.sim.requests().some((r) => r.method === "GET" && r.path.endsWith(`/scalesets/${old.id}`));
    assert.ok(await until(deleting, 60_000), "the pending delete began");
    await sleep(500);
    const stillEnabled = fx.sim.scaleSets().find((s) => s.id === old.id)?.enabled === true;
    stopTicking = ticking(fx.sim);
    const finished = await finishing;
    watched.stop();
    assert.ok(finished.ok, JSON.stringify(finished.errors));
    assert.ok(stillEnabled, "the retried delete did not disable the old generation while its successor had no idle runner");
    assertSuccessorsFirst(watched, ["small"]);
    assert.deepEqual(fx.sim.scaleSets().map((s) => s.name).sort(), [next.name, liveName("ci-other", baseInputs.labels, "fake", "hashed")].sort());
  });

  it("with retainOnDelete a label change leaves the old generation as it is: the engine never deletes it, so nothing retires it", async () => {
    fx = await startFixture({ tickMs: 0 });
    stopTicking = ticking(fx.sim);
    const engine = engineForGarm(fx.sim, "succession", "retained", { parallel: 1 });
    // What the TypeScript class sends for `retainOnDelete: true` (sdk/nodejs/resource-inputs.ts), with the option itself.
    const kept = (labels: string[]) => ({ ...fx.scaleSet("kept", { name: "ci-kept", minIdleRunners: 1, labels, [RETAIN_INPUT]: true }), retainOnDelete: true });
    // A scale set without the option changes labels in the same run: the engine's delete of its old generation waits for
    // its successor and its drain, so the run lasts until kept's successor is ready too, which is when a retirement
    // started by kept's create would disable kept's old generation.
    const other = (labels: string[]) => fx.scaleSet("other", { name: "ci-other", minIdleRunners: 1, labels });
    const first = await engine.up([kept(baseInputs.labels), other(baseInputs.labels)]);
    assert.ok(first.ok, JSON.stringify(first.errors));
    await allIdle(fx.sim);
    const old = fx.sim.scaleSets().find((s) => s.name.startsWith("ci-kept-"))!;
    const changed = await engine.up([kept(NEW_LABELS), other(NEW_LABELS)]);
    assert.ok(changed.ok, JSON.stringify(changed.errors));
    const names = fx.sim.scaleSets().map((s) => s.name).sort();
    assert.deepEqual(names, [old.name, liveName("ci-kept", NEW_LABELS, "fake", "hashed"), liveName("ci-other", NEW_LABELS, "fake", "hashed")].sort());
    const still = fx.sim.scaleSets().find((s) => s.id === old.id);
    assert.ok(still?.enabled && still.maxRunners === old.maxRunners, `the retained old generation ${old.name} is still there, enabled, as it was`);
    assert.ok(!engine.state().resources.some((r) => r.id === String(old.id)), "Pulumi forgot it, as retainOnDelete does");
    assert.ok(!fx.sim.requests().some((r) => r.method !== "GET" && r.path === `/api/v1/scalesets/${old.id}`), "no call changed or deleted it");
  });

  it("in two GARMs at once, each old generation is retired in its own GARM, though both hold the same ids and names", async () => {
    // GARM ids count from 1 in every GARM, and one provider process serves the resources of every GARM a program
    // names: what the process remembers of a replacement is kept per GARM. Both orders of the two resources run, as
    // which one's diff, create and delete comes first decides which memory the other would have found.
    fx = await startFixture({ tickMs: 0 });
    const other = await startFixture({ tickMs: 0 });
    const stopOther = ticking(other.sim);
    try {
      const engine = engineForGarm(fx.sim, "succession", "two-garms");
      const garmOf = (f: Fixture) => ({ url: f.sim.url, username: f.sim.username, password: f.sim.password });
      const here = (labels: string[]) => fx.scaleSet("here", { minIdleRunners: 1, labels, [GARM_INPUT]: garmOf(fx) });
      const there = (labels: string[]) => fx.scaleSet("there", { minIdleRunners: 1, labels, [GARM_INPUT]: garmOf(other) });
      stopTicking = ticking(fx.sim);
      const first = await engine.up([here(baseInputs.labels), there(baseInputs.labels)]);
      assert.ok(first.ok, JSON.stringify(first.errors));
      for (const [labels, order] of [
        [NEW_LABELS, "there first"],
        [baseInputs.labels, "here first"],
      ] as const) {
        await Promise.all([allIdle(fx.sim), allIdle(other.sim)]);
        const held = (sim: Simulator) => sim.scaleSets().map((s) => `${s.id} ${s.name}`);
        assert.deepEqual(held(other.sim), held(fx.sim), "the same id and live name in both GARMs");
        assert.equal(held(fx.sim).length, 1);
        const decls = order === "there first" ? [there([...labels]), here([...labels])] : [here([...labels]), there([...labels])];
        const result = await engine.up(decls);
        assert.ok(result.ok, JSON.stringify(result.errors));
        const renamed = liveName("ci-small", [...labels], "fake", "hashed");
        assert.deepEqual(fx.sim.scaleSets().map((s) => s.name), [renamed], `${order}: here, only the new generation is left`);
        assert.deepEqual(other.sim.scaleSets().map((s) => s.name), [renamed], `${order}: there, only the new generation is left`);
      }
    } finally {
      stopOther();
      await other.close();
    }
  });
});
