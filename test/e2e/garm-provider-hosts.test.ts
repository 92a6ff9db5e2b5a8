// GarmProvider against the REAL GARM v0.2.1 on hosts set up the way operators set them up, not the way tests find
// convenient (issue: a simulator as harsh as GARM, item 18):
//
//   1. GARM runs as its own user (uid 4243, group 4242) and reads a config file owned root:4242 0660 through its group;
//      Pulumi's side runs as another user (nobody, uid 65534, primary group 65534, member of 4242). The GarmProvider's
//      edit must leave the file readable by GARM's group, or GARM cannot start again after the restart.
//   2. The restart command starts GARM as a background daemon (`setsid garm ... &`) and returns at once, as on a host
//      without a service manager. The real `pulumi up` and `pulumi destroy` must settle when the command's shell exits,
//      and GARM must keep running after Pulumi is gone.
//
// Each test starts its own GARM, mock GitHub and fake provider. Both need root (to run processes as other users, and
// to kill a daemon that is not our child); as another user they are skipped with that reason.
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GarmProvider } from "../../sdk/nodejs";
import { GarmClient } from "../../provider/garm/client";
import { garmProviderWith } from "../../provider/kinds/garm-provider/resource";
import { installFakeProvider } from "../../harness/fake-provider";
import { locatePulumi, runPulumi, type RunPulumiResult } from "../../harness/pulumi-cli";
import { locateGarm, waitFor } from "../../harness/real-garm";
import { startE2eEnvironment, type E2eEnvironment } from "../../harness/real-garm/environment";
import { blocksIn, startRestartControl, type RestartControl } from "./scenario-support";

/** The group GARM's config file belongs to, as `garm` on a packaged install. */
const GARM_GROUP = 4242;
/** GARM's own service user. */
const GARM_UID = 4243;
/** The user Pulumi runs as: nobody. */
const PULUMI_UID = 65534;
const PULUMI_GID = 65534;

const isRoot = () => process.getuid?.() === 0;
const hasSetpriv = () => spawnSync("setpriv", ["--version"], { stdio: "ignore" }).status === 0;

interface OpResult {
    ok: boolean;
    id?: string;
    outs?: Record<string, unknown>;
    error?: string;
}

/**
 * Runs one GarmProvider operation with pulumi-garm's code (fixtures/garm-provider-op.ts) as nobody, with group 4242
 * as a supplementary group (setpriv), or as uid 65534 / gid 4242 through spawn's options where setpriv is missing.
 */
function runProviderOpAsNobody(garmEnv: { url: string; username: string; password: string }, request: unknown, timeoutMs: number): Promise<OpResult & { output: string }> {
    const script = path.join(__dirname, "fixtures", "garm-provider-op.js");
    const env = {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        HOME: "/nonexistent",
        GARM_URL: garmEnv.url,
        GARM_USERNAME: garmEnv.username,
        GARM_PASSWORD: garmEnv.password,
        GARM_PROVIDER_OP: JSON.stringify(request),
    };
    const child = hasSetpriv()
        ? spawn("setpriv", [`--reuid=${PULUMI_UID}`, `--regid=${PULUMI_GID}`, `--groups=${GARM_GROUP}`, "--", process.execPath, script], { cwd: "/", env })
        : spawn(process.execPath, [script], { cwd: "/", env, uid: PULUMI_UID, gid: GARM_GROUP });
    return new Promise((resolve) => {
        let output = "";
        const take = (b: Buffer) => (output += b.toString());
        child.stdout.on("data", take);
        child.stderr.on("data", take);
        const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
        child.on("close", (code, signal) => {
            clearTimeout(timer);
            const line = output.split("\n").find((l) => l.startsWith("RESULT "));
            if (line) resolve({ ...(JSON.parse(line.slice("RESULT ".length)) as OpResult), output });
            else resolve({ ok: false, error: `the provider process ended (code ${code}, signal ${signal}) without a result${signal === "SIGKILL" ? ` after ${timeoutMs} ms` : ""}`, output });
        });
    });
}

function statOf(file: string): { uid: number; gid: number; mode: string } {
    const st = fs.statSync(file);
    return { uid: st.uid, gid: st.gid, mode: (st.mode & 0o7777).toString(8).padStart(4, "0") };
}

describe("e2e: GarmProvider on real hosts (real GARM v0.2.1)", function () {
    this.timeout(600_000);
    let env: E2eEnvironment | undefined;
    let control: RestartControl | undefined;
    let failed = false;

    before(function () {
        locateGarm();
        if (!isRoot()) {
            console.log("      skipped: these tests run GARM and Pulumi's side as other users and kill a daemon GARM, which needs root");
            this.skip();
        }
    });

    afterEach(async function () {
        if (this.currentTest?.state === "failed") {
            failed = true;
            if (env) console.log(`    GARM log tail:\n${env.garm.logs().split("\n").slice(-40).join("\n")}`);
        }
        await control?.close();
        control = undefined;
        await env?.stop({ keep: failed });
        env = undefined;
    });

    it("a config file owned root:4242 0660, GARM in group 4242, the edit made as nobody: the file stays group 4242 0660 and GARM loads the provider", async function () {
        env = await startE2eEnvironment({ garmRunAs: { uid: GARM_UID, gid: GARM_GROUP } });
        const { garm } = env;
        // /etc/garm on a packaged host: the directory and the file belong to GARM's group, which may write them.
        fs.chownSync(garm.configPath, 0, GARM_GROUP);
        fs.chmodSync(garm.configPath, 0o660);
        fs.chmodSync(garm.workDir, 0o770);
        control = await startRestartControl(garm);
        // GARM reads the file through its group: a restart before any edit must work, or the setup is wrong.
        await control.restart();
        assert.deepEqual((await garm.api<{ name: string }[]>("GET", "/providers")).body.map((p) => p.name), ["fake"]);

        const fake = installFakeProvider({ dir: path.join(garm.workDir, "providers", "e2e"), name: "e2e" });
        spawnSync("chown", ["-R", `${GARM_UID}:${GARM_GROUP}`, path.join(garm.workDir, "providers", "e2e")]);
        const before = fs.readFileSync(garm.configPath, "utf8");
        const inputs = {
            name: "e2e",
            description: "pulumi-managed fake provider (non-root edit)",
            executable: fake.executable,
            configFile: fake.configFile,
            environmentVariables: ["PATH"],
            garmConfigPath: garm.configPath,
            restartCommand: control.command,
            restartTimeoutSeconds: 60,
        };
        const created = await runProviderOpAsNobody(garm, { op: "create", inputs }, 180_000);
        const after = statOf(garm.configPath);
        console.log(`      after the edit as nobody the config file is ${after.uid}:${after.gid} ${after.mode}; create ${created.ok ? "succeeded" : `failed: ${created.error}`}`);
        // Whatever the outcome, GARM's group must still be able to read its config file.
        assert.equal(after.gid, GARM_GROUP, `the config file's group changed to ${after.gid}: GARM (group ${GARM_GROUP}) can no longer read it\n${created.output}`);
        assert.equal(after.mode, "0660");
        assert.ok(created.ok, `create as nobody failed: ${created.error}\n${created.output}`);
        assert.ok([0, PULUMI_UID].includes(after.uid), `owner ${after.uid}`);
        const text = fs.readFileSync(garm.configPath, "utf8");
        assert.ok(text.startsWith(before), "the operator's part of the file is kept");
        assert.deepEqual(blocksIn(text), ["e2e"]);
        assert.equal(control.events.length, 2, JSON.stringify(control.events));
        assert.equal(control.events[1].error, undefined, `GARM did not come back after the GarmProvider's restart: ${control.events[1].error}`);
        const listed = (await garm.api<{ name: string; description?: string }[]>("GET", "/providers")).body;
        assert.deepEqual(listed.map((p) => p.name).sort(), ["e2e", "fake"]);

        const deleted = await runProviderOpAsNobody(garm, { op: "delete", id: created.id, props: { ...inputs, ...created.outs } }, 180_000);
        assert.ok(deleted.ok, `delete as nobody failed: ${deleted.error}\n${deleted.output}`);
        assert.equal(statOf(garm.configPath).gid, GARM_GROUP);
        assert.equal(statOf(garm.configPath).mode, "0660");
        assert.deepEqual(blocksIn(fs.readFileSync(garm.configPath, "utf8")), []);
        assert.deepEqual((await garm.api<{ name: string }[]>("GET", "/providers")).body.map((p) => p.name), ["fake"]);
    });

    it("a block that left the file while the provider stayed in state, then another writer's restart: diff plans an update, which writes the block again and GARM loads it", async function () {
        env = await startE2eEnvironment();
        const { garm } = env;
        control = await startRestartControl(garm);
        const fake = installFakeProvider({ dir: path.join(garm.workDir, "providers", "back"), name: "back" });
        const impl = garmProviderWith(() => new GarmClient({ url: garm.url, username: garm.username, password: garm.password }), () => undefined);
        const inputs = {
            name: "back",
            description: "pulumi-managed provider that must come back",
            executable: fake.executable,
            configFile: fake.configFile,
            environmentVariables: ["PATH"],
            interfaceVersion: "v0.1.0",
            garmConfigPath: garm.configPath,
            restartCommand: control.command,
            restartTimeoutSeconds: 60,
        };
        const checked = (await impl.check!({}, inputs)).inputs!;
        const { outs } = await impl.create(checked);
        const listed = async () => (await garm.api<{ name: string }[]>("GET", "/providers")).body.map((p) => p.name).sort();
        assert.deepEqual(await listed(), ["back", "fake"]);
        assert.equal((await impl.diff!("back", outs, checked)).changes, false, "in the file and loaded: no change");

        // What a destroy whose restart failed leaves: the block gone, the resource still in state. Then another stack
        // restarts the same GARM, which starts without the provider.
        const withBlock = fs.readFileSync(garm.configPath, "utf8");
        fs.writeFileSync(garm.configPath, withBlock.slice(0, withBlock.indexOf('# BEGIN pulumi-garm provider "back"')));
        await control.restart();
        assert.deepEqual(await listed(), ["fake"]);

        assert.equal((await impl.diff!("back", outs, checked)).changes, true, "the next up must not plan no change");
        await impl.update!("back", outs, checked);
        assert.deepEqual(blocksIn(fs.readFileSync(garm.configPath, "utf8")), ["back"]);
        assert.deepEqual(await listed(), ["back", "fake"]);
        assert.equal((await impl.diff!("back", outs, checked)).changes, false);
    });

    it("a restartCommand that starts GARM as a background daemon (setsid garm … &): up and destroy settle, and GARM outlives Pulumi", async function () {
        locatePulumi();
        env = await startE2eEnvironment();
        const { garm } = env;
        const pidFile = path.join(garm.workDir, "garm.pid");
        fs.writeFileSync(pidFile, `${garm.pid}\n`);
        // Stops the GARM named in the pid file and waits until it is gone (or a zombie of a parent that is slow to reap).
        const stopScript = path.join(garm.workDir, "stop-garm.sh");
        fs.writeFileSync(
            stopScript,
            [
                "#!/bin/sh",
                `pid=$(cat ${JSON.stringify(pidFile)} 2>/dev/null) || exit 0`,
                'kill "$pid" 2>/dev/null || exit 0',
                "i=0",
                'while [ $i -lt 300 ] && kill -0 "$pid" 2>/dev/null && ! grep -q "^[0-9]* (.*) Z" "/proc/$pid/stat" 2>/dev/null; do sleep 0.1; i=$((i+1)); done',
                "",
            ].join("\n"),
            { mode: 0o755 },
        );
        const envPrefix = Object.entries(garm.env).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ");
        // What an operator without a service manager writes: stop it, start it in the background, note its pid.
        const restartCommand = `${stopScript}; cd ${JSON.stringify(garm.workDir)} && ${envPrefix} setsid ${JSON.stringify(garm.binary)} -config ${JSON.stringify(garm.configPath)} & echo $! > ${JSON.stringify(pidFile)}`;
        const daemonPid = () => Number(fs.readFileSync(pidFile, "utf8").trim());
        const alive = (pid: number) => {
            try {
                process.kill(pid, 0);
                return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
            } catch {
                return false;
            }
        };
        const fake = installFakeProvider({ dir: path.join(garm.workDir, "providers", "e2e"), name: "e2e" });
        const pulumiDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-daemon-"));
        const program = async () => {
            const p = new GarmProvider("daemon-restarted", {
                name: "e2e",
                description: "pulumi-managed fake provider (daemon restart)",
                executable: fake.executable,
                configFile: fake.configFile,
                garmConfigPath: garm.configPath,
                restartCommand,
                restartTimeoutSeconds: 60,
            });
            return { providerName: p.name };
        };
        const providerNames = async () => (await garm.api<{ name: string }[]>("GET", "/providers")).body.map((p) => p.name).sort();
        /** A pulumi run bounded well past restartTimeoutSeconds: a runner waiting on the daemon's pipes never settles. */
        const boundedRun = async (op: "up" | "destroy"): Promise<RunPulumiResult> => {
            const boundMs = 180_000;
            let timer: NodeJS.Timeout | undefined;
            let output = "";
            const run = runPulumi({
                onOutput: (chunk) => (output += chunk),
                workDir: pulumiDir,
                stackName: "daemon",
                projectName: "pulumi-garm-e2e-daemon",
                program,
                op,
                config: { "garm:url": garm.url, "garm:username": garm.username, "garm:password": { value: garm.password, secret: true } },
            });
            const bound = new Promise<"bound">((resolve) => (timer = setTimeout(() => resolve("bound"), boundMs)));
            const first = await Promise.race([run, bound]);
            clearTimeout(timer);
            if (first === "bound") {
                // What GARM looked like while Pulumi still waited, then free Pulumi (the daemon holds its pipes).
                const pid = daemonPid();
                const garmState = alive(pid) ? `GARM (pid ${pid}) was running and listed providers ${JSON.stringify(await providerNames().catch((e: Error) => e.message))}` : `GARM (pid ${pid}) was not running`;
                spawnSync("sh", [stopScript]);
                await run.catch(() => undefined);
                const tail = output.split("\n").filter((l) => l.trim()).slice(-8).join("\n");
                assert.fail(`pulumi ${op} did not finish within ${boundMs / 1000}s after the restart command started GARM in the background; ${garmState}. Last output:\n${tail}`);
            }
            const r = first as RunPulumiResult;
            assert.ok(r.exitOk, `pulumi ${op} failed: ${r.error?.message}\n${r.stdout}\n${r.stderr}`);
            return r;
        };
        let passed = false;
        try {
            const t0 = Date.now();
            const up = await boundedRun("up");
            console.log(`      pulumi up took ${Math.round((Date.now() - t0) / 1000)}s`);
            assert.equal(up.changeSummary?.create, 2, JSON.stringify(up.changeSummary));
            const pid = daemonPid();
            assert.notEqual(pid, undefined);
            assert.ok(alive(pid), `the daemon GARM (pid ${pid}) is running`);
            assert.deepEqual(await providerNames(), ["e2e", "fake"]);
            // Pulumi and its provider process are gone; GARM keeps logging to the output it was started with. It must
            // still run a while later (a daemon tied to a closed pipe dies of SIGPIPE at its next log line).
            await new Promise((r) => setTimeout(r, 15_000));
            assert.ok(alive(pid), `the daemon GARM (pid ${pid}) died after pulumi up ended`);
            await waitFor("GARM answering after pulumi up ended", async (seen) => {
                const r = await garm.api("GET", "/providers");
                seen(r.status);
                return r.status === 200 ? true : undefined;
            }, 30_000);

            const down = await boundedRun("destroy");
            assert.equal(down.changeSummary?.delete, 2, JSON.stringify(down.changeSummary));
            const pid2 = daemonPid();
            assert.notEqual(pid2, pid, "destroy restarted GARM again");
            assert.deepEqual(await providerNames(), ["fake"]);
            assert.deepEqual(blocksIn(fs.readFileSync(garm.configPath, "utf8")), []);
            await new Promise((r) => setTimeout(r, 10_000));
            assert.ok(alive(pid2), `the daemon GARM (pid ${pid2}) died after pulumi destroy ended`);
            passed = true;
        } finally {
            spawnSync("sh", [stopScript]);
            if (!passed || process.env.KEEP_E2E_DIRS) console.log(`    (kept pulumi dir ${pulumiDir})`);
            else fs.rmSync(pulumiDir, { recursive: true, force: true });
        }
    });
});
