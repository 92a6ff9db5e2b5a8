// Runs one campaign sequence against a fresh GARM simulator through the engine harness, checking the invariants after
// every step; then stops the faults and checks that one refresh and one up converge to the program, that a preview
// then shows no change, and that destroy leaves GARM empty.
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { liveName } from "../../../provider/runners/naming";
import { garmProviderProvider, scaleSetProvider } from "../../../sdk/nodejs/shim";
import { type Engine, type OperationResult, type ResourceDecl, ref } from "../../../harness/engine";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Simulator, startSimulator } from "../../../simulator";
import { providerInputs } from "../garm-provider/provider-inputs";
import { type Fault, LABEL_SETS, PROVIDERS, type ProgramModel, type ScaleSetSpec, type Step, programAfter } from "./plan";

export interface Violation {
  /** 1-based step index, or "converge". */
  readonly step: number | "converge";
  readonly invariant: string;
  readonly detail: string;
}

export interface RunStats {
  operations: number;
  faults: number;
  checks: number;
}

export interface RunResult {
  readonly violation?: Violation;
  readonly stats: RunStats;
  /** One line per step: the operation and how it ended. */
  readonly trace: string[];
}

const DRAIN = { timeoutSeconds: 3, pollSeconds: 1 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Failed extends Error {
  constructor(readonly violation: Violation) {
    super(`${violation.invariant}: ${violation.detail}`);
  }
}

interface World {
  readonly sim: Simulator;
  /** Called with every simulator log line. */
  onSimLine?: (line: string) => void;
  readonly engine: Engine;
  readonly host: { url: string; executable: string; configFile: string };
}

function declarations(world: World, program: ProgramModel): ResourceDecl[] {
  const providers: ResourceDecl[] = Object.entries(PROVIDERS).map(([key, name]) => ({
    name: key,
    type: "GarmProvider",
    module: "garm",
    provider: garmProviderProvider,
    inputs: providerInputs(world.host, name),
  }));
  const scaleSets: ResourceDecl[] = Object.entries(program).map(([key, spec]) => ({
    name: key,
    type: "GarmScaleSet",
    module: "garm",
    provider: scaleSetProvider,
    inputs: {
      name: `ci-${key}`,
      organization: "acme",
      providerName: ref(spec.provider, "name"),
      image: "ubuntu-24.04",
      flavor: "small",
      labels: [...LABEL_SETS[spec.labels]],
      maxRunners: spec.maxRunners,
      minIdleRunners: spec.minIdleRunners,
      naming: spec.naming,
      drain: DRAIN,
    },
  }));
  return [...providers, ...scaleSets];
}

/** Runner names with a job GARM knows to be running. */
function busyRunners(sim: Simulator): Set<string> {
  const byId = new Map(sim.instances().map((i) => [i.id, i.name]));
  return new Set(sim.jobs().filter((j) => j.status === "in_progress" || j.status === "queued").flatMap((j) => byId.get(j.instanceId) ?? []));
}

/** The GARM scale set a program resource is bound to now, if any. */
function garmScaleSetOf(world: World, name: string) {
  const st = world.engine.state().resources.find((r) => r.name === name && r.type.endsWith(":GarmScaleSet") && !r.pendingDelete);
  const id = st?.outputs.scaleSetId;
  return world.sim.scaleSets().find((s) => s.id === id);
}

/**
 * The simulator has no control to withdraw an armed fault that never fired, and a leftover would leak into the next
 * step (or the fault-free convergence); this reaches into its internals for that one purpose.
 */
function disarm(sim: Simulator): void {
  const inner = sim as unknown as { dropCount: number; loseRules: unknown[]; store: { github: { faults: Map<unknown, unknown> } } };
  inner.dropCount = 0;
  inner.loseRules.length = 0;
  inner.store.github.faults.clear();
}

function applyRunners(world: World, step: Step): void {
  const { sim } = world;
  for (const action of step.runners) {
    if (action.kind === "finish-jobs") {
      for (const runner of busyRunners(sim)) sim.completeJob(runner);
      continue;
    }
    const ss = garmScaleSetOf(world, action.target);
    if (!ss) continue;
    if (action.kind === "idle") sim.addRunner(ss.id);
    else if (action.kind === "stuck") sim.setTeardownFails(sim.addRunner(ss.id, { status: "pending_delete", providerFault: "chaos: delete failed" }), true);
    // GitHub assigns jobs only through a running listener, i.e. to an enabled scale set (§7.5).
    else if (ss.enabled) sim.startJob(sim.addRunner(ss.id));
  }
}

/** Arms the step's faults; returns a function that ends the timed ones. */
function armFaults(world: World, faults: readonly Fault[], stats: RunStats, processesBefore: number): () => Promise<void> {
  const { sim, engine } = world;
  const timers: NodeJS.Timeout[] = [];
  let outage = false;
  const later = (ms: number, fn: () => void | Promise<void>) => timers.push(setTimeout(() => void Promise.resolve(fn()).catch(() => undefined), ms));
  /** GARM stops answering (connections dropped) for `forMs`, then serves again. */
  const outageFor = (forMs: number) => {
    outage = true;
    sim.stopServing("drop");
    later(forMs, async () => {
      outage = false;
      await sim.resumeServing();
    });
  };
  for (const fault of faults) {
    stats.faults++;
    switch (fault.kind) {
      case "drop":
        sim.dropNextConnections(fault.n);
        break;
      case "lose":
        sim.loseNextResponse(fault.method, new RegExp(fault.path));
        break;
      case "lose-then-outage":
        sim.loseNextResponse(fault.method, new RegExp(fault.path));
        world.onSimLine = (line) => {
          if (!line.startsWith(`lost the answer to ${fault.method}`)) return;
          world.onSimLine = undefined;
          outageFor(fault.forMs);
        };
        break;
      case "github":
        sim.failNextGitHub(fault.op, fault.status, fault.count);
        break;
      case "tokens":
        later(fault.afterMs, () => sim.invalidateTokens());
        break;
      case "outage":
        later(fault.afterMs, () => outageFor(fault.forMs));
        break;
      case "restart":
        later(fault.afterMs, () => sim.restart());
        break;
      case "kill":
        later(fault.afterMs, () => {
          const proc = engine.processes.at(-1);
          if (engine.processes.length > processesBefore && proc) process.kill(proc.pid, "SIGKILL");
        });
        break;
    }
  }
  return async () => {
    world.onSimLine = undefined;
    for (const t of timers) clearTimeout(t);
    if (outage) await sim.resumeServing();
    disarm(sim);
  };
}

async function operate(world: World, step: Step, program: ProgramModel): Promise<OperationResult> {
  const decls = declarations(world, program);
  switch (step.op) {
    case "up":
      return world.engine.up(decls);
    case "preview":
      return world.engine.preview(decls);
    case "refresh":
      return world.engine.refresh();
    case "destroy":
      return world.engine.destroy();
  }
}

/** The invariants that hold after every step, faults or not. */
function checkInvariants(
  world: World,
  at: number | "converge",
  busyDuringStep: Set<string>,
  requestsFrom: number,
  stats: RunStats,
  beingDeleted: (name: string) => boolean,
): void {
  const { sim, engine } = world;
  const fail: (invariant: string, detail: string) => never = (invariant, detail) => {
    throw new Failed({ step: at, invariant, detail });
  };

  stats.checks++;
  const deleted = sim
    .requests()
    .slice(requestsFrom)
    .filter((r) => r.method === "DELETE" && r.path.includes("/instances/"))
    .map((r) => decodeURIComponent(r.path.split("/instances/")[1] ?? ""));
  const hit = deleted.filter((name) => busyDuringStep.has(name));
  if (hit.length) fail("no runner with a running job is sent DELETE", `DELETE sent to busy ${hit.join(", ")}`);

  stats.checks++;
  const names = sim.scaleSets().map((s) => s.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) fail("no two scale sets share a live name", `GARM has ${twice.join(", ")} more than once`);

  stats.checks++;
  const ids = new Set(sim.scaleSets().map((s) => s.id));
  for (const r of engine.state().resources) {
    // A replaced generation, a resource the program no longer declares, or one a failed destroy kept: Pulumi deletes
    // it again on the next run, so GARM may be done with it already.
    if (!r.type.endsWith(":GarmScaleSet") || r.pendingDelete || beingDeleted(r.name)) continue;
    const id = /^\d+$/.test(r.id) ? Number(r.id) : r.outputs.scaleSetId;
    // An unconfirmed create that has not been settled holds no id yet.
    if (typeof id !== "number") continue;
    if (!ids.has(id)) fail("every id in state exists in GARM or is pending delete", `${r.name} has id ${id}, which GARM does not have`);
  }

  stats.checks++;
  const loaded = new Set(sim.providers().map((p) => p.name));
  for (const s of sim.scaleSets()) {
    if (!loaded.has(s.providerName)) fail("a GarmProvider is never removed while anything names it", `scale set ${s.name} names ${s.providerName}, which GARM no longer loads`);
  }
}

const expectedName = (key: string, spec: ScaleSetSpec) => liveName(`ci-${key}`, LABEL_SETS[spec.labels], PROVIDERS[spec.provider], spec.naming);

/** How GARM's copy of one declared scale set differs from the program, or undefined when it matches. */
function scaleSetMismatch(sim: Simulator, key: string, spec: ScaleSetSpec): string | undefined {
  const live = sim.scaleSets();
  const name = expectedName(key, spec);
  const s = live.find((x) => x.name === name);
  if (!s) return `${key}: GARM has no scale set ${name} (it has ${live.map((x) => x.name).join(", ") || "none"})`;
  const got = { enabled: s.enabled, maxRunners: s.maxRunners, minIdleRunners: s.minIdleRunners, providerName: s.providerName };
  const want = { enabled: true, maxRunners: spec.maxRunners, minIdleRunners: spec.minIdleRunners, providerName: PROVIDERS[spec.provider] };
  if (JSON.stringify(got) !== JSON.stringify(want)) return `${key}: GARM holds ${JSON.stringify(got)}, the program wants ${JSON.stringify(want)}`;
  return undefined;
}

/** How GARM differs from the program's scale sets, or undefined when it holds exactly them, as declared. */
function mismatch(sim: Simulator, program: ProgramModel): string | undefined {
  for (const [key, spec] of Object.entries(program)) {
    const differs = scaleSetMismatch(sim, key, spec);
    if (differs) return differs;
  }
  const names = Object.entries(program).map(([key, spec]) => expectedName(key, spec));
  const extra = sim.scaleSets().filter((s) => !names.includes(s.name));
  if (extra.length) return `GARM also has ${extra.map((s) => `${s.name} (id ${s.id})`).join(", ")}, which no resource declares`;
  return undefined;
}

async function converge(world: World, program: ProgramModel, stats: RunStats, trace: string[]): Promise<void> {
  const { sim, engine } = world;
  const fail: (invariant: string, detail: string) => never = (invariant, detail) => {
    throw new Failed({ step: "converge", invariant, detail });
  };
  disarm(sim);
  await sim.resumeServing();
  for (const runner of busyRunners(sim)) sim.completeJob(runner);
  for (const i of sim.instances()) sim.setTeardownFails(i.name, false);
  await sim.consolidate();
  await sleep(500);

  const describe = (r: OperationResult) => (r.ok ? "ok" : `failed: ${JSON.stringify(r.errors)} ${JSON.stringify(r.checkFailures)}`);
  const decls = declarations(world, program);
  // Before anything repairs it: a preview that plans nothing must mean GARM already matches the program.
  stats.checks++;
  const first = await engine.preview(decls);
  stats.operations++;
  const planned = first.steps.filter((s) => s.op !== "same");
  trace.push(`converge first preview: ${planned.length ? planned.map((s) => `${s.op} ${s.name}`).join(", ") : "no changes"}`);
  for (const [key, spec] of Object.entries(program)) {
    if (!first.steps.some((s) => s.name === key && s.op === "same")) continue;
    const differs = scaleSetMismatch(sim, key, spec);
    // A scale set gone from GARM (a lost DELETE answer) plans no change: diff cannot re-create it, and says so, naming
    // `pulumi refresh` (README, Drains): the refresh and up below must then converge.
    const name = expectedName(key, spec);
    const saysGone = first.logs.some((l) => l.includes(`GarmScaleSet ${name} (id `) && l.includes("GARM no longer has it; run `pulumi refresh`"));
    if (differs && !(saysGone && !sim.scaleSets().some((x) => x.name === name))) {
      fail("a preview that plans no change for a scale set means GARM matches the program, or says why not", differs);
    }
  }

  stats.checks++;
  const refresh = await engine.refresh();
  stats.operations++;
  trace.push(`converge refresh: ${describe(refresh)}`);
  if (!refresh.ok) fail("once faults stop, one refresh and one up converge", `refresh ${describe(refresh)}`);
  const from = sim.requests().length;
  const up = await engine.up(decls);
  stats.operations++;
  trace.push(`converge up: ${describe(up)}`);
  if (!up.ok) fail("once faults stop, one refresh and one up converge", `up ${describe(up)}`);
  checkInvariants(world, "converge", new Set(), from, stats, (name) => !(name in program));

  stats.checks++;
  const preview = await engine.preview(decls);
  stats.operations++;
  const changed = preview.steps.filter((s) => s.op !== "same");
  trace.push(`converge preview: ${changed.length ? changed.map((s) => `${s.op} ${s.name}`).join(", ") : "no changes"}`);
  if (!preview.ok || changed.length) fail("a no-change preview passes after convergence", `preview plans ${changed.map((s) => `${s.op} ${s.name}`).join(", ")} ${describe(preview)}`);

  stats.checks++;
  const differs = mismatch(sim, program);
  if (differs) fail("GARM matches the program after convergence", differs);

  stats.checks++;
  const destroy = await engine.destroy();
  stats.operations++;
  trace.push(`converge destroy: ${describe(destroy)}`);
  if (!destroy.ok) fail("destroy succeeds once faults stop", describe(destroy));
  if (sim.scaleSets().length) fail("destroy succeeds once faults stop", `GARM still has ${sim.scaleSets().map((s) => s.name).join(", ")}`);
}

/** Updates the names whose failed delete no operation has settled since (runSteps). */
function settleDeletes(deleteFailed: Set<string>, op: Step["op"], result: OperationResult): void {
  if (op === "preview") return;
  if (op === "refresh" && result.ok) deleteFailed.clear();
  for (const st of result.steps) {
    const failedDelete = !st.ok && !st.skipped && (st.op === "delete" || st.deleteBeforeReplace === true);
    if (failedDelete) deleteFailed.add(st.name);
    else if (st.ok && st.op !== "delete") deleteFailed.delete(st.name);
  }
}

/** Runs the steps in a fresh world. Never throws for a violation: it is returned. */
export async function runSteps(steps: readonly Step[]): Promise<RunResult> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-chaos-"));
  const executable = path.join(dir, "garm-provider-fake");
  const configFile = path.join(dir, "config.toml");
  await fs.writeFile(executable, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  await fs.writeFile(configFile, "# GARM config of a chaos run\n", { mode: 0o600 });
  const lines: { to?: (line: string) => void } = {};
  const sim = await startSimulator({ garmConfigPath: configFile, tickMs: 25, consolidationMs: 300, log: (line) => lines.to?.(line) });
  const world: World = { sim, engine: engineForGarm(sim, "chaos"), host: { url: sim.url, executable, configFile } };
  lines.to = (line) => world.onSimLine?.(line);
  const stats: RunStats = { operations: 0, faults: 0, checks: 0 };
  const trace: string[] = [];
  // Resources whose delete failed (a failed destroy, or the delete half of a delete-first replacement) and that no later
  // operation has settled: Pulumi keeps them in state, not pending delete, and deletes them again on the next run, so
  // GARM may be done with them already (a lost DELETE answer, then an outage). A refresh, or a later step that succeeds
  // on the resource, settles it.
  const deleteFailed = new Set<string>();
  try {
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      const program = programAfter(steps.slice(0, i + 1));
      applyRunners(world, step);
      const busy = busyRunners(sim);
      const from = sim.requests().length;
      const end = armFaults(world, step.faults, stats, world.engine.processes.length);
      let result: OperationResult;
      try {
        result = await operate(world, step, program);
      } finally {
        await end();
      }
      stats.operations++;
      const errors = Object.entries(result.errors).map(([n, e]) => `${n}: ${e.slice(0, 160)}`);
      trace.push(`step ${i + 1} ${step.op}: ${result.ok ? "ok" : `failed (${errors.join(" | ")})`}`);
      settleDeletes(deleteFailed, step.op, result);
      checkInvariants(world, i + 1, busy, from, stats, (name) => !(name in program) || deleteFailed.has(name));
    }
    await converge(world, programAfter(steps), stats, trace);
    return { stats, trace };
  } catch (err) {
    if (err instanceof Failed) return { violation: err.violation, stats, trace };
    return { violation: { step: "converge", invariant: "the campaign itself ran", detail: (err as Error).stack ?? String(err) }, stats, trace };
  } finally {
    await sim.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
