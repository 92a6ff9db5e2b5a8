// `make bench-plugin`: start time and memory of pulumi-resource-garm next to the dynamic provider's server, each doing
// the same work against the GARM simulator: start (port printed), Configure, Check, Create and Delete of one scale set.
// Memory is the process's peak resident set (VmHWM in /proc). Writes bench/plugin-results.json.
import * as pulumi from "@pulumi/pulumi";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scaleSetProvider } from "../sdk/nodejs/shim";
import { ProviderProcess } from "../harness/engine/provider-process";
import { REPO_ROOT } from "../harness/engine-for-garm";
import { startSimulator } from "../simulator";
import { SECRET_SIG, SIG_KEY } from "../provider-plugin/protocol";
import { startPlugin } from "../harness/plugin-process";
import { simulatorScaleSetInputs } from "../harness/scaleset-inputs";

const RUNS = 5;
const inputs = simulatorScaleSetInputs("bench", { enabled: false, drain: { timeoutSeconds: 30, pollSeconds: 1 } });

function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Sample {
  startMs: number;
  workMs: number;
  idleRssMb: number;
  peakRssMb: number;
}

async function pluginSample(sim: { url: string; username: string; password: string }): Promise<Sample> {
  const t0 = performance.now();
  const p = await startPlugin();
  const startMs = performance.now() - t0;
  try {
    const pid = p.pid;
    const idleRssMb = peakRssMb(pid);
    const t1 = performance.now();
    await p.configure({ url: sim.url, username: sim.username, password: { [SIG_KEY]: SECRET_SIG, value: sim.password } });
    const checked = await p.check("garm:index:ScaleSet", "bench", inputs);
    const created = await p.create("garm:index:ScaleSet", "bench", checked.inputs);
    await p.delete("garm:index:ScaleSet", "bench", created.id, created.outs);
    return { startMs, workMs: performance.now() - t1, idleRssMb, peakRssMb: peakRssMb(pid) };
  } finally {
    await p.stop();
  }
}

async function dynamicSample(sim: { url: string; username: string; password: string }, providerText: string): Promise<Sample> {
  const t0 = performance.now();
  const p = await ProviderProcess.launch({ cwd: REPO_ROOT, project: "bench", onLine: () => {} });
  const startMs = performance.now() - t0;
  try {
    const idleRssMb = peakRssMb(p.pid);
    const t1 = performance.now();
    await p.configure({ "garm:url": sim.url, "garm:username": sim.username }, { "garm:password": sim.password });
    const urn = "urn:pulumi:bench::bench::pulumi-nodejs:dynamic/garm:GarmScaleSet::bench";
    const checked = await p.check(urn, {}, { ...inputs, __provider: providerText });
    const created = await p.create(urn, checked.inputs);
    await p.delete(urn, created.id, { ...created.properties, __provider: providerText }, checked.inputs);
    return { startMs, workMs: performance.now() - t1, idleRssMb, peakRssMb: peakRssMb(p.pid) };
  } finally {
    await p.shutdown();
  }
}

async function main(): Promise<void> {
  const sim = await startSimulator({ tickMs: 25 });
  const providerText = (await pulumi.runtime.serializeFunction(() => scaleSetProvider, { allowSecrets: true })).text;
  const samples: Record<"plugin" | "dynamic", Sample[]> = { plugin: [], dynamic: [] };
  try {
    for (let i = 0; i < RUNS; i++) {
      samples.plugin.push(await pluginSample(sim));
      samples.dynamic.push(await dynamicSample(sim, providerText));
    }
  } finally {
    await sim.stop();
  }
  const summary = Object.fromEntries(
    Object.entries(samples).map(([kind, xs]) => [
      kind,
      {
        startMs: Math.round(median(xs.map((x) => x.startMs))),
        workMs: Math.round(median(xs.map((x) => x.workMs))),
        idleRssMb: Math.round(median(xs.map((x) => x.idleRssMb))),
        peakRssMb: Math.round(median(xs.map((x) => x.peakRssMb))),
      },
    ]),
  );
  for (const [kind, s] of Object.entries(summary)) {
    console.log(`${kind.padEnd(7)} start ${s.startMs} ms; configure+check+create+delete ${s.workMs} ms; RSS ${s.idleRssMb} MB after start, peak ${s.peakRssMb} MB (median of ${RUNS})`);
  }
  writeFileSync(join(REPO_ROOT, "bench", "plugin-results.json"), `${JSON.stringify({ runs: RUNS, node: process.version, summary, samples }, null, 2)}\n`);
}

main().catch((err: unknown) => {
  console.error((err as Error).stack ?? err);
  process.exit(1);
});
