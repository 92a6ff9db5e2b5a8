// Issue 15's whole-CLI measure: `pulumi up` and `pulumi destroy` of 100 GarmScaleSets, run as a user runs them (the
// package installed from its npm tarball into a project directory, the real CLI and Node language host, file backend),
// against the same runs of 100 no-op dynamic resources: Pulumi's own floor for a dynamic provider. Both projects
// alternate in one run against the GARM simulator in this process, which counts GARM's requests.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { locateLanguageHost, locatePulumi } from "../test/support/pulumi-cli";
import { PulumiProject, packOnce } from "../test/support/pulumi-cli/project";
import { type Simulator, startSimulator } from "../test/support/simulator";
import type { Result } from "./events";

const COUNT = Number(process.env.BENCH_CLI_COUNT ?? 100);
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 5);
const TARGET = 1.15;

type Kind = "garm" | "noop";
type Op = "up" | "destroy";

const PACKAGE_JSON = JSON.stringify(
  {
    name: "bench-cli",
    private: true,
    main: "index.ts",
    dependencies: { "@pulumi/pulumi": "3.248.0", "pulumi-garm": "^0.1.0" },
    devDependencies: { "@types/node": "^20.19.0", typescript: "~5.9.3" },
  },
  null,
  2,
);

const TSCONFIG = JSON.stringify(
  { compilerOptions: { strict: true, target: "ES2022", module: "commonjs", moduleResolution: "node", esModuleInterop: true, skipLibCheck: true, types: ["node"] }, files: ["index.ts"] },
  null,
  2,
);

/** The same inputs in both programs, so both serialize and diff the same amount of state. */
const INPUTS = `{ name: \`bench-\${i}\`, organization: "acme", providerName: "fake", image: "ubuntu", flavor: "small", labels: ["linux", "x64"], maxRunners: 2 }`;

const PROGRAMS: Record<Kind, string> = {
  garm: `import * as garm from "pulumi-garm";

for (let i = 0; i < ${COUNT}; i++) {
  new garm.GarmScaleSet(\`s\${i}\`, ${INPUTS});
}
`,
  noop: `import * as pulumi from "@pulumi/pulumi";

// Does nothing: what Pulumi itself costs for a dynamic resource.
const noop: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: inputs.name, outs: inputs };
  },
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name: string, props: Record<string, unknown>) {
    super(noop, name, props, {}, "bench", "Noop");
  }
}

for (let i = 0; i < ${COUNT}; i++) {
  new Noop(\`s\${i}\`, ${INPUTS});
}
`,
};

function writeSource(root: string, kind: Kind): string {
  const dir = path.join(root, kind);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: bench-${kind}\nruntime: nodejs\n`);
  fs.writeFileSync(path.join(dir, "package.json"), PACKAGE_JSON);
  fs.writeFileSync(path.join(dir, "tsconfig.json"), TSCONFIG);
  fs.writeFileSync(path.join(dir, "index.ts"), PROGRAMS[kind]);
  return dir;
}

/**
 * CPU the finished child processes used (Linux: cutime + cstime of /proc/self/stat, in 10 ms ticks): a CLI run's whole
 * tree, since the CLI reaps its plugins and the host its program. On a shared machine wall time follows CPU.
 */
function childrenCpuMs(): number {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** GARM requests since the last clear, login excluded, as "METHOD /path/{id}" -> count. */
function garmCalls(sim: Simulator): { total: number; byPath: Record<string, number> } {
  const byPath: Record<string, number> = {};
  const calls = sim.requests().filter((r) => !r.path.endsWith("/auth/login"));
  for (const r of calls) {
    const key = `${r.method} ${r.path.replace(/\/(\d+|[0-9a-f]{8}-[0-9a-f-]{27})(?=\/|$)/g, "/{id}")}`;
    byPath[key] = (byPath[key] ?? 0) + 1;
  }
  return { total: calls.length, byPath };
}

export async function wholeCliRun(): Promise<Result[]> {
  try {
    locatePulumi();
    locateLanguageHost();
  } catch (err) {
    return [{ target: `whole CLI run of ${COUNT} scale sets`, measured: `not run: ${(err as Error).message}`, met: false }];
  }
  const sources = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-bench-cli-"));
  const sim = await startSimulator({ tickMs: 200 });
  const projects: Partial<Record<Kind, PulumiProject>> = {};
  try {
    const tarball = await packOnce();
    const config = { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } };
    for (const kind of ["garm", "noop"] as const) {
      const project = await PulumiProject.fromExample({ example: kind, source: writeSource(sources, kind), tarball, prefix: `pulumi-garm-bench-cli-${kind}-` });
      projects[kind] = project;
      await project.initStack("bench", config);
    }
    const ms: Record<Kind, Record<Op, number[]>> = { garm: { up: [], destroy: [] }, noop: { up: [], destroy: [] } };
    const cpu: Record<Kind, Record<Op, number[]>> = { garm: { up: [], destroy: [] }, noop: { up: [], destroy: [] } };
    const simulatorCpu: Record<Op, number[]> = { up: [], destroy: [] };
    const calls: Record<Op, { total: number; byPath: Record<string, number> }[]> = { up: [], destroy: [] };
    // Round 0 warms the disk cache and the npm-installed modules and is not counted; the order alternates each round.
    for (let round = 0; round <= ROUNDS; round++) {
      const order: Kind[] = round % 2 ? ["noop", "garm"] : ["garm", "noop"];
      for (const op of ["up", "destroy"] as const) {
        for (const kind of order) {
          sim.clearRequests();
          const [children, self] = [childrenCpuMs(), process.cpuUsage()];
          const r = await projects[kind]!.cli([op, "--yes", "--skip-preview"]);
          if (round === 0) continue;
          ms[kind][op].push(r.durationMs);
          cpu[kind][op].push(childrenCpuMs() - children);
          if (kind === "garm") {
            calls[op].push(garmCalls(sim));
            // This process is idle during the run but for the simulator answering GARM's calls.
            const used = process.cpuUsage(self);
            simulatorCpu[op].push(Math.round((used.user + used.system) / 1000));
          }
        }
      }
      if (sim.scaleSets().length !== 0) throw new Error(`destroy left ${sim.scaleSets().length} scale sets in GARM`);
    }
    return (["up", "destroy"] as const).map((op) => {
      const garm = median(ms.garm[op]);
      const noop = median(ms.noop[op]);
      const ratio = garm / noop;
      const perResource = (calls[op].at(-1)?.total ?? 0) / COUNT;
      return {
        target: `whole CLI \`pulumi ${op}\` of ${COUNT} scale sets within x${TARGET} of ${COUNT} no-op dynamic resources (real CLI from a project directory, simulator)`,
        measured:
          `${(garm / 1000).toFixed(2)} s vs ${(noop / 1000).toFixed(2)} s (x${ratio.toFixed(2)}), medians of ${ROUNDS} alternating runs; ` +
          `CPU of the CLI's process tree ${(median(cpu.garm[op]) / 1000).toFixed(2)} s vs ${(median(cpu.noop[op]) / 1000).toFixed(2)} s, ` +
          `simulator ${(median(simulatorCpu[op]) / 1000).toFixed(2)} s; ${perResource.toFixed(2)} GARM calls per scale set`,
        met: ratio <= TARGET,
        details: {
          garmMs: ms.garm[op],
          noopMs: ms.noop[op],
          garmCpuMs: cpu.garm[op],
          noopCpuMs: cpu.noop[op],
          simulatorCpuMs: simulatorCpu[op],
          loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
          cores: os.cpus().length,
          garmCalls: calls[op].at(-1),
          rounds: ROUNDS,
          count: COUNT,
        },
      };
    });
  } finally {
    for (const p of Object.values(projects)) p?.close({ keep: process.env.BENCH_CLI_KEEP === "1" });
    fs.rmSync(sources, { recursive: true, force: true });
    await sim.stop();
  }
}
