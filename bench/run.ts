// `make bench`: measures the performance targets (docs/development.md) against the GARM simulator on 127.0.0.1 and writes bench/results.json.
// Benchmarks, not tests: each target prints its measurement and whether it is met; a missed target exits non-zero.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GarmClient } from "../provider/garm/client";
import { checkScaleSetInputs } from "../provider/kinds/scaleset/check";
import { scaleSetProviderWith } from "../provider/kinds/scaleset/resource";
import { scaleSetProvider } from "../sdk/nodejs/shim";
import type { ResourceDecl } from "../harness/engine";
import { type GarmLogin, REPO_ROOT, engineForGarm } from "../harness/engine-for-garm";
import { locateGarm } from "../harness/real-garm";
import { startE2eEnvironment } from "../harness/real-garm/environment";
import { type Simulator, startSimulator } from "../simulator";
import { wholeCliRun } from "./cli";
import { labelChangeAcrossFleet } from "./label-change";
import { sshProviderChange } from "./ssh-provider";
import { providerMemory } from "./provider-memory";
import { importPlanAtScale } from "./import-plan";
import { previewReferenceCost } from "./preview";
import { functionsInPreview } from "./functions";
import { drainLatency as eventsDrainLatency, drainsTornDownMidPass, forcedDeletesForStuckRunner, hundredScaleSetDestroy, readinessLatency, restCallsForBusyRunner } from "./events";
import { simulatorScaleSetInputs } from "../harness/scaleset-inputs";
import { resourceCalls } from "../harness/garm-calls";

const silent = { info: () => {}, warn: () => {} };

interface Result {
  target: string;
  measured: string;
  met: boolean;
  details?: Record<string, unknown>;
}

const inputsFor = (i: number) =>
  simulatorScaleSetInputs(`bench-${i}`, { minIdleRunners: 0, enabled: false, drain: { timeoutSeconds: 60, pollSeconds: 1 } });

const mutating = (sim: Simulator) => sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));

function engineFor(sim: GarmLogin, stack: string) {
  return engineForGarm(sim, "bench", stack);
}

const decl = (name: string, inputs: Record<string, unknown>): ResourceDecl => ({ name, type: "GarmScaleSet", module: "garm", provider: scaleSetProvider, inputs });

async function previewAndNoopUp(): Promise<Result[]> {
  const sim = await startSimulator({ tickMs: 50, consolidationMs: 500 });
  try {
    const engine = engineFor(sim, "noop");
    const program = [0, 1, 2].map((i) => decl(`s${i}`, inputsFor(i)));
    await engine.up(program);
    sim.clearRequests();
    await engine.preview(program.map((d, i) => (i === 0 ? { ...d, inputs: { ...d.inputs, labels: ["linux", "gpu"] } } : d)));
    const previewCalls = mutating(sim).length;
    sim.clearRequests();
    await engine.up(program);
    const upCalls = mutating(sim).length;
    await engine.destroy();
    return [
      { target: "preview makes no mutating GARM call", measured: `${previewCalls} mutating calls`, met: previewCalls === 0 },
      { target: "an unchanged stack's up makes no mutating GARM call", measured: `${upCalls} mutating calls`, met: upCalls === 0 },
    ];
  } finally {
    await sim.stop();
  }
}

async function emptyDelete(): Promise<Result> {
  const sim = await startSimulator({ tickMs: 50 });
  try {
    const engine = engineFor(sim, "empty");
    await engine.up([decl("s", inputsFor(0))]);
    sim.clearRequests();
    await engine.destroy();
    const calls = resourceCalls(sim.requests());
    return {
      target: "deleting an empty scale set takes at most 4 GARM calls",
      measured: `${calls.length} calls: ${calls.map((c) => `${c.method} ${c.path}`).join(", ")}`,
      met: calls.length <= 4,
    };
  } finally {
    await sim.stop();
  }
}

async function drainLatency(): Promise<Result> {
  const tickMs = 25;
  const consolidationMs = 400;
  const pollMs = 1000;
  const sim = await startSimulator({ tickMs, consolidationMs });
  try {
    const engine = engineFor(sim, "drain");
    await engine.up([decl("s", { ...inputsFor(0), enabled: true })]);
    const [ss] = sim.scaleSets();
    const runner = sim.addRunner(ss.id, { name: "garm-busy" });
    sim.startJob(runner);
    const destroying = engine.destroy();
    await new Promise((r) => setTimeout(r, 2500));
    const completed = Date.now();
    sim.completeJob(runner);
    const result = await destroying;
    const latency = Date.now() - completed;
    // GARM's part: a disabled scale set learns of the finished job only at the consolidation, then tears down in ticks.
    const garmTeardown = consolidationMs + 4 * tickMs;
    const bound = pollMs + garmTeardown;
    return {
      target: "drain latency: gone within one poll interval plus GARM's teardown after the last job completes",
      measured: `${latency} ms (bound ${bound} ms = poll ${pollMs} + GARM teardown ${garmTeardown}; ok=${result.ok})`,
      met: result.ok && latency <= bound + 250,
      details: { latencyMs: latency, boundMs: bound },
    };
  } finally {
    await sim.stop();
  }
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The simulator as its own process, as GARM is: its CPU then does not share the event loop with the client's. */
async function simulatorProcess(): Promise<Target> {
  const child = spawn(process.execPath, [join(REPO_ROOT, "dist", "test", "support", "simulator", "main.js"), "--port", "0", "--tick-ms", "0"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.split("\n")[0]);
    });
    child.once("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const match = /at (\S+) username=(\S+) password=(\S+)/.exec(line);
  if (!match) throw new Error(`unexpected simulator banner: ${line}`);
  const [, url, username, password] = match;
  const client = new GarmClient({ url, username, password });
  const [org] = await client.findEntities("organization", "acme");
  await client.close();
  return { url, username, password, organizationId: org.id, stop: () => void child.kill("SIGTERM") };
}

interface Target {
  url: string;
  username: string;
  password: string;
  organizationId: string;
  stop(): void | Promise<void>;
}

/** Real GARM v0.2.1 with the mock GitHub, when `make tools` has built it: API calls then cost what they cost. */
async function realGarm(): Promise<Target> {
  const env = await startE2eEnvironment();
  const organizationId = env.garm.orgId;
  if (!organizationId) throw new Error("the real GARM was started without the acme organization");
  return { url: env.garm.url, username: env.garm.username, password: env.garm.password, organizationId, stop: () => env.stop() };
}

function garmAvailable(): boolean {
  try {
    locateGarm();
    return true;
  } catch {
    return false;
  }
}

/** 100 scale sets: the provider's create versus the bare calls (POST, then GET to read back) on the same client. */
async function hundred(): Promise<Result> {
  const against = garmAvailable() ? "real GARM v0.2.1 + mock GitHub" : "the simulator in its own process (GARM not built)";
  const startTarget: () => Promise<Target> = garmAvailable() ? realGarm : simulatorProcess;
  const count = 100;
  const runs = 15;
  const bare: number[] = [];
  const provider: number[] = [];
  const engineRuns: number[] = [];
  // Run 0 warms the JIT for both paths and is not counted; the order alternates so neither path always goes first.
  for (let run = 0; run <= runs; run++) {
    const timings: Record<"bare" | "provider", number> = { bare: 0, provider: 0 };
    for (const mode of run % 2 ? (["bare", "provider"] as const) : (["provider", "bare"] as const)) {
      const sim = await startTarget();
      const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
      await client.listJobs(); // log in before timing
      try {
        if (mode === "bare") {
          timings.bare = await timed(async () => {
            await Promise.all(
              Array.from({ length: count }, async (_, i) => {
                const s = await client.createScaleSet(
                  { kind: "organization", id: sim.organizationId },
                  { name: `bench-${i}`, provider_name: "fake", image: "ubuntu", flavor: "small", os_type: "linux", os_arch: "amd64", labels: ["linux", "x64"], max_runners: 2 },
                );
                await client.getScaleSet(s.id);
              }),
            );
          });
        } else {
          const impl = scaleSetProviderWith({ client: () => client, log: silent, now: Date.now, sleep: async () => {} });
          timings.provider = await timed(async () => {
            await Promise.all(Array.from({ length: count }, (_, i) => impl.create(checkScaleSetInputs(inputsFor(i)).inputs)));
          });
        }
      } finally {
        await client.close();
        await sim.stop();
      }
    }
    if (run === 0) continue;
    bare.push(timings.bare);
    provider.push(timings.provider);
    const sim = await startTarget();
    try {
      const engine = engineFor(sim, `hundred-${run}`);
      engineRuns.push(await timed(async () => void (await engine.up(Array.from({ length: count }, (_, i) => decl(`s${i}`, inputsFor(i)))))));
    } finally {
      await sim.stop();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // Runs alternate which path goes first, so load on the 2-core machine falls on both alike; medians damp the rest.
  const ratio = median(provider) / median(bare);
  return {
    target: `up of 100 scale sets: provider overhead within 10% of the bare API calls, with bounded concurrency (against ${against})`,
    measured: `provider ${median(provider).toFixed(0)} ms vs bare ${median(bare).toFixed(0)} ms, medians of ${runs} runs each (x${ratio.toFixed(2)}; fastest ${Math.min(...provider).toFixed(0)} vs ${Math.min(...bare).toFixed(0)} ms); whole engine up incl. gRPC and process start ${median(engineRuns).toFixed(0)} ms`,
    met: ratio <= 1.1,
    details: { against, bareMs: bare, providerMs: provider, engineUpMs: engineRuns, concurrency: 8 },
  };
}

/** Parts that run alone (`node dist/bench/run.js --only <name>`), each updating only its own rows in results.json. */
const PARTS: Record<string, { run: () => Promise<Result[]>; prefix: string | readonly string[] }> = {
  preview: { run: previewReferenceCost, prefix: "preview's reference check" },
  cli: { run: wholeCliRun, prefix: "whole CLI `pulumi" },
  "stuck-runner": { run: forcedDeletesForStuckRunner, prefix: "forced DELETEs for one stuck runner" },
  "torn-down-mid-pass": { run: drainsTornDownMidPass, prefix: "100 drains on a live events socket" },
  "import-plan": { run: importPlanAtScale, prefix: "import-plan of" },
  "ssh-provider": { run: sshProviderChange, prefix: ["GarmProvider change over SSH", "SSH connections one"] },
  "provider-memory": { run: providerMemory, prefix: ["dynamic provider peak RSS", "garm plugin peak RSS"] },
  "label-change": { run: labelChangeAcrossFleet, prefix: "label change across" },
  functions: { run: functionsInPreview, prefix: ["functions in a preview of", "functions' added preview time"] },
};

async function only(name: string): Promise<void> {
  const part = PARTS[name];
  if (!part) throw new Error(`--only ${name}: expected one of ${Object.keys(PARTS).join(", ")}`);
  const file = join(REPO_ROOT, "bench", "results.json");
  const fresh = await part.run();
  const saved = JSON.parse(readFileSync(file, "utf8")) as { date: string; node: string; results: Result[] };
  const prefixes = typeof part.prefix === "string" ? [part.prefix] : part.prefix;
  const others = saved.results.filter((r) => !prefixes.some((prefix) => r.target.startsWith(prefix)));
  for (const r of fresh) console.log(`${r.met ? "met   " : "MISSED"} ${r.target}: ${r.measured}`);
  writeFileSync(file, `${JSON.stringify({ ...saved, results: [...others, ...fresh] }, null, 2)}\n`);
  if (fresh.some((r) => !r.met)) process.exitCode = 1;
}

async function main(): Promise<void> {
  const onlyAt = process.argv.indexOf("--only");
  if (onlyAt >= 0) return only(process.argv[onlyAt + 1] ?? "");
  const results: Result[] = [
    ...(await previewReferenceCost()),
    ...(await previewAndNoopUp()),
    await emptyDelete(),
    await drainLatency(),
    // Issue 15: events socket versus polling (against the simulator's events socket).
    ...(await eventsDrainLatency()),
    ...(await restCallsForBusyRunner()),
    ...(await forcedDeletesForStuckRunner()),
    ...(await drainsTornDownMidPass()),
    ...(await readinessLatency()),
    ...(await hundredScaleSetDestroy()),
    await hundred(),
    ...(await wholeCliRun()),
    ...(await labelChangeAcrossFleet()),
    ...(await importPlanAtScale()),
    ...(await sshProviderChange()),
    ...(await providerMemory()),
    ...(await functionsInPreview()),
  ];
  for (const r of results) console.log(`${r.met ? "met   " : "MISSED"} ${r.target}: ${r.measured}`);
  const file = join(REPO_ROOT, "bench", "results.json");
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
  console.log(`wrote ${file}`);
  if (results.some((r) => !r.met)) process.exitCode = 1;
}

void main();
