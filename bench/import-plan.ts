// Issue 26: `pulumi-garm import-plan` on a GARM with 500 scale sets and 200 pools: the GARM calls it makes (one list per
// kind and forge, the controller and the login, whatever the count) and its time as a ratio to the same calls made bare
// (fetch and JSON.parse, no client, no parsing into views, no plan), in the same run against the same simulator.
import { importPlan } from "../cli/import-plan/command";
import { GarmClient } from "../provider/garm/client";
import { startSimulator } from "../simulator";

interface Result {
  target: string;
  measured: string;
  met: boolean;
  details?: Record<string, unknown>;
}

const SCALE_SETS = 500;
const POOLS = 200;
/** What the plan reads: every list it asks (ENTITY and FORGE lists) and the controller. */
const READS = ["/controller", "/github/endpoints", "/gitea/endpoints", "/github/credentials", "/gitea/credentials", "/organizations", "/repositories", "/enterprises", "/templates", "/pools", "/scalesets", "/providers"];
const RUNS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function populate(login: { url: string; username: string; password: string }): Promise<void> {
  const rest = new GarmClient(login);
  try {
    const org = (await rest.findEntities("organization", "acme"))[0].id;
    const repo = (await rest.findEntities("repository", "acme/app"))[0].id;
    const base = { provider_name: "fake", image: "ubuntu-24.04", os_type: "linux", os_arch: "amd64", enabled: false, min_idle_runners: 0, max_runners: 2 } as const;
    const jobs = [
      ...Array.from({ length: SCALE_SETS }, (_, i) => () =>
        rest.createScaleSet({ kind: i % 2 ? "organization" : "repository", id: i % 2 ? org : repo }, { ...base, flavor: "small", name: `bench-${i}`, labels: ["linux", `n${i}`] } as never)),
      ...Array.from({ length: POOLS }, (_, i) => () =>
        rest.createPool({ kind: i % 2 ? "organization" : "repository", id: i % 2 ? org : repo }, { ...base, flavor: `f-${i}`, tags: ["linux", `p${i}`] } as never)),
    ];
    // The client bounds its requests in flight; queue them all.
    await Promise.all(jobs.map((job) => job()));
  } finally {
    await rest.close();
  }
}

/** The same reads, bare: a login and the GETs at once, each answer only JSON-parsed. */
async function bareReads(sim: { url: string; username: string; password: string }): Promise<void> {
  const api = `${sim.url}/api/v1`;
  const login = await fetch(`${api}/auth/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ username: sim.username, password: sim.password }) });
  const { token } = (await login.json()) as { token: string };
  await Promise.all(READS.map(async (p) => (await fetch(`${api}${p}`, { headers: { Authorization: `Bearer ${token}` } })).json()));
}

export async function importPlanAtScale(): Promise<Result[]> {
  const sim = await startSimulator({ tickMs: 0 });
  try {
    await populate(sim);
    const argv = ["--url", sim.url, "--username", sim.username, "--password", sim.password];
    const planMs: number[] = [];
    const bareMs: number[] = [];
    let calls = 0;
    let resources = 0;
    let simCalls = 0;
    for (let run = 0; run <= RUNS; run++) {
      // Alternated, the first of each thrown away as warm-up.
      const t0 = performance.now();
      await bareReads(sim);
      const bare = performance.now() - t0;
      sim.clearRequests();
      const t1 = performance.now();
      const outcome = await importPlan(argv, { stdout: () => {}, stderr: () => {}, env: {} });
      const planned = performance.now() - t1;
      simCalls = sim.requests().length;
      calls = outcome!.garmCalls;
      resources = outcome!.plan.file.resources.length;
      if (run > 0) {
        planMs.push(planned);
        bareMs.push(bare);
      }
    }
    const plan = median(planMs);
    const bare = median(bareMs);
    const ratio = plan / bare;
    const expectedCalls = READS.length + 1;
    return [
      {
        target: `import-plan of ${SCALE_SETS} scale sets and ${POOLS} pools: one list per kind and forge, the controller and the login (${expectedCalls} GARM calls), no per-object reads`,
        measured: `${calls} GARM calls (${simCalls} seen by GARM) for ${resources} resources`,
        met: calls === expectedCalls && simCalls === expectedCalls,
      },
      {
        target: `import-plan of ${SCALE_SETS} scale sets and ${POOLS} pools: time within 2x the bare list calls`,
        measured: `${plan.toFixed(0)} ms against ${bare.toFixed(0)} ms bare: ratio ${ratio.toFixed(2)}`,
        met: ratio <= 2,
        details: { planMs, bareMs, runs: RUNS },
      },
    ];
  } finally {
    await sim.stop();
  }
}
