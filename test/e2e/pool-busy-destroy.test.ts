// Issue 16: a GarmPool whose runner is busy is destroyed only after its job completes, against the REAL GARM v0.2.1 (mock
// GitHub, fake external provider) with the real `pulumi` CLI and the package installed from its npm tarball.
// A classic pool learns of jobs only from `workflow_job` webhooks (runner/pool/pool.go L406-482), so the test acts as GitHub: it POSTs
// signed queued / in_progress / completed webhooks to GARM's webhook URL, and acts as the runner (the fake provider's
// runner agent reports installing → idle through the callback URL).
import * as assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { locateLanguageHost, locatePulumi } from "../../harness/pulumi-cli";
import { type CliResult, PulumiProject, REPO_ROOT, packOnce } from "../../harness/pulumi-cli/project";
import { locateGarm, waitFor } from "../../harness/real-garm";
import { startE2eEnvironment, type E2eEnvironment } from "../../harness/real-garm/environment";

interface Pool {
  id: string;
  enabled?: boolean;
  instances?: unknown[];
}
interface Instance {
  name: string;
  status: string;
  runner_status?: string;
  pool_id?: string;
}
interface Job {
  /** GARM's own id; the GitHub job id is workflow_job_id (garm-behaviour.md §3.3). */
  workflow_job_id?: number;
  status?: string;
  runner_name?: string;
}

/** The pool's only label: a queued job asking for it matches this pool alone (FindPoolsMatchingAllTags, runner/pool/pool.go L2136-2145). */
const LABEL = "e2e-busy-pool";
/** How long the test holds the job running while `pulumi destroy` waits. */
const HOLD_MS = 25_000;
/** GARM's reaction to a webhook or a 5 s consolidation tick (runner/common/pool.go L26), generous for a loaded 2-core machine. */
const GARM_MS = 150_000;

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as garm from "pulumi-garm";

const pool = new garm.GarmPool("busy", {
  organization: "acme",
  providerName: "fake",
  image: "img",
  flavor: "small",
  labels: [${JSON.stringify(LABEL)}],
  minIdleRunners: 0,
  maxRunners: 1,
  drain: { timeoutSeconds: 400, pollSeconds: 1 },
});

export const poolId = pool.poolId;
`;

describe("e2e: GarmPool with a busy runner against real GARM v0.2.1 (npm tarball, `pulumi` CLI)", function () {
  this.timeout(900_000);
  let env: E2eEnvironment | undefined;
  let agent: { stop(): void } | undefined;
  let project: PulumiProject | undefined;
  let source = "";
  let failed = false;

  const garm = () => env!.garm;

  /**
   * POSTs a signed `workflow_job` webhook to GARM's bare webhook URL (apiserver/routers/routers.go L146-150). GARM reads
   * X-Github-Event (apiserver/controllers/controllers.go L201-204) and X-Github-Hook-Installation-Target-Type to find the
   * org's pool manager (runner/runner.go L855-868), matches workflow_job.html_url's scheme+host to the endpoint's base_url
   * (runner/runner.go L799-829) and checks X-Hub-Signature-256 against the org's webhook secret (runner/runner.go
   * L887-893, L756-797). started_at is set: GARM's job record keeps it, and the drain ages busy jobs by it.
   */
  async function sendJob(action: "queued" | "in_progress" | "completed", jobId: number, runnerName = ""): Promise<void> {
    const mockUrl = env!.mock.url;
    const now = new Date().toISOString();
    const payload = {
      action,
      workflow_job: {
        id: jobId,
        run_id: jobId * 10,
        html_url: `${mockUrl}/acme/app/actions/runs/${jobId * 10}/job/${jobId}`,
        status: action,
        conclusion: action === "completed" ? "success" : "",
        name: "build",
        started_at: now,
        ...(action === "completed" ? { completed_at: now } : {}),
        labels: [LABEL],
        // The id the mock GitHub gave the runner with its JIT config, as GitHub would send it.
        runner_id: runnerName ? (env!.mock.findAgentByName(runnerName)?.id ?? 0) : 0,
        runner_name: runnerName,
        runner_group_id: runnerName ? 1 : 0,
        runner_group_name: runnerName ? "Default" : "",
      },
      repository: { id: 1, name: "app", full_name: "acme/app", html_url: `${mockUrl}/acme/app`, owner: { login: "acme", id: 1 } },
      organization: { login: "acme", id: 1 },
    };
    const body = JSON.stringify(payload);
    const signature = `sha256=${createHmac("sha256", garm().webhookSecret).update(body).digest("hex")}`;
    const res = await fetch(`${garm().url}/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "X-Github-Event": "workflow_job",
        "X-Github-Hook-Installation-Target-Type": "organization",
        "X-Hub-Signature-256": signature,
      },
      body,
    });
    const text = await res.text();
    assert.equal(res.status, 200, `webhook ${action} for job ${jobId}: GARM answered ${res.status} ${text}`);
  }

  const poolInstances = async (poolId: string) => (await garm().api<Instance[]>("GET", `/pools/${poolId}/instances`)).body;
  const instance = async (name: string) => garm().api<Instance>("GET", `/instances/${name}`);
  /** GARM's access log lines for a DELETE of this runner (apiserver/routers/routers.go L123-139). */
  const deleteRequestsFor = (name: string) => garm().logs().split("\n").filter((l) => /method=DELETE/.test(l) && l.includes(`/instances/${name}`));
  /** DeleteInstance calls the fake provider logged for this runner (GARM passes the provider_id or the name, §11.2). */
  const providerDeletesOf = (name: string) =>
    garm()
      .provider.calls()
      .filter((c) => c.cmd === "DeleteInstance" && [name, `fake-${name}`].includes(c.instanceId));

  before(async function () {
    locateGarm();
    locatePulumi();
    locateLanguageHost();
    const tarball = await packOnce();
    env = await startE2eEnvironment();
    agent = garm().provider.startRunnerAgent({ intervalMs: 500 });
    source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-pool-busy-src-"));
    const example = path.join(REPO_ROOT, "examples", "pools-templates");
    for (const f of ["Pulumi.yaml", "package.json", "tsconfig.json"]) fs.copyFileSync(path.join(example, f), path.join(source, f));
    fs.writeFileSync(path.join(source, "index.ts"), PROGRAM);
    project = await PulumiProject.fromExample({ example: "pool-busy-destroy", source, tarball, prefix: "pulumi-garm-e2e-pool-busy-" });
    await project.initStack("dev", {
      "garm:url": garm().url,
      "garm:username": garm().username,
      "garm:password": { value: garm().password, secret: true },
    });
  });
  afterEach(function () {
    if (this.currentTest?.state === "failed") {
      failed = true;
      if (env) console.log(`    GARM log tail:\n${garm().logs().split("\n").slice(-60).join("\n")}`);
    }
  });
  after(async function () {
    agent?.stop();
    await env?.stop({ keep: failed });
    project?.close({ keep: failed });
    if (source) fs.rmSync(source, { recursive: true, force: true });
  });

  it("`pulumi destroy` leaves the pool disabled with its busy runner until the job completes, then removes both", async function () {
    const p = project!;
    await p.cli(["up", "--yes"]);
    const poolId = String((await p.outputs()).poolId);
    const created = await garm().api<Pool>("GET", `/pools/${poolId}`);
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.enabled, true);
    assert.deepEqual(await poolInstances(poolId), [], "min idle 0: no runner before a job");

    // queued: GARM records the job (runner/pool/pool.go L454-463, L188-212) and the job queue consumer makes a runner in
    // the matching pool once the job is older than minimum_job_age_backoff (30 s by default, database/sql/controller.go
    // L145; runner/pool/pool.go L2102-2108, L2160-2181). The runner agent then reports it installing → idle.
    const jobId = 4242;
    await sendJob("queued", jobId);
    const runner = await waitFor(
      `an idle runner in pool ${poolId} for job ${jobId}`,
      async (seen) => {
        const l = await poolInstances(poolId);
        seen(l.map((i) => `${i.name} ${i.status}/${i.runner_status ?? "-"}`));
        return l.find((i) => i.status === "running" && i.runner_status === "idle");
      },
      GARM_MS,
    );

    // in_progress naming the runner: GARM sets its runner_status active (runner/pool/pool.go L357-372) and the job record
    // to in_progress with the runner's name (L454, L234-289).
    await sendJob("in_progress", jobId, runner.name);
    await waitFor(
      `runner ${runner.name} active`,
      async (seen) => {
        const r = await instance(runner.name);
        seen(r.body);
        return r.body.runner_status === "active" ? true : undefined;
      },
      GARM_MS,
    );
    const jobs = (await garm().api<Job[]>("GET", "/jobs")).body;
    assert.ok(
      jobs.some((j) => j.workflow_job_id === jobId && j.status === "in_progress" && j.runner_name === runner.name),
      `GARM records job ${jobId} in_progress on ${runner.name}: ${JSON.stringify(jobs)}`,
    );

    let destroyed: CliResult | undefined;
    let destroyError: unknown;
    const destroy = p.cli(["destroy", "--yes"], { timeoutMs: 600_000 }).then(
      (r) => (destroyed = r),
      (e: unknown) => (destroyError = e),
    );

    // The drain disables the pool first (provider/kinds/pool/drain.ts); GARM never scales a disabled pool down
    // (runner/pool/pool.go L1225-1233) and refuses to delete a pool that has runners (runner/pools.go L51-72).
    await waitFor(
      `pool ${poolId} disabled by the destroy`,
      async (seen) => {
        const r = await garm().api<Pool>("GET", `/pools/${poolId}`);
        seen(r.status === 200 ? { enabled: r.body.enabled } : r.status);
        return r.status === 200 && r.body.enabled !== true ? true : undefined;
      },
      GARM_MS,
    );
    const holdUntil = Date.now() + HOLD_MS;
    let checks = 0;
    while (Date.now() < holdUntil) {
      assert.equal(destroyed, undefined, `destroy finished while the job ran:\n${destroyed?.stdout}\n${destroyed?.stderr}`);
      assert.equal(destroyError, undefined, String(destroyError));
      const pool = await garm().api<Pool>("GET", `/pools/${poolId}`);
      assert.equal(pool.status, 200, `pool ${poolId} still in GARM while its runner is busy: ${pool.text}`);
      assert.notEqual(pool.body.enabled, true, "pool stays disabled");
      const r = await instance(runner.name);
      assert.equal(r.status, 200, `busy runner ${runner.name} still in GARM: ${r.text}`);
      assert.equal(r.body.status, "running");
      assert.equal(r.body.runner_status, "active");
      assert.deepEqual(deleteRequestsFor(runner.name), [], "nobody asked GARM to delete the busy runner");
      assert.deepEqual(providerDeletesOf(runner.name), [], "the provider was never told to delete the busy runner");
      checks++;
      await new Promise((res) => setTimeout(res, 2000));
    }
    assert.ok(checks >= 5, `held the job for ${HOLD_MS} ms with ${checks} checks`);

    // completed: GARM marks the runner terminated and pending_delete (runner/pool/pool.go L292-354); its
    // delete_pending loop (always running, every 5 s: L1890, runner/common/pool.go L26) removes it through the provider.
    // The drain then finds no runners and deletes the pool.
    const completedAt = Date.now();
    await sendJob("completed", jobId, runner.name);
    await Promise.race([destroy, new Promise((res) => setTimeout(res, GARM_MS))]);
    assert.equal(destroyError, undefined, String(destroyError));
    assert.ok(destroyed, `pulumi destroy still running ${GARM_MS} ms after the job completed`);
    assert.equal(destroyed.code, 0);
    assert.equal((await garm().api("GET", `/pools/${poolId}`)).status, 404, "pool gone");
    assert.deepEqual((await garm().api<Instance[]>("GET", "/instances")).body, [], "GARM has no runner left");
    assert.deepEqual(garm().provider.instances(), [], "the provider holds no instance");
    const deletes = providerDeletesOf(runner.name);
    assert.equal(deletes.length >= 1, true, "the runner was deleted through the provider");
    assert.ok(
      deletes.every((c) => Date.parse(c.at) >= completedAt - 1000),
      `every provider delete came after the job completed (${new Date(completedAt).toISOString()}): ${JSON.stringify(deletes)}`,
    );
    assert.deepEqual(await p.outputs(), {});
  });
});
