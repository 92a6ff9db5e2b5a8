// Issue 36's measure: a program of 100 GarmScaleSets that also reads getController, getProviders and 100 getScaleSets,
// previewed with the real CLI against the same program without the functions. What the functions add: GARM calls
// (one login per program, one call per distinct GARM read) and preview time, as a ratio.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GarmClient } from "../provider/garm/client";
import { locateLanguageHost, locatePulumi } from "../harness/pulumi-cli";
import { PulumiProject, packOnce } from "../harness/pulumi-cli/project";
import { type Simulator, startSimulator } from "../simulator";
import type { Result } from "./events";

const COUNT = Number(process.env.BENCH_FUNCTIONS_COUNT ?? 100);
const ROUNDS = Number(process.env.BENCH_FUNCTIONS_ROUNDS ?? 3);

const RESOURCES = `for (let i = 0; i < ${COUNT}; i++) {
  new garm.GarmScaleSet(\`s\${i}\`, { name: \`bench-\${i}\`, organization: "acme", providerName: "fake", image: "ubuntu", flavor: "small", labels: ["linux", "x64"], maxRunners: 2 });
}
`;

const PROGRAMS = {
  without: `import * as garm from "pulumi-garm";\n\n${RESOURCES}`,
  with: `import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

${RESOURCES}
export const webhookUrl = garm.getControllerOutput().controllerWebhookUrl;
export const providers = garm.getProvidersOutput().providers;
const existing: pulumi.Output<number>[] = [];
for (let i = 0; i < ${COUNT}; i++) existing.push(garm.getScaleSetOutput({ name: \`existing-\${i}\`, organization: "acme" }).id);
export const existingIds = pulumi.all(existing);
`,
} as const;
type Kind = keyof typeof PROGRAMS;

function writeSource(root: string, kind: Kind): string {
  const dir = path.join(root, kind);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: bench-functions-${kind}\nruntime: nodejs\n`);
  const pkg = { name: `bench-functions-${kind}`, private: true, main: "index.ts", dependencies: { "@pulumi/pulumi": "3.248.0", "pulumi-garm": "^0.1.0" }, devDependencies: { "@types/node": "^20.19.0", typescript: "~5.9.3" } };
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2));
  const tsconfig = { compilerOptions: { strict: true, target: "ES2022", module: "commonjs", moduleResolution: "node", esModuleInterop: true, skipLibCheck: true, types: ["node"] }, files: ["index.ts"] };
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  fs.writeFileSync(path.join(dir, "index.ts"), PROGRAMS[kind]);
  return dir;
}

/** "METHOD /path?query" -> count, of the requests since the last clear. */
function requestCounts(sim: Simulator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of sim.requests()) counts.set(`${r.method} ${r.path}${r.query}`, (counts.get(`${r.method} ${r.path}${r.query}`) ?? 0) + 1);
  return counts;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function functionsInPreview(): Promise<Result[]> {
  locatePulumi();
  locateLanguageHost();
  const sim = await startSimulator({ tickMs: 0 });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-bench-functions-"));
  const projects: Partial<Record<Kind, PulumiProject>> = {};
  try {
    const rest = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
    for (let i = 0; i < COUNT; i++) {
      const body = { name: `existing-${i}`, provider_name: "fake", image: "img", flavor: "small", os_type: "linux", os_arch: "amd64", labels: ["linux"], max_runners: 1, enabled: false };
      await rest.createScaleSet({ kind: "organization", id: sim.organizationId }, body);
    }
    await rest.close();
    const tarball = await packOnce();
    for (const kind of Object.keys(PROGRAMS) as Kind[]) {
      const project = await PulumiProject.fromExample({ example: `bench-functions-${kind}`, source: writeSource(root, kind), tarball });
      projects[kind] = project;
      await project.initStack("bench", { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });
    }
    const ms: Record<Kind, number[]> = { without: [], with: [] };
    const calls: Record<Kind, Map<string, number>[]> = { without: [], with: [] };
    // One uncounted round warms the disk cache; the order alternates.
    for (let round = 0; round <= ROUNDS; round++) {
      const order: Kind[] = round % 2 === 0 ? ["without", "with"] : ["with", "without"];
      for (const kind of order) {
        sim.clearRequests();
        const r = await projects[kind]!.cli(["preview"]);
        if (round === 0) continue;
        ms[kind].push(r.durationMs);
        calls[kind].push(requestCounts(sim));
      }
    }
    // What the functions asked: the requests of the program with them beyond those of the one without.
    const added = new Map<string, number>();
    for (const [request, n] of calls.with[0]!) {
      const extra = n - (calls.without[0]!.get(request) ?? 0);
      if (extra > 0) added.set(request, extra);
    }
    const logins = added.get("POST /api/v1/auth/login") ?? 0;
    const repeated = [...added].filter(([request, n]) => n > 1 && !request.endsWith("/auth/login"));
    const addedCalls = [...added.values()].reduce((a, b) => a + b, 0);
    const ratio = median(ms.with) / median(ms.without);
    const lookups = COUNT + 2;
    return [
      {
        target: `functions in a preview of ${COUNT} scale sets (getController, getProviders, ${COUNT} getScaleSet): one login per program, at most one GARM call per distinct look-up`,
        measured: `${addedCalls} GARM calls added for ${lookups} look-ups (${logins} login): ${[...added.keys()].join(", ")}`,
        met: logins === 1 && repeated.length === 0 && addedCalls - logins <= lookups,
        details: { added: Object.fromEntries(added) },
      },
      {
        target: `functions' added preview time for ${COUNT} scale sets (ratio to the same program without them; the issue sets no bound)`,
        measured: `x${ratio.toFixed(2)}: median ${(median(ms.with) / 1000).toFixed(1)} s against ${(median(ms.without) / 1000).toFixed(1)} s over ${ROUNDS} rounds`,
        met: true,
        details: { withMs: ms.with, withoutMs: ms.without },
      },
    ];
  } finally {
    for (const p of Object.values(projects)) p?.close();
    fs.rmSync(root, { recursive: true, force: true });
    await sim.stop();
  }
}
