// The end-to-end scenarios with the REAL Pulumi CLI (Automation API inline programs, file backend) driving
// pulumi-garm's GarmProvider and GarmScaleSet against the REAL GARM v0.2.1, the mock GitHub and the fake external
// provider. One GARM and one stack for the whole file: the scenarios chain (1 → 2 → 3 → 4) the way a user's stack would.
//
//   1. up: the GarmProvider writes its block into GARM's real config file and restarts GARM through `restartCommand`
//      (a curl to a control endpoint served by this test process, scenario-support.ts); the scale set on it gets its
//      min-idle runner from the fake provider.
//   2. label change: preview shows a replacement; up brings the new generation up before the old one is disabled.
//   3. destroy with a busy runner and a 20 s drain: fails naming the runner, keeps everything (provider block included).
//   4. destroy again (drain raised to 7 min) and restart GARM (8 s down) while it drains; the job completes; the same
//      run survives the restart and finishes: scale set gone, runner gone, provider block removed only after the scale set.
//
// How GARM learns that the job finished (scenario 4): the scale set is disabled by then, so GARM has no message-session
// listener and never receives the JobCompleted message (garm-behaviour.md §7.5). A restart does not help: the scale-set
// worker's Start() only re-examines runners in creating/deleting/deleted (§6.3), and the listener stays off while
// disabled. The only faithful path is the entity worker's 5-minute consolidation (C1, §7.5, §10.2), whose ticker starts
// when GARM starts: it sees the runner missing from GitHub's agent list (the mock drops it on JobCompleted, as GitHub
// drops an ephemeral runner) and marks it pending_delete. Scenario 4 restarts GARM, so that pass comes 5 minutes after
// the restart; we wait for it instead of using the drain's job-staleness shortcut, which would not test what users get.
// This makes the file take about 6.5 minutes on 2 cores (measured 6m17s-6m33s), 5 of them that wait, which scenarios
// 3 and 4 share: the job of scenario 3 is the one completed in scenario 4.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GarmProvider, GarmScaleSet } from "../../sdk/nodejs";
import { installFakeProvider, type FakeProvider } from "../../harness/fake-provider";
import { chainScenarios } from "../support/chained-scenarios";
import { locatePulumi, runPulumi, type PulumiOp, type RunPulumiResult } from "../../harness/pulumi-cli";
import { locateGarm, waitFor } from "../../harness/real-garm";
import { startE2eEnvironment, type E2eEnvironment } from "../../harness/real-garm/environment";
import { diagnostics, linesWith, providerNamesIn, startRestartControl, startSampler, type RestartControl, type Sample } from "./scenario-support";

interface ScaleSet {
    id: number;
    scale_set_id?: number;
    name: string;
    provider_name?: string;
    enabled?: boolean;
    min_idle_runners?: number;
    max_runners?: number;
    org_name?: string;
    tags?: { name: string }[];
}
interface Instance {
    name: string;
    status: string;
    runner_status?: string;
    scale_set_id?: number;
}
interface Job {
    status?: string;
    runner_name?: string;
}

/** The GarmProvider's GARM provider name; the hand-written one startRealGarm writes is "fake". */
const PROVIDER = "e2e";
const LABELS_V1 = ["linux", "x64", "e2e"];
const LABELS_V2 = ["linux", "x64", "e2e", "gpu"];
const SHORT_DRAIN = { timeoutSeconds: 20, pollSeconds: 2 };
// Scenario 4 waits for GARM's consolidation, 5 minutes after the restart it makes (see the header).
const LONG_DRAIN = { timeoutSeconds: 420, pollSeconds: 3 };

describe("e2e scenarios, inline programs (each built in the test process around its fixtures): real pulumi + real GARM v0.2.1 (GarmProvider + GarmScaleSet)", function () {
    this.timeout(600_000);

    let env: E2eEnvironment | undefined;
    let control: RestartControl | undefined;
    let e2eFake: FakeProvider;
    let agent: { stop(): void } | undefined;
    let pulumiDir = "";
    let originalConfig = "";
    let lastRun: RunPulumiResult | undefined;
    const timings: Record<string, number> = {};
    const suiteStart = Date.now();

    // Carried from one scenario to the next.
    let gen1: ScaleSet;
    let gen2: ScaleSet;
    let busyRunner = "";

    const garm = () => env!.garm;
    const mock = () => env!.mock;

    function program(labels: string[], drain: { timeoutSeconds: number; pollSeconds: number }) {
        return async () => {
            const provider = new GarmProvider("e2e-provider", {
                name: PROVIDER,
                description: "pulumi-managed fake provider (e2e scenarios)",
                executable: e2eFake.executable,
                configFile: e2eFake.configFile,
                garmConfigPath: garm().configPath,
                restartCommand: control!.command,
                restartTimeoutSeconds: 90,
            });
            const ci = new GarmScaleSet("ci", {
                name: "e2e-ci",
                organization: "acme",
                providerName: provider.name, // an output: created after, deleted before the provider
                image: "ubuntu:24.04",
                flavor: "small",
                labels,
                // One runner only: a started job raises desired_runner_count (§7.6), and max 1 keeps it the only runner.
                maxRunners: 1,
                minIdleRunners: 1,
                drain,
            });
            return { scaleSetId: ci.scaleSetId, liveName: ci.liveName, githubScaleSetId: ci.githubScaleSetId, providerName: provider.name };
        };
    }

    async function pulumi(op: PulumiOp, prog: ReturnType<typeof program>, label: string, opts: { expectOk?: boolean; onOutput?: (s: string) => void } = {}) {
        const r = await runPulumi({
            workDir: pulumiDir,
            stackName: "e2e",
            projectName: "pulumi-garm-e2e-scenarios",
            program: prog,
            op,
            config: {
                "garm:url": garm().url,
                "garm:username": garm().username,
                "garm:password": { value: garm().password, secret: true },
            },
            onOutput: opts.onOutput,
        });
        lastRun = r;
        timings[label] = r.durationMs;
        // Transcripts for humans (kept with the pulumi dir on failure or with KEEP_E2E_DIRS=1).
        fs.mkdirSync(path.join(pulumiDir, "transcripts"), { recursive: true });
        fs.writeFileSync(path.join(pulumiDir, "transcripts", `${label}.txt`), `${r.stdout}\n--- stderr ---\n${r.stderr}\n--- error ---\n${r.error?.message ?? ""}\n`);
        if (opts.expectOk ?? true) assert.ok(r.exitOk, `pulumi ${op} (${label}) failed: ${r.error?.message}\n${r.stdout}\n${r.stderr}`);
        return r;
    }

    const scaleSets = async () => (await garm().api<ScaleSet[]>("GET", "/scalesets")).body;
    const getScaleSet = (id: number) => garm().api<ScaleSet>("GET", `/scalesets/${id}`);
    const instancesOf = async (id: number) => (await garm().api<Instance[]>("GET", `/scalesets/${id}/instances`)).body;
    const providerNames = async () => (await garm().api<{ name: string }[]>("GET", "/providers")).body.map((p) => p.name).sort();
    const configText = () => fs.readFileSync(garm().configPath, "utf8");
    const mockCalls = (op: string, pathPart: string, since = 0) => mock().requests.filter((r) => r.op === op && r.path.includes(pathPart) && r.at >= since);

    /** The scale set's runner once it is running and has reported idle (the fake provider's runner agent does that). */
    const idleRunner = (id: number, timeoutMs = 120_000) =>
        waitFor(
            `an idle runner in scale set ${id}`,
            async (seen) => {
                const l = await instancesOf(id);
                seen(l.map((i) => `${i.name} ${i.status}/${i.runner_status ?? "-"}`));
                return l.find((i) => i.status === "running" && i.runner_status === "idle");
            },
            timeoutMs,
        );

    before(async function () {
        locateGarm();
        locatePulumi();
        env = await startE2eEnvironment();
        originalConfig = configText();
        // The GarmProvider's executable: a second fake provider install that nothing configures until Pulumi does.
        e2eFake = installFakeProvider({ dir: path.join(env.workDir, "providers", PROVIDER), name: PROVIDER });
        // Acts as the runner: installing → idle for each new instance, which GARM needs before JobStarted (README).
        agent = e2eFake.startRunnerAgent({ intervalMs: 500 });
        control = await startRestartControl(env.garm);
        pulumiDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-scenarios-"));
        timings.setupMs = Date.now() - suiteStart;
    });

    // The scenarios chain on one stack: after a failure the rest would only report follow-on errors, so they are skipped.
    // On a failure, the last pulumi output and GARM's log tail say why; the after hook then keeps the dirs.
    const chain = chainScenarios(this, () => {
        if (lastRun) console.log(`    last pulumi ${lastRun.op} output:\n${lastRun.stdout}\n${lastRun.stderr}`);
        if (env) console.log(`    GARM log tail:\n${garm().logs().split("\n").slice(-60).join("\n")}`);
    });

    after(async function () {
        agent?.stop();
        await control?.close();
        await env?.stop({ keep: chain.failed });
        timings.totalMs = Date.now() - suiteStart;
        console.log(`    timings (ms): ${JSON.stringify(timings)}`);
        if (!pulumiDir) return;
        if (chain.failed || process.env.KEEP_E2E_DIRS) console.log(`    (kept pulumi dir ${pulumiDir})`);
        else fs.rmSync(pulumiDir, { recursive: true, force: true });
    });

    it("1. up writes the provider block into GARM's config, restarts GARM, then creates the scale set whose runner comes up", async function () {
        const t0 = Date.now();
        assert.deepEqual(await providerNames(), ["fake"], "GARM starts with only the hand-written provider");
        const up = await pulumi("up", program(LABELS_V1, SHORT_DRAIN), "up1");
        assert.equal(up.changeSummary?.create, 3, `stack, GarmProvider, GarmScaleSet: ${JSON.stringify(up.changeSummary)}`);

        // The block is in the real config file, next to the hand-written entry, which is kept byte for byte.
        const text = configText();
        assert.ok(text.startsWith(originalConfig), "the hand-written part of GARM's config file is kept");
        assert.deepEqual(providerNamesIn(text).sort(), [PROVIDER, "fake"]);
        assert.match(text, new RegExp(`# BEGIN pulumi-garm provider "${PROVIDER}"[\\s\\S]*provider_executable = "${e2eFake.executable}"`));

        // GARM was restarted once by the restartCommand, with the block already in the file (providers load at start, §9.2).
        const restarts = control!.events;
        assert.equal(restarts.length, 1, JSON.stringify(restarts));
        assert.equal(restarts[0].by, "command");
        assert.deepEqual(restarts[0].blocks, [PROVIDER]);
        assert.ok(restarts[0].doneAt, "the restart finished");
        const providers = (await garm().api<{ name: string; description?: string }[]>("GET", "/providers")).body;
        assert.deepEqual(providers.map((p) => p.name).sort(), [PROVIDER, "fake"]);
        assert.equal(providers.find((p) => p.name === PROVIDER)?.description, "pulumi-managed fake provider (e2e scenarios)");

        // The scale set exists in GARM and GitHub, on the new provider, and was created after GARM loaded it.
        const all = await scaleSets();
        assert.equal(all.length, 1, JSON.stringify(all));
        gen1 = (await getScaleSet(all[0].id)).body;
        assert.equal(gen1.id, Number(up.outputs.scaleSetId));
        assert.equal(gen1.name, up.outputs.liveName);
        assert.match(gen1.name, /^e2e-ci-[0-9a-f]{8}$/);
        assert.equal(gen1.provider_name, PROVIDER);
        assert.equal(gen1.enabled, true);
        assert.equal(gen1.min_idle_runners, 1);
        assert.equal(gen1.org_name, "acme");
        assert.equal(gen1.scale_set_id, Number(up.outputs.githubScaleSetId));
        const created = mock().requests.filter((r) => r.op === "createScaleSet" && (r.body ?? "").includes(`"${gen1.name}"`));
        assert.equal(created.length, 1);
        assert.ok(created[0].at > restarts[0].doneAt!, "the scale set was created after GARM came back with the provider");

        // GARM brings the min-idle runner up through the Pulumi-configured fake provider (not the hand-written one).
        const r = await idleRunner(gen1.id);
        assert.deepEqual(e2eFake.instances().map((i) => i.name), [r.name]);
        assert.deepEqual(garm().provider.instances(), [], "the hand-written provider is not used");
        assert.ok(mock().findAgentByName(r.name), "the runner is registered with the (mock) GitHub");
        timings.scenario1Ms = Date.now() - t0;
    });

    it("2. a label change: preview shows a replacement; up brings the new generation up before disabling the old one", async function () {
        const t0 = Date.now();
        const v2 = program(LABELS_V2, SHORT_DRAIN);
        const restartsBefore = control!.events.length;
        const mark = Date.now();
        const preview = await pulumi("preview", v2, "preview2");
        assert.equal(preview.changeSummary?.replace, 1, `a label change replaces the scale set: ${JSON.stringify(preview.changeSummary)}`);
        assert.equal(preview.changeSummary?.same, 2, JSON.stringify(preview.changeSummary));
        assert.match(preview.stdout, /GarmScaleSet\s+ci\s+replace\s+\[diff: ~labels\]/);
        // Preview changed nothing: same scale set, still enabled, no GARM restart, nothing new in GitHub.
        assert.deepEqual((await scaleSets()).map((s) => [s.id, s.enabled]), [[gen1.id, true]]);
        assert.equal(control!.events.length, restartsBefore);
        assert.equal(mockCalls("createScaleSet", "", mark).length, 0);

        const sampler = startSampler(garm(), 250);
        let up: RunPulumiResult;
        try {
            up = await pulumi("up", v2, "up2");
        } finally {
            await sampler.stop();
        }
        assert.equal(up.changeSummary?.replace, 1, JSON.stringify(up.changeSummary));
        const newId = Number(up.outputs.scaleSetId);
        assert.notEqual(newId, gen1.id);
        assert.notEqual(up.outputs.liveName, gen1.name, "the label hash gives the new generation a new live name");
        gen2 = (await getScaleSet(newId)).body;
        assert.deepEqual((await scaleSets()).map((s) => s.id), [newId], "only the new generation is left");
        assert.equal((await getScaleSet(gen1.id)).status, 404);
        assert.deepEqual(gen2.tags?.map((t) => t.name).sort(), [...LABELS_V2].sort());
        assert.equal(mock().scaleSets.get(gen1.scale_set_id!), undefined, "the old generation is gone from GitHub too");
        assert.equal(control!.events.length, restartsBefore, "replacing a scale set does not restart GARM");

        // Ordering, from GitHub's side (the mock's request log): the new scale set was created (A1) before the old
        // one's listener was stopped, which GARM does right after the disable (§4.1), and before it was deleted (A5).
        const a1 = mock().requests.find((r) => r.op === "createScaleSet" && r.at >= mark && (r.body ?? "").includes(`"${gen2.name}"`));
        const l6 = mockCalls("deleteSession", `/runnerscalesets/${gen1.scale_set_id}/sessions/`, mark)[0];
        const a5 = mockCalls("deleteScaleSet", `/runnerscalesets/${gen1.scale_set_id}`, mark)[0];
        assert.ok(a1 && l6 && a5, `A1 ${!!a1}, L6 ${!!l6}, A5 ${!!a5}`);
        assert.ok(a1.at < l6.at && l6.at < a5.at, `A1 ${a1.at} < L6 ${l6.at} < A5 ${a5.at}`);

        // Ordering, from GARM's side (sampled every 250 ms during the up): when the old generation is first seen
        // disabled, the new one already exists and is enabled; and GARM never held zero enabled scale sets, i.e. the
        // queue always had a generation taking its jobs.
        const answered = sampler.samples.filter((s): s is Sample & { scaleSets: NonNullable<Sample["scaleSets"]> } => !!s.scaleSets);
        assert.ok(answered.length > 5, `sampled ${answered.length} times`);
        const firstOldDisabled = answered.find((s) => s.scaleSets.some((x) => x.id === gen1.id && !x.enabled));
        const disappeared = answered.find((s) => !s.scaleSets.some((x) => x.id === gen1.id));
        const witness = firstOldDisabled ?? disappeared;
        assert.ok(witness, "the sampler saw the old generation disabled or gone");
        const newAtDisable = witness.scaleSets.find((x) => x.id === newId);
        assert.ok(newAtDisable?.enabled, `the new generation existed, enabled, when the old one was disabled: ${JSON.stringify(witness)}`);
        const gap = answered.find((s) => !s.scaleSets.some((x) => x.enabled));
        assert.equal(gap, undefined, `a moment with no enabled scale set: ${JSON.stringify(gap)}`);
        // And warm capacity: create waits for the new generation's min-idle runner (README "Label-hash naming"), so it
        // is running when the old generation is disabled, and no sampled moment had zero running runners.
        assert.ok((newAtDisable?.runningRunners ?? 0) >= 1, `the new generation had a running runner when the old one was disabled: ${JSON.stringify(witness)}`);
        const cold = answered.find((s) => s.scaleSets.every((x) => x.runningRunners === 0));
        assert.equal(cold, undefined, `a moment with no running runner: ${JSON.stringify(cold)}`);
        console.log(`      new generation created (A1) ${l6.at - a1.at} ms before the old one's listener stopped (L6); ${answered.length} GARM samples, none without an enabled scale set or a running runner`);

        // The old generation's idle runner was removed by the drain; the new generation brings its own.
        const r = await idleRunner(newId);
        assert.deepEqual(e2eFake.instances().map((i) => i.name), [r.name]);
        busyRunner = r.name;
        timings.scenario2Ms = Date.now() - t0;
    });

    it("3. destroy with a busy runner and a 20 s drain fails naming the runner, and keeps scale set, runner and provider block", async function () {
        const t0 = Date.now();
        mock().pushJobStarted(busyRunner, { jobDisplayName: "build" });
        await mock().waitForQueueDrained(gen2.scale_set_id!, 20_000);
        assert.equal((await garm().api<Instance>("GET", `/instances/${busyRunner}`)).body.runner_status, "active");
        const restartsBefore = control!.events.length;

        const down = await pulumi("destroy", program(LABELS_V2, SHORT_DRAIN), "destroy3", { expectOk: false });
        assert.equal(down.exitOk, false, "destroy must fail while the job runs");
        const out = `${down.stdout}\n${down.stderr}\n${down.error?.message ?? ""}`;
        const named = linesWith(out, busyRunner);
        console.log(`      pulumi destroy said (first lines naming ${busyRunner}):\n        ${named.slice(0, 3).join("\n        ")}`);
        console.log(`      ...and its diagnostics:\n        ${diagnostics(down.stdout).filter((l) => /error|:$/.test(l)).join("\n        ")}`);
        assert.match(out, new RegExp(`not deleted after 20s: 1 runner is still busy: ${busyRunner}: job "build"`));
        assert.match(out, /the next `pulumi destroy` retries the delete/);
        assert.ok(linesWith(out, /draining: 1 busy/).some((l) => l.includes(busyRunner)), "progress lines name the busy runner");
        assert.doesNotMatch(out, /removed its block/, "the provider delete was not attempted");

        // Nothing was cut short: the scale set stays, disabled and at max 0 (omitted keys, §3.1); the job still runs.
        const ss = await getScaleSet(gen2.id);
        assert.equal(ss.status, 200);
        assert.equal(ss.body.enabled, undefined);
        assert.equal(ss.body.max_runners, undefined);
        const inst = (await garm().api<Instance>("GET", `/instances/${busyRunner}`)).body;
        assert.deepEqual([inst.status, inst.runner_status], ["running", "active"]);
        const jobs = (await garm().api<Job[]>("GET", "/jobs")).body;
        assert.ok(jobs.some((j) => j.runner_name === busyRunner && j.status === "in_progress"), JSON.stringify(jobs));
        assert.deepEqual(e2eFake.instances().map((i) => i.name), [busyRunner]);
        assert.ok(mock().findAgentByName(busyRunner)?.busy);
        // The provider stays in the file and loaded: without it GARM could never tear the runner down (§9.3).
        assert.ok(configText().includes(`# BEGIN pulumi-garm provider "${PROVIDER}"`));
        assert.deepEqual(await providerNames(), [PROVIDER, "fake"]);
        assert.equal(control!.events.length, restartsBefore, "no GARM restart");
        timings.scenario3Ms = Date.now() - t0;
    });

    it("4. destroy survives a GARM restart mid-drain; once the job completes it deletes the scale set, then the provider block", async function () {
        const t0 = Date.now();
        // The user follows the error's advice: `pulumi destroy` again, with a longer wait for this run set in its
        // environment (an `up` that stored a longer drain.timeoutSeconds would enable the scale set again). The
        // provider process the CLI starts inherits it from this process.
        const prog = program(LABELS_V2, SHORT_DRAIN);
        const restartsBefore = control!.events.length;
        assert.equal((await getScaleSet(gen2.id)).body.enabled, undefined, "the scale set stays disabled");
        process.env.PULUMI_GARM_DRAIN_TIMEOUT_SECONDS = String(LONG_DRAIN.timeoutSeconds);

        const sampler = startSampler(garm(), 500);
        let output = "";
        const destroying = pulumi("destroy", prog, "destroy4", { expectOk: false, onOutput: (s) => (output += s) });
        let down: RunPulumiResult;
        let restartedAt = 0;
        try {
            // Wait until the drain is running (a progress line naming the busy runner), then restart GARM under it.
            await waitFor("the drain's first progress line", () => (output.includes("draining: 1 busy") && output.includes(busyRunner) ? true : undefined), 120_000, 200);
            const drainLinesBefore = linesWith(output, "draining:").length;
            // Down for 8 s, longer than two poll intervals, so at least one drain pass runs into the outage and has to
            // ride it out (the client retries refused connections, then the drain retries transient errors).
            await control!.restart({ downMs: 8000 });
            restartedAt = Date.now();
            // GARM came back with the provider: its block is still in the file because the scale set is not gone yet.
            assert.deepEqual(await providerNames(), [PROVIDER, "fake"]);
            const inst = (await garm().api<Instance>("GET", `/instances/${busyRunner}`)).body;
            assert.deepEqual([inst.status, inst.runner_status], ["running", "active"], "the restart changed nothing about the busy runner");

            // The job finishes. GitHub drops the ephemeral runner; the JobCompleted message stays queued because the
            // disabled scale set has no listener (§7.5).
            mock().pushJobCompleted(busyRunner, { result: "succeeded" });
            assert.equal(mock().findAgentByName(busyRunner), undefined);
            await waitFor("a drain pass after the restart", () => (linesWith(output, "draining:").length > drainLinesBefore ? true : undefined), 60_000, 500);
            assert.ok(mock().pendingMessages(gen2.scale_set_id!) > 0, "JobCompleted was not delivered: no listener while disabled");
            assert.equal((await garm().api<Instance>("GET", `/instances/${busyRunner}`)).body.runner_status, "active", "GARM does not know yet");

            down = await destroying;
        } finally {
            delete process.env.PULUMI_GARM_DRAIN_TIMEOUT_SECONDS;
            await sampler.stop();
        }
        assert.ok(down.exitOk, `destroy failed: ${down.error?.message}\n${down.stdout}\n${down.stderr}`);
        assert.equal(down.changeSummary?.delete, 3, JSON.stringify(down.changeSummary));
        const waitedAfterRestart = Date.now() - restartedAt;
        console.log(
            `      destroy took ${Math.round(down.durationMs / 1000)}s (${Math.round(waitedAfterRestart / 1000)}s after the restart); ` +
                `GARM unreachable lines: ${linesWith(down.stdout, "GARM is unreachable").length}; drain lines: ${linesWith(down.stdout, "draining:").length}`,
        );

        // It was GARM's consolidation that noticed the finished job (not the listener, not a forced removal).
        const log = garm().logs();
        assert.ok(
            linesWith(log, "runner does not exist in github; removing from provider").some((l) => l.includes(busyRunner)),
            "GARM's consolidation marked the runner pending_delete",
        );
        assert.doesNotMatch(down.stdout, /force-removing|bypassGHUnauthorized/);

        // Everything is gone: GARM, GitHub, the fake provider, and the config file is back to what the operator wrote.
        assert.deepEqual(await scaleSets(), []);
        assert.deepEqual((await garm().api<Instance[]>("GET", "/instances")).body, []);
        assert.deepEqual(e2eFake.instances(), []);
        assert.deepEqual(garm().provider.instances(), []);
        assert.equal(mock().scaleSets.get(gen2.scale_set_id!), undefined);
        assert.deepEqual(await providerNames(), ["fake"]);
        assert.equal(configText(), originalConfig, "the config file is back byte for byte");
        assert.deepEqual(down.outputs, {});

        // The provider block went away only after its scale set: the restart that unloaded the provider came after
        // GitHub's scale-set delete (A5), and no sample shows the block missing while GARM still had a scale set.
        const events = control!.events.slice(restartsBefore);
        assert.deepEqual(events.map((e) => [e.by, e.blocks]), [["test", [PROVIDER]], ["command", []]]);
        const a5 = mockCalls("deleteScaleSet", `/runnerscalesets/${gen2.scale_set_id}`, t0);
        assert.equal(a5.length, 1);
        assert.ok(events[1].at > a5[0].at, `unload restart ${events[1].at} after A5 ${a5[0].at}`);
        const early = sampler.samples.find((s) => s.scaleSets && s.scaleSets.length > 0 && !s.blocks.includes(PROVIDER));
        assert.equal(early, undefined, `block removed while GARM still had a scale set: ${JSON.stringify(early)}`);
        timings.scenario4Ms = Date.now() - t0;
    });
});
