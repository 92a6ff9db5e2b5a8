// Issue 35's memory target: the provider process's peak resident set while the real CLI runs `pulumi up`, `preview`
// and `destroy` of 1,000 scale sets from a project directory against the GARM simulator, for both front doors: the
// TypeScript package's dynamic provider (the Node language host's dynamic-provider server loading pulumi-garm) and the
// garm plugin (pulumi-resource-garm) under a YAML program. Run alone: `node dist/bench/run.js --only provider-memory`
// (BENCH_MEMORY_COUNT sets the count, BENCH_MEMORY_DOORS=dynamic or plugin runs one).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { locateLanguageHost, locatePulumi } from "../harness/pulumi-cli";
import { PulumiProject, REPO_ROOT, packOnce } from "../harness/pulumi-cli/project";
import { startSimulator } from "../simulator";
import type { Result } from "./events";
import { watchPeakRss } from "./process-peak";

const COUNT = Number(process.env.BENCH_MEMORY_COUNT ?? 1000);
const TARGET_MIB = 200 / 1.048576; // 200 MB
const CACHE = process.env.PULUMI_GARM_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-garm");
const YAML_HOST_DIR = path.join(CACHE, "pulumi-language-yaml-v1.25.0", "bin");

const ARGS = { organization: "acme", providerName: "fake", image: "ubuntu", flavor: "small", labels: ["linux", "x64"], maxRunners: 2 };

const TYPESCRIPT = `import * as garm from "pulumi-garm";

for (let i = 0; i < ${COUNT}; i++) {
  new garm.GarmScaleSet(\`s\${i}\`, { name: \`bench-\${i}\`, ...${JSON.stringify(ARGS)} });
}
`;

function yamlProgram(pluginDir: string): string {
  const lines = [`name: bench-memory-yaml`, `runtime: yaml`, `plugins:`, `  providers:`, `    - name: garm`, `      path: ${pluginDir}`, `resources:`];
  for (let i = 0; i < COUNT; i++) {
    lines.push(`  s${i}:`, `    type: garm:index:GarmScaleSet`, `    properties:`, `      name: bench-${i}`);
    for (const [k, v] of Object.entries(ARGS)) lines.push(`      ${k}: ${JSON.stringify(v)}`);
  }
  return `${lines.join("\n")}\n`;
}

type Door = "dynamic" | "plugin";
const PROCESS: Record<Door, RegExp> = { dynamic: /cmd\/dynamic-provider/, plugin: /provider-plugin\/main\.js/ };
const OPS = [
  ["up", ["up", "--yes", "--skip-preview"]],
  ["preview", ["preview"]],
  ["destroy", ["destroy", "--yes", "--skip-preview"]],
] as const;

/** The plugin directory `make plugin` writes (provider-plugin/build.sh prints the archive last; the directory is beside it). */
function pluginDir(): string {
  execFileSync(path.join(REPO_ROOT, "provider-plugin", "build.sh"), { cwd: REPO_ROOT, encoding: "utf8", timeout: 300_000 });
  const dir = path.join(REPO_ROOT, "build", "plugin");
  const versioned = fs.readdirSync(dir).find((d) => d.startsWith("garm-"));
  if (!versioned) throw new Error(`provider-plugin/build.sh left no plugin directory in ${dir}`);
  return path.join(dir, versioned);
}

export async function providerMemory(): Promise<Result[]> {
  try {
    locatePulumi();
    locateLanguageHost();
  } catch (err) {
    return [{ target: `provider RSS at ${COUNT} scale sets`, measured: `not run: ${(err as Error).message}`, met: false }];
  }
  const sim = await startSimulator({ tickMs: 200 });
  const sources = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-bench-memory-"));
  const projects: PulumiProject[] = [];
  const results: Result[] = [];
  try {
    const config = { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } };
    const tsSource = path.join(sources, "typescript");
    fs.mkdirSync(tsSource);
    fs.cpSync(path.join(REPO_ROOT, "examples", "quickstart"), tsSource, { recursive: true, filter: (p) => !/node_modules|Pulumi\.[^/]+\.yaml$|package-lock/.test(p) });
    fs.writeFileSync(path.join(tsSource, "index.ts"), TYPESCRIPT);
    fs.writeFileSync(path.join(tsSource, "Pulumi.yaml"), "name: bench-memory\nruntime: nodejs\n");
    const yamlSource = path.join(sources, "yaml");
    fs.mkdirSync(yamlSource);
    fs.writeFileSync(path.join(yamlSource, "package.json"), JSON.stringify({ name: "bench-memory-yaml", private: true }));
    fs.writeFileSync(path.join(yamlSource, "Pulumi.yaml"), yamlProgram(pluginDir()));
    const tarball = await packOnce();
    const doors: Record<Door, PulumiProject> = {
      dynamic: await PulumiProject.fromExample({ example: "bench-memory", source: tsSource, tarball, prefix: "pulumi-garm-bench-memory-ts-" }),
      plugin: await PulumiProject.fromExample({
        example: "bench-memory-yaml",
        source: yamlSource,
        tarball,
        prefix: "pulumi-garm-bench-memory-yaml-",
        env: { PATH: [YAML_HOST_DIR, process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter) },
      }),
    };
    projects.push(doors.dynamic, doors.plugin);
    const chosen = (process.env.BENCH_MEMORY_DOORS ?? "dynamic,plugin").split(",") as Door[];
    for (const door of chosen) {
      const project = doors[door];
      project.env.PATH = [YAML_HOST_DIR, project.env.PATH].join(path.delimiter);
      await project.initStack("bench", config);
      const peaks: Record<string, number> = {};
      const seconds: Record<string, number> = {};
      const ops = (process.env.BENCH_MEMORY_OPS ?? "up,preview,destroy").split(",");
      for (const [op, args] of OPS.filter(([name]) => ops.includes(name))) {
        const watch = watchPeakRss(PROCESS[door]);
        const r = await project.cli(args, { timeoutMs: 1_800_000 });
        const { peakMiB, processes } = watch.stop();
        if (processes === 0) throw new Error(`no ${door} provider process was seen during pulumi ${op}`);
        peaks[op] = peakMiB;
        seconds[op] = Math.round(r.durationMs / 100) / 10;
      }
      for (const variant of (process.env.BENCH_MEMORY_VARIANTS ?? "").split(";").filter(Boolean)) {
        const watch = watchPeakRss(PROCESS[door]);
        await project.cli(["preview"], { timeoutMs: 1_800_000 });
        const before = project.env.NODE_OPTIONS;
        project.env.NODE_OPTIONS = variant;
        const w2 = watchPeakRss(PROCESS[door]);
        await project.cli(["preview"], { timeoutMs: 1_800_000 });
        project.env.NODE_OPTIONS = before;
        console.log(`variant ${variant}: ${w2.stop().peakMiB} MiB vs default ${watch.stop().peakMiB} MiB`);
      }
      if (ops.includes("destroy") && sim.scaleSets().length !== 0) throw new Error(`destroy left ${sim.scaleSets().length} scale sets in GARM`);
      const worst = Math.max(...Object.values(peaks));
      results.push({
        target: `${door === "dynamic" ? "dynamic provider" : "garm plugin"} peak RSS below 200 MB at ${COUNT} scale sets for up, preview and destroy (real CLI, simulator)`,
        measured: `${Object.keys(peaks).map((op) => `${op} ${peaks[op]} MiB (${seconds[op]} s)`).join(", ")}; load ${os.loadavg()[0].toFixed(2)}`,
        met: worst < TARGET_MIB,
        details: { peakMiB: peaks, seconds, count: COUNT, loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))) },
      });
    }
    return results;
  } finally {
    for (const p of projects) p.close({ keep: process.env.BENCH_MEMORY_KEEP === "1" });
    fs.rmSync(sources, { recursive: true, force: true });
    await sim.stop();
  }
}
