// Issue 35 item 2's measure: a label change across 1, 10 and 100 GarmScaleSets through the real CLI (the package
// installed from its npm tarball, Node language host, file backend), at the CLI's default parallelism and at
// `--parallel 200`, against the GARM simulator in this process. Phases, from the start of `pulumi up`: every new
// generation has an idle runner; every old generation is gone from GARM. The goal is runner boot + drain + 10 s, with
// runner boot and drain as the simulator shows them at one scale set.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { locateLanguageHost, locatePulumi } from "../harness/pulumi-cli";
import { PulumiProject, packOnce } from "../harness/pulumi-cli/project";
import { liveName } from "../provider/runners/naming";
import { type Simulator, startSimulator } from "../simulator";
import type { Result } from "./events";
import { TSCONFIG, benchPackageJson } from "./cli";

const SIZES = (process.env.BENCH_LABEL_SIZES ?? "1,10,100").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_LABEL_ROUNDS ?? 1);
const PARALLELS: readonly (number | "default")[] = ["default", 200];
/**
 * Attribution only, at the largest size: the same changes without the file backend's checkpoint after every step
 * (PULUMI_SKIP_CHECKPOINTS), which rewrites the whole state each time. Not advice: a crash mid-run then loses track of
 * what was made.
 */
const SKIPPED = process.env.BENCH_LABEL_SKIPPED !== "0";
const LABELS = [
  ["linux", "x64"],
  ["linux", "x64", "fleet"],
] as const;
/** Seconds the goal allows beyond runner boot and drain. */
const SLACK_MS = 10_000;

// The count and the labels come from the environment, so one stack goes from one label set to the other.
const PROGRAM = `import * as garm from "pulumi-garm";

const count = Number(process.env.BENCH_COUNT);
const labels: string[] = JSON.parse(process.env.BENCH_LABELS ?? "[]");
for (let i = 0; i < count; i++) {
  new garm.GarmScaleSet(\`s\${i}\`, {
    name: \`fleet-\${i}\`, organization: "acme", providerName: "fake", image: "ubuntu", flavor: "small",
    labels, maxRunners: 2, minIdleRunners: 1, drain: { timeoutSeconds: 120, pollSeconds: 5 },
  });
}
`;

const generation = (i: number, labels: readonly string[]) => liveName(`fleet-${i}`, labels, "fake", "hashed");

interface Phases {
  /** From the start of `pulumi up`: GARM holds every new generation. */
  createdMs?: number;
  /** Every old generation is disabled or gone. */
  disabledMs?: number;
  /** Every new generation has an idle runner. */
  readyMs?: number;
  /** Every old generation is gone from GARM. */
  goneMs?: number;
  /** Samples where some scale set had no enabled generation. */
  gaps: number;
}

/** Polls the simulator every 50 ms until stopped: when the phases were reached, and whether a generation was missing. */
function watch(sim: Simulator, count: number, from: readonly string[], to: readonly string[]): { stop(): Phases } {
  const started = Date.now();
  const olds = new Set(Array.from({ length: count }, (_, i) => generation(i, from)));
  const news = Array.from({ length: count }, (_, i) => generation(i, to));
  const phases: Phases = { gaps: 0 };
  const sample = () => {
    const sets = sim.scaleSets();
    const byName = new Map(sets.map((s) => [s.name, s]));
    const idle = new Set(sim.instances().filter((r) => r.status === "running" && r.runnerStatus === "idle").map((r) => r.scaleSetId));
    const at = Date.now() - started;
    if (phases.createdMs === undefined && news.every((n) => byName.has(n))) phases.createdMs = at;
    if (phases.disabledMs === undefined && !sets.some((s) => olds.has(s.name) && s.enabled)) phases.disabledMs = at;
    if (phases.readyMs === undefined && news.every((n) => byName.has(n) && idle.has(byName.get(n)!.id))) phases.readyMs = at;
    if (phases.goneMs === undefined && !sets.some((s) => olds.has(s.name))) phases.goneMs = at;
    for (let i = 0; i < count; i++) {
      const enabled = [generation(i, from), generation(i, to)].some((n) => byName.get(n)?.enabled);
      if (!enabled) phases.gaps++;
    }
  };
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return phases;
    },
  };
}

/** Waits until every scale set of `labels` has an idle runner and no other generation is left. */
async function settled(sim: Simulator, count: number, labels: readonly string[]): Promise<void> {
  const wanted = new Set(Array.from({ length: count }, (_, i) => generation(i, labels)));
  for (let waited = 0; waited < 120_000; waited += 100) {
    const sets = sim.scaleSets();
    const idle = new Set(sim.instances().filter((r) => r.status === "running" && r.runnerStatus === "idle").map((r) => r.scaleSetId));
    if (sets.length === count && sets.every((s) => wanted.has(s.name) && idle.has(s.id))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the ${count} scale sets did not settle at labels ${labels.join(",")} within 120 s`);
}

interface Run {
  count: number;
  parallel: number | "default";
  round: number;
  checkpointsSkipped: boolean;
  upMs: number;
  createdMs?: number;
  disabledMs?: number;
  readyMs?: number;
  goneMs?: number;
  gaps: number;
  load: number[];
}

const seconds = (ms: number | undefined) => (ms === undefined ? "never" : `${(ms / 1000).toFixed(1)} s`);
const load = () => os.loadavg().map((x) => Number(x.toFixed(2)));

export async function labelChangeAcrossFleet(): Promise<Result[]> {
  try {
    locatePulumi();
    locateLanguageHost();
  } catch (err) {
    return [{ target: "label change across a fleet", measured: `not run: ${(err as Error).message}`, met: false }];
  }
  const source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-bench-labels-src-"));
  fs.writeFileSync(path.join(source, "Pulumi.yaml"), "name: bench-labels\nruntime: nodejs\n");
  fs.writeFileSync(path.join(source, "package.json"), benchPackageJson("bench-label-change"));
  fs.writeFileSync(path.join(source, "tsconfig.json"), TSCONFIG);
  fs.writeFileSync(path.join(source, "index.ts"), PROGRAM);
  const sim = await startSimulator({ tickMs: 200 });
  let project: PulumiProject | undefined;
  const runs: Run[] = [];
  try {
    project = await PulumiProject.fromExample({ example: "labels", source, tarball: await packOnce(), prefix: "pulumi-garm-bench-labels-" });
    await project.initStack("bench", { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });
    let at = 0;
    for (const count of SIZES) {
      project.env.BENCH_COUNT = String(count);
      project.env.BENCH_LABELS = JSON.stringify(LABELS[at]);
      await project.cli(["up", "--yes", "--skip-preview"]);
      await settled(sim, count, LABELS[at]);
      for (let round = 0; round < ROUNDS; round++) {
        const variants = PARALLELS.map((parallel) => ({ parallel, skip: false }));
        if (SKIPPED && count === Math.max(...SIZES)) variants.push(...PARALLELS.map((parallel) => ({ parallel, skip: true })));
        for (const { parallel, skip } of variants) {
          if (skip) project.env.PULUMI_SKIP_CHECKPOINTS = "true";
          else delete project.env.PULUMI_SKIP_CHECKPOINTS;
          const from = LABELS[at];
          at = 1 - at;
          const to = LABELS[at];
          project.env.BENCH_LABELS = JSON.stringify(to);
          const watcher = watch(sim, count, from, to);
          const args = ["up", "--yes", "--skip-preview", ...(parallel === "default" ? [] : ["--parallel", String(parallel)])];
          const r = await project.cli(args);
          const phases = watcher.stop();
          const run: Run = { count, parallel, round, checkpointsSkipped: skip, upMs: r.durationMs, ...phases, load: load() };
          runs.push(run);
          console.log(
            `  ${count} scale sets, parallel ${parallel}${skip ? ", checkpoints skipped" : ""}: up ${seconds(run.upMs)}, new ready ${seconds(run.readyMs)}, old gone ${seconds(run.goneMs)}, ` +
              `(created ${seconds(run.createdMs)}, old disabled ${seconds(run.disabledMs)}), gap samples ${run.gaps}, load ${run.load.join(" ")}`,
          );
          await settled(sim, count, to);
        }
        delete project.env.PULUMI_SKIP_CHECKPOINTS;
      }
      await project.cli(["destroy", "--yes", "--skip-preview"]);
    }
  } finally {
    project?.close({ keep: process.env.BENCH_LABEL_KEEP === "1" });
    fs.rmSync(source, { recursive: true, force: true });
    await sim.stop();
  }
  // Runner boot (created to idle) + drain (disabled to gone) as the simulator shows them for one scale set.
  const single = runs.filter((r) => r.count === Math.min(...SIZES));
  const span = (r: Run, a?: number, b?: number) => (a === undefined || b === undefined ? Number.NaN : b - a);
  const bootMs = Math.min(...single.map((r) => span(r, r.createdMs, r.readyMs)));
  const drainMs = Math.min(...single.map((r) => span(r, r.disabledMs, r.goneMs)));
  const goalMs = bootMs + drainMs + SLACK_MS;
  return SIZES.flatMap((count) =>
    PARALLELS.map((parallel) => {
      const mine = runs.filter((r) => r.count === count && r.parallel === parallel && !r.checkpointsSkipped);
      const skipped = runs.filter((r) => r.count === count && r.parallel === parallel && r.checkpointsSkipped);
      const attribution = skipped.length
        ? `; without per-step checkpoints (PULUMI_SKIP_CHECKPOINTS, attribution only) up ${skipped.map((r) => `${seconds(r.upMs)} (old gone ${seconds(r.goneMs)}, load ${r.load[0]})`).join(", ")}`
        : "";
      const worst = Math.max(...mine.map((r) => Math.max(r.upMs, r.goneMs ?? Number.POSITIVE_INFINITY)));
      return {
        target: `label change across ${count} scale sets, parallel ${parallel}, within runner boot + drain + 10 s (real CLI, simulator)`,
        measured:
          mine
            .map((r) => `up ${seconds(r.upMs)} (new ready ${seconds(r.readyMs)}, old gone ${seconds(r.goneMs)}, load ${r.load[0]})`)
            .join("; ") + `; goal ${seconds(goalMs)}; samples without an enabled generation: ${mine.reduce((n, r) => n + r.gaps, 0)}${attribution}`,
        met: worst <= goalMs && mine.every((r) => r.gaps === 0),
        details: { runs: mine, checkpointsSkipped: skipped, goalMs, bootMs, drainMs, cores: os.cpus().length },
      };
    }),
  );
}
