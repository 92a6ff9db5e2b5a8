// Job messages and failure switches against the real GARM v0.2.1: checks that the mock GitHub's control surface drives
// GARM the way garm-api.md §7.5-7.7 describes, and pins down the real behaviours the provider must live with.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startMockGithub, type MockGithub } from "../support/mock-github";
import { locateGarm, startRealGarm, waitFor, type RealGarm } from "../support/real-garm";

interface Instance {
    name: string;
    status: string;
    runner_status?: string;
    provider_id?: string;
}
interface Job {
    scaleset_job_id?: string;
    status?: string;
    runner_name?: string;
    conclusion?: string;
    action?: string;
}
interface ScaleSet {
    id: number;
    scale_set_id?: number;
    desired_runner_count?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("e2e: real GARM job messages and GitHub failure switches", function () {
    this.timeout(300000);
    let workDir = "";
    let mock: MockGithub | undefined;
    let garm: RealGarm | undefined;
    let failed = false;
    let ss: ScaleSet;

    const instances = async () => (await garm!.api<Instance[]>("GET", `/scalesets/${ss.id}/instances`)).body;
    const instance = async (name: string) => (await garm!.api<Instance>("GET", `/instances/${name}`)).body;

    before(async function () {
        const garmBinary = locateGarm();
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-jobs-"));
        mock = await startMockGithub({ longPollMs: 1000 });
        garm = await startRealGarm({ garmBinary, workDir, mockGithubUrl: mock.url });
        const r = await garm.api<ScaleSet>("POST", `/organizations/${garm.orgId}/scalesets`, {
            name: "e2e-jobs",
            provider_name: "fake",
            min_idle_runners: 1,
            max_runners: 3,
            os_type: "linux",
            image: "img",
            flavor: "small",
            enabled: true,
        });
        assert.equal(r.status, 200, r.text);
        ss = r.body;
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            failed = true;
            if (garm) console.log(`    GARM log tail:\n${garm.logs().split("\n").slice(-40).join("\n")}`);
        }
    });

    after(async function () {
        await garm?.stop();
        await mock?.close();
        if (!workDir) return;
        if (failed || process.env.KEEP_E2E_DIRS) console.log(`    (kept ${workDir})`);
        else fs.rmSync(workDir, { recursive: true, force: true });
    });

    let r1 = "";

    it("a runner reports installing → idle through the callback URL (acting as the runner)", async function () {
        const up = await waitFor("one running runner", async () => {
            const l = await instances();
            return l.length === 1 && l[0].status === "running" ? l[0] : undefined;
        }, 90000);
        r1 = up.name;
        assert.equal(up.runner_status, "pending", "nothing reports for a fake runner, so it stays pending");
        assert.ok(await garm!.provider.reportRunnerIdle(r1));
        assert.equal((await instance(r1)).runner_status, "idle");
    });

    it("JobAssigned raises desired_runner_count and GARM scales up to min_idle + assigned", async function () {
        const a = mock!.pushJobAssigned(ss.scale_set_id!);
        await mock!.waitForQueueDrained(ss.scale_set_id!, 20000);
        const got = await garm!.api<ScaleSet>("GET", `/scalesets/${ss.id}`);
        assert.equal(got.body.desired_runner_count, 1);
        await waitFor("two runners", async () => ((await instances()).filter((i) => i.status === "running").length === 2 ? true : undefined), 60000);
        const jobs = (await garm!.api<Job[]>("GET", "/jobs")).body;
        const j = jobs.find((x) => x.scaleset_job_id === a.entry.jobId);
        assert.ok(j, "job recorded");
        assert.equal(j.status, "queued");
        assert.equal(j.action, "push", "action is the GitHub event name for scale-set jobs (§7.3)");
    });

    it("JobStarted is refused while the runner is still `pending` (redelivered until it reports idle)", async function () {
        const other = (await instances()).find((i) => i.name !== r1)!;
        assert.equal(other.runner_status, "pending");
        mock!.pushJobStarted(other.name);
        await sleep(1500);
        // GARM: "invalid runner status transition from pending to active"; the message is not acknowledged.
        assert.equal((await instance(other.name)).runner_status, "pending");
        assert.ok(mock!.pendingMessages(ss.scale_set_id!) > 0, "message still queued (not acknowledged)");
        assert.match(garm!.logs(), /invalid runner status transition from pending to active/);
        assert.ok(await garm!.provider.reportRunnerIdle(other.name));
        await mock!.waitForQueueDrained(ss.scale_set_id!, 20000);
        assert.equal((await instance(other.name)).runner_status, "active");
        // finish it so it goes away
        mock!.pushJobCompleted(other.name);
        await mock!.waitForQueueDrained(ss.scale_set_id!, 20000);
        await waitFor("finished runner removed", async () => ((await garm!.api("GET", `/instances/${other.name}`)).status === 404 ? true : undefined), 60000);
    });

    it("JobStarted marks the runner active; a busy runner cannot be deleted; JobCompleted removes it", async function () {
        const started = mock!.pushJobStarted(r1);
        await mock!.waitForQueueDrained(ss.scale_set_id!, 20000);
        assert.equal((await instance(r1)).runner_status, "active");
        const jobs = (await garm!.api<Job[]>("GET", "/jobs")).body;
        const j = jobs.find((x) => x.scaleset_job_id === started.entry.jobId);
        assert.equal(j?.status, "in_progress");
        assert.equal(j?.runner_name, r1);

        // The mock refuses to remove a busy agent (400 JobStillRunningException) → GARM answers 400 and keeps it.
        const del = await garm!.api<{ error: string; details: string }>("DELETE", `/instances/${r1}`);
        assert.equal(del.status, 400, del.text);
        assert.match(del.body.details, /error removing runner from github/);
        assert.equal((await instance(r1)).status, "running");

        mock!.pushJobCompleted(r1, { jobId: started.entry.jobId, result: "succeeded" });
        await mock!.waitForQueueDrained(ss.scale_set_id!, 20000);
        await waitFor("completed runner removed", async () => ((await garm!.api("GET", `/instances/${r1}`)).status === 404 ? true : undefined), 60000);
        assert.ok(!garm!.provider.instances().some((i) => i.name === r1), "provider instance deleted");
    });

    it("maps GitHub 401/403/500 on runner removal to 401/401/500; bypassGHUnauthorized bypasses any error", async function () {
        const victim = await waitFor("a running runner", async () => (await instances()).find((i) => i.status === "running"), 60000);
        mock!.failNext("removeRunner", 401);
        let r = await garm!.api<{ error: string; details: string }>("DELETE", `/instances/${victim.name}`);
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { error: "Not Authorized", details: "" });
        mock!.failNext("removeRunner", 403);
        r = await garm!.api("DELETE", `/instances/${victim.name}`);
        assert.equal(r.status, 401);
        mock!.failNext("removeRunner", 500);
        r = await garm!.api("DELETE", `/instances/${victim.name}`);
        assert.equal(r.status, 500);
        assert.equal((await instance(victim.name)).status, "running", "nothing changed after the failures");
        mock!.failNext("removeRunner", 500);
        r = await garm!.api("DELETE", `/instances/${victim.name}?bypassGHUnauthorized=true`);
        assert.equal(r.status, 200, "bypassGHUnauthorized bypasses a GitHub 500 too (§6 step 3)");
    });

    it("a provider delete failure shows up as provider_fault on a pending_delete runner, and heals", async function () {
        const put = await garm!.api("PUT", `/scalesets/${ss.id}`, { enabled: false, min_idle_runners: 0, max_runners: 0 });
        assert.equal(put.status, 200, put.text);
        garm!.provider.setFailDelete(true);
        try {
            const stuck = await waitFor(
                "provider_fault",
                async () => (await garm!.api<(Instance & { provider_fault?: string })[]>("GET", `/scalesets/${ss.id}/instances`)).body.find((i) => i.provider_fault),
                60000,
            );
            assert.equal(stuck.status, "pending_delete");
            assert.match(Buffer.from(stuck.provider_fault!, "base64").toString(), /injected delete failure/);
        } finally {
            garm!.provider.setFailDelete(false);
        }
        await waitFor("all runners gone", async () => ((await instances()).length === 0 ? true : undefined), 90000);
    });

    it("a failed GitHub scale-set delete returns 200 but keeps the scale set (§5 inverted check); a retry deletes it", async function () {
        mock!.failNext("deleteScaleSet", 500);
        const first = await garm!.api("DELETE", `/scalesets/${ss.id}`);
        assert.equal(first.status, 200);
        assert.equal((await garm!.api("GET", `/scalesets/${ss.id}`)).status, 200, "still there");
        const second = await garm!.api("DELETE", `/scalesets/${ss.id}`);
        assert.equal(second.status, 200);
        assert.equal((await garm!.api("GET", `/scalesets/${ss.id}`)).status, 404);
        assert.equal((await garm!.api("DELETE", `/scalesets/${ss.id}`)).status, 200, "delete of a missing scale set is idempotent");
        assert.ok(garm!.running());
    });
});
