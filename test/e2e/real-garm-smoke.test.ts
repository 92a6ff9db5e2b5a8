// Smoke test of the real-GARM fixtures: mock GitHub + real GARM v0.2.1 + fake external provider.
// Raw HTTP only (no provider code under test): create a scale set, see GARM bring a runner up through the fake provider,
// then disable → delete the runner → wait for teardown → delete the scale set → 404 (garm-behaviour.md Appendix B).
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startMockGithub, type MockGithub } from "../../harness/mock-github";
import { locateGarm, startRealGarm, waitFor, type RealGarm } from "../../harness/real-garm";

interface Instance {
    name: string;
    status: string;
    runner_status?: string;
    agent_id?: number;
    provider_id?: string;
    provider_fault?: string;
}

interface ScaleSet {
    id: number;
    scale_set_id?: number;
    name: string;
    enabled?: boolean;
}

describe("e2e: real GARM v0.2.1 against the mock GitHub and the fake provider", function () {
    this.timeout(300000);
    let workDir = "";
    let mock: MockGithub | undefined;
    let garm: RealGarm | undefined;
    let failed = false;
    const timings: Record<string, number> = {};

    before(async function () {
        const garmBinary = locateGarm(); // clear "run make tools" error when missing
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-garm-"));
        mock = await startMockGithub({ longPollMs: 1500 });
        const t0 = Date.now();
        garm = await startRealGarm({ garmBinary, workDir, mockGithubUrl: mock.url });
        timings.garmStartMs = garm.lastStartMs;
        timings.garmStartAndBootstrapMs = Date.now() - t0;
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            failed = true;
            if (garm) console.log(`    GARM log tail:\n${garm.logs().split("\n").slice(-60).join("\n")}`);
        }
    });

    after(async function () {
        await garm?.stop();
        await mock?.close();
        console.log(`    timings: ${JSON.stringify(timings)}`);
        if (!workDir) return;
        if (failed || process.env.KEEP_E2E_DIRS) console.log(`    (kept ${workDir}; GARM log at ${path.join(workDir, "garm.log")})`);
        else fs.rmSync(workDir, { recursive: true, force: true });
    });

    it("is bootstrapped: org, repo, credentials, provider", async function () {
        const g = garm!;
        assert.ok(g.orgId && g.repoId, "bootstrap ids");
        const providers = await g.api<{ name: string; type: string }[]>("GET", "/providers");
        assert.equal(providers.status, 200);
        assert.deepEqual(
            providers.body.map((p) => [p.name, p.type]),
            [["fake", "external"]],
        );
        const org = await g.api<{ name: string; credentials_name: string }>("GET", `/organizations/${g.orgId}`);
        assert.equal(org.status, 200);
        assert.equal(org.body.name, "acme");
        assert.equal(org.body.credentials_name, g.credentialsName);
        // Every API call after controller URLs are set is accepted (no 409 urls_required, §1.6).
        const ss = await g.api("GET", "/scalesets");
        assert.equal(ss.status, 200);
    });

    it("brings a runner up through the fake provider, then tears everything down", async function () {
        const g = garm!;
        const m = mock!;

        // 1. Create (garm-behaviour.md §2.1, §4.4).
        const created = await g.api<ScaleSet>("POST", `/organizations/${g.orgId}/scalesets`, {
            name: "e2e-smoke",
            provider_name: "fake",
            min_idle_runners: 1,
            max_runners: 2,
            os_type: "linux",
            os_arch: "amd64",
            image: "ubuntu:24.04",
            flavor: "small",
            enabled: true,
            labels: ["e2e", "smoke"],
        });
        assert.equal(created.status, 200, created.text);
        const ss = created.body;
        assert.ok(ss.id > 0);
        const gh = m.scaleSets.get(ss.scale_set_id!);
        assert.ok(gh, `the mock got the GitHub scale set ${ss.scale_set_id}`);
        assert.equal(gh.name, "e2e-smoke");
        assert.deepEqual(
            gh.labels.map((l) => l.name),
            ["e2e-smoke", "e2e", "smoke"],
            "scale-set name first as a System label, then the custom labels (§4.2)",
        );

        // 2. GARM's listener opens a session and the autoscaler brings up min_idle_runners=1 runner.
        const t1 = Date.now();
        const up = await waitFor(
            "one running runner",
            async (seen) => {
                const r = await g.api<Instance[]>("GET", `/scalesets/${ss.id}/instances`);
                seen(r.status === 200 ? r.body.map((i) => `${i.name} ${i.status}`) : `${r.status} ${r.text}`);
                return r.status === 200 && r.body.length === 1 && r.body[0].status === "running" ? r.body : undefined;
            },
            120000,
            500,
        );
        timings.runnerUpMs = Date.now() - t1;
        const runner = up[0];
        assert.ok(m.sessionFor(ss.scale_set_id!), "the listener holds a message session");
        const agent = m.findAgentByName(runner.name);
        assert.ok(agent, "runner registered via generatejitconfig");
        assert.equal(agent.runnerScaleSetId, ss.scale_set_id);
        assert.equal(runner.agent_id, agent.id, "agent_id comes from the JIT config runner id (§10.2 J1)");
        const held = g.provider.instances().map((i) => i.name);
        assert.deepEqual(held, [runner.name], "the fake provider holds exactly the runner");
        assert.equal(runner.provider_id, `fake-${runner.name}`);

        // It stays at one runner (target = min(min_idle + desired, max) = 1, §7.6).
        await new Promise((r) => setTimeout(r, 6000));
        const steady = await g.api<Instance[]>("GET", `/scalesets/${ss.id}/instances`);
        assert.equal(steady.body.length, 1, "no extra runner after one more autoscale tick");

        // 3. Disable (the listener stops: session deleted with 2xx, §4.1 worker reaction).
        const disabled = await g.api<ScaleSet>("PUT", `/scalesets/${ss.id}`, { enabled: false });
        assert.equal(disabled.status, 200, disabled.text);
        assert.equal(disabled.body.enabled, undefined, "a disabled scale set omits `enabled` (§3.1)");
        await waitFor("session deleted", () => (m.sessionFor(ss.scale_set_id!) ? undefined : true), 60000, 250);

        // 4. Delete the runner; the provider worker tears it down asynchronously (§6, §6.1).
        const del = await g.api("DELETE", `/instances/${runner.name}`);
        assert.equal(del.status, 200, del.text);
        assert.equal(del.text, "", "DELETE /instances answers 200 with an empty body");
        const t2 = Date.now();
        await waitFor(
            "runner row removed",
            async (seen) => {
                const r = await g.api<Instance>("GET", `/instances/${runner.name}`);
                seen(r.status === 200 ? r.body.status : r.status);
                return r.status === 404 ? true : undefined;
            },
            120000,
            500,
        );
        timings.runnerTeardownMs = Date.now() - t2;
        assert.deepEqual(g.provider.instances(), [], "the fake provider deleted the instance");
        assert.equal(m.findAgentByName(runner.name), undefined, "GARM removed the runner from GitHub (§6 step 3)");
        const deletes = g.provider.calls().filter((c) => c.cmd === "DeleteInstance");
        assert.equal(deletes.length, 1);
        assert.equal(deletes[0].instanceId, runner.provider_id, "DeleteInstance gets the provider_id (§11.1)");

        // Disabled: no replacement runner even though min_idle_runners=1 (scale-up is skipped while disabled, §7.6).
        await new Promise((r) => setTimeout(r, 6000));
        const none = await g.api<Instance[]>("GET", `/scalesets/${ss.id}/instances`);
        assert.deepEqual(none.body, []);

        // 5. Delete the scale set: GitHub side first (exactly 204 from the mock), then the row (§5).
        const t3 = Date.now();
        const gone = await g.api("DELETE", `/scalesets/${ss.id}`);
        assert.equal(gone.status, 200, gone.text);
        const after = await g.api("GET", `/scalesets/${ss.id}`);
        assert.equal(after.status, 404, after.text);
        timings.scaleSetDeleteMs = Date.now() - t3;
        assert.equal(m.scaleSets.get(ss.scale_set_id!), undefined, "the GitHub-side scale set is gone");
        assert.equal(m.calls("deleteScaleSet", 204), 1);
        assert.ok(g.running(), "GARM is still alive (no panic on session delete etc.)");
    });
});
