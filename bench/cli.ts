// Issue 15's whole-CLI measure: `pulumi up` and `pulumi destroy` of 100 GarmScaleSets, run as a user runs them (the
// package installed from its npm tarball into a project directory, the real CLI and Node language host, file backend),
// against the same runs of two floors made of no-op dynamic resources that never call GARM:
// - "noop": the issue's floor, the scale sets' arguments stored as given;
// - "shape": Pulumi's cost for a GarmScaleSet's state: its checked inputs (defaults added), its outputs and the output
//   placeholders its class passes, all copied from the GarmScaleSet state this run wrote, its provider serialized by
//   reference as pulumi-garm's is. GarmScaleSet against it is what pulumi-garm itself adds.
// The projects alternate in one run against the GARM simulator in this process, which counts GARM's requests.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { locateLanguageHost, locatePulumi } from "../harness/pulumi-cli";
import { PulumiProject, packOnce } from "../harness/pulumi-cli/project";
import { type Simulator, startSimulator } from "../simulator";
import { SCALE_SET_OUTPUT_PLACEHOLDERS } from "../sdk/nodejs/scaleset";
import type { Result } from "./events";

const COUNT = Number(process.env.BENCH_CLI_COUNT ?? 100);
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 5);
const TARGET = 1.15;

type Kind = "garm" | "noop" | "shape";
const KINDS: readonly Kind[] = ["garm", "noop", "shape"];
type Op = "up" | "destroy";

/** The package.json of a bench project that installs pulumi-garm's tarball. */
export const benchPackageJson = (name: string) =>
  JSON.stringify(
    {
      name,
      private: true,
      main: "index.ts",
      dependencies: { "@pulumi/pulumi": "3.248.0", "pulumi-garm": "^0.1.0" },
      devDependencies: { "@types/node": "^20.19.0", typescript: "~5.9.3" },
    },
    null,
    2,
  );

export const TSCONFIG = JSON.stringify(
  { compilerOptions: { strict: true, target: "ES2022", module: "commonjs", moduleResolution: "node", esModuleInterop: true, skipLibCheck: true, types: ["node"] }, files: ["index.ts"] },
  null,
  2,
);

/** The same arguments in every program: a name per resource and these. */
const ARGS: Record<string, unknown> = { organization: "acme", providerName: "fake", image: "ubuntu", flavor: "small", labels: ["linux", "x64"], maxRunners: 2 };
const INPUTS = `{ name: \`bench-\${i}\`, ${Object.entries(ARGS)
  .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
  .join(", ")} }`;

const PROGRAMS: Record<Exclude<Kind, "shape">, string> = {
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

/** The no-op with a GarmScaleSet's state shape, its provider a module in node_modules as pulumi-garm's is. */
const SHAPE_PROGRAM = `import * as pulumi from "@pulumi/pulumi";

// Does nothing, with a GarmScaleSet's inputs, outputs and output placeholders.
const provider: pulumi.dynamic.ResourceProvider = require("bench-shape-provider");

class Shape extends pulumi.dynamic.Resource {
  constructor(name: string, props: Record<string, unknown>) {
    super(provider, name, { ${SCALE_SET_OUTPUT_PLACEHOLDERS.map((key) => `${key}: undefined`).join(", ")}, ...props }, {}, "bench", "Shape");
  }
}

for (let i = 0; i < ${COUNT}; i++) {
  new Shape(\`s\${i}\`, ${INPUTS});
}
`;

/** What a GarmScaleSet's check adds to its arguments, and what its create adds to its inputs. */
interface StateShape {
  readonly defaults: Record<string, unknown>;
  readonly computed: Record<string, unknown>;
}

/** The shape of the first GarmScaleSet in the garm project's state (`pulumi stack export`). */
async function scaleSetShape(project: PulumiProject): Promise<StateShape> {
  const exported = JSON.parse((await project.cli(["stack", "export"])).stdout) as {
    deployment: { resources?: { type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] };
  };
  const scaleSet = exported.deployment.resources?.find((r) => r.type.endsWith("garm:GarmScaleSet"));
  if (!scaleSet?.inputs || !scaleSet.outputs) throw new Error("the garm project's state holds no GarmScaleSet to copy the shape of");
  const given = new Set(["__provider", "name", ...Object.keys(ARGS)]);
  const defaults = Object.fromEntries(Object.entries(scaleSet.inputs).filter(([key]) => !given.has(key)));
  const computed = Object.fromEntries(Object.entries(scaleSet.outputs).filter(([key]) => key !== "__provider" && !(key in scaleSet.inputs!)));
  return { defaults, computed };
}

function shapeProviderModule(shape: StateShape): string {
  return `// Written by pulumi-garm's bench: a no-op dynamic provider with a GarmScaleSet's state shape.
const DEFAULTS = ${JSON.stringify(shape.defaults)};
const COMPUTED = ${JSON.stringify(shape.computed)};
exports.check = async (olds, news) => ({ inputs: { ...DEFAULTS, ...news } });
exports.create = async (inputs) => ({ id: inputs.name, outs: { ...inputs, ...COMPUTED } });
`;
}

function writeSource(root: string, kind: Kind): string {
  const dir = path.join(root, kind);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: bench-${kind}\nruntime: nodejs\n`);
  fs.writeFileSync(path.join(dir, "package.json"), benchPackageJson("bench-cli"));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), TSCONFIG);
  fs.writeFileSync(path.join(dir, "index.ts"), kind === "shape" ? SHAPE_PROGRAM : PROGRAMS[kind]);
  return dir;
}

/** Installs the shape's provider where Pulumi's serializer names it by package, as it names pulumi-garm's. */
function installShapeProvider(project: PulumiProject, shape: StateShape): void {
  const dir = path.join(project.dir, "node_modules", "bench-shape-provider");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "bench-shape-provider", version: "1.0.0", main: "index.js" }));
  fs.writeFileSync(path.join(dir, "index.js"), shapeProviderModule(shape));
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

/** Each project's median for one operation. */
const mediansOf = (series: Record<Kind, Record<Op, number[]>>, op: Op) =>
  Object.fromEntries(KINDS.map((kind) => [kind, median(series[kind][op])])) as Record<Kind, number>;

interface Measured {
  readonly ms: Record<Kind, Record<Op, number[]>>;
  readonly cpu: Record<Kind, Record<Op, number[]>>;
  readonly simulatorCpu: Record<Op, number[]>;
  readonly calls: Record<Op, { total: number; byPath: Record<string, number> }[]>;
}

/** ROUNDS counted rounds of up then destroy of every project, after one that warms the disk cache and is not counted. */
async function measure(projects: Record<Kind, PulumiProject>, sim: Simulator): Promise<Measured> {
  const series = () => ({ up: [] as number[], destroy: [] as number[] });
  const ms: Record<Kind, Record<Op, number[]>> = { garm: series(), noop: series(), shape: series() };
  const cpu: Record<Kind, Record<Op, number[]>> = { garm: series(), noop: series(), shape: series() };
  const simulatorCpu: Record<Op, number[]> = series();
  const calls: Record<Op, { total: number; byPath: Record<string, number> }[]> = { up: [], destroy: [] };
  // The order rotates each round.
  for (let round = 0; round <= ROUNDS; round++) {
    const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]);
    for (const op of ["up", "destroy"] as const) {
      for (const kind of order) {
        sim.clearRequests();
        const [children, self] = [childrenCpuMs(), process.cpuUsage()];
        const r = await projects[kind].cli([op, "--yes", "--skip-preview"]);
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
  return { ms, cpu, simulatorCpu, calls };
}

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
    const create = async (kind: Kind) => {
      const project = await PulumiProject.fromExample({ example: kind, source: writeSource(sources, kind), tarball, prefix: `pulumi-garm-bench-cli-${kind}-` });
      projects[kind] = project;
      await project.initStack("bench", config);
      return project;
    };
    const garmProject = await create("garm");
    await create("noop");
    // The shape floor copies the state a GarmScaleSet writes, so one garm up comes first (it also warms the caches).
    await garmProject.cli(["up", "--yes", "--skip-preview"]);
    const shape = await scaleSetShape(garmProject);
    installShapeProvider(await create("shape"), shape);
    const all = projects as Record<Kind, PulumiProject>;
    const withCheckpoints = await measure(all, sim);
    // Attribution only: the same runs without the file backend's checkpoint after every step, which rewrites the whole
    // state each time and so costs in proportion to what every resource stores. Not advice: a crash mid-run then loses
    // track of what was created.
    for (const kind of KINDS) all[kind].env.PULUMI_SKIP_CHECKPOINTS = "true";
    const withoutCheckpoints = await measure(all, sim);
    for (const kind of KINDS) delete all[kind].env.PULUMI_SKIP_CHECKPOINTS;
    const { ms, cpu, simulatorCpu, calls } = withCheckpoints;
    const seconds = (x: number) => `${(x / 1000).toFixed(2)} s`;
    const common = { loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))), cores: os.cpus().length, rounds: ROUNDS, count: COUNT };
    return (["up", "destroy"] as const).flatMap((op) => {
      const { garm, noop, shape: same } = mediansOf(ms, op);
      const { garm: garmCpu, noop: noopCpu, shape: sameCpu } = mediansOf(cpu, op);
      const perResource = (calls[op].at(-1)?.total ?? 0) / COUNT;
      const bare = mediansOf(withoutCheckpoints.ms, op);
      return [
        {
          target: `whole CLI \`pulumi ${op}\` of ${COUNT} scale sets within x${TARGET} of ${COUNT} no-op dynamic resources (real CLI from a project directory, simulator)`,
          measured:
            `${seconds(garm)} vs ${seconds(noop)} (x${(garm / noop).toFixed(2)}), medians of ${ROUNDS} rotating runs; ` +
            `CPU of the CLI's process tree ${seconds(garmCpu)} vs ${seconds(noopCpu)}, simulator ${seconds(median(simulatorCpu[op]))}; ` +
            `${perResource.toFixed(2)} GARM calls per scale set; a no-op with a GarmScaleSet's state takes ${seconds(same)} (x${(same / noop).toFixed(2)})`,
          met: garm / noop <= TARGET,
          details: { garmMs: ms.garm[op], noopMs: ms.noop[op], sameShapeMs: ms.shape[op], garmCpuMs: cpu.garm[op], noopCpuMs: cpu.noop[op], simulatorCpuMs: simulatorCpu[op], garmCalls: calls[op].at(-1), ...common },
        },
        {
          target: `whole CLI \`pulumi ${op}\` of ${COUNT} scale sets within x${TARGET} of ${COUNT} no-ops with a GarmScaleSet's state (what pulumi-garm adds to Pulumi's cost for that state)`,
          measured:
            `${seconds(garm)} vs ${seconds(same)} (x${(garm / same).toFixed(2)}), CPU ${seconds(garmCpu)} vs ${seconds(sameCpu)}; ` +
            `the state: ${Object.keys(shape.defaults).length} defaults in the inputs, ${Object.keys(shape.computed).length} computed outputs, ${SCALE_SET_OUTPUT_PLACEHOLDERS.length} output placeholders; ` +
            `without per-step checkpoints (PULUMI_SKIP_CHECKPOINTS, for attribution) garm ${seconds(bare.garm)}, same state ${seconds(bare.shape)}, no-op ${seconds(bare.noop)}`,
          met: garm / same <= TARGET,
          details: {
            garmMs: ms.garm[op],
            sameShapeMs: ms.shape[op],
            garmCpuMs: cpu.garm[op],
            sameShapeCpuMs: cpu.shape[op],
            withoutCheckpoints: { garmMs: withoutCheckpoints.ms.garm[op], sameShapeMs: withoutCheckpoints.ms.shape[op], noopMs: withoutCheckpoints.ms.noop[op] },
            shape,
            ...common,
          },
        },
      ];
    });
  } finally {
    for (const p of Object.values(projects)) p?.close({ keep: process.env.BENCH_CLI_KEEP === "1" });
    fs.rmSync(sources, { recursive: true, force: true });
    await sim.stop();
  }
}
