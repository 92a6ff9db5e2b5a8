// Fake GARM external provider (interface v0.1.0), executed by GARM once per command (garm-behaviour.md §11).
// GARM runs it with a clean environment (only GARM_* vars, configured environment_variables and proxy vars), so this file
// is started through a /bin/sh wrapper that names node by absolute path (see ./index.ts installFakeProvider).
//
// State: one JSON file per instance in STATE_DIR, read from the file GARM passes as GARM_PROVIDER_CONFIG_FILE
// (lines KEY=VALUE). Fault injection: files `fail_create` / `fail_delete` in STATE_DIR make the command exit 1.
// Every invocation is appended to STATE_DIR/calls.log (one JSON line) so tests can see what GARM asked for.
import * as fs from "node:fs";
import * as path from "node:path";

export const EXIT_NOT_FOUND = 30; // garm-provider-common ExitCodeNotFound (§11.2)

interface StoredInstance {
    provider_id: string;
    name: string;
    os_type: string;
    os_arch: string;
    os_name: string;
    os_version: string;
    status: string;
    addresses: { address: string; type: string }[];
    pool_id: string;
    // Not printed: lets a harness act as the runner (§11.4).
    _instance_token?: string;
    _metadata_url?: string;
    _callback_url?: string;
    _created_at?: string;
}

function stateDir(): string {
    let dir = "/var/tmp/pulumi-garm-fake-provider";
    const cfg = process.env.GARM_PROVIDER_CONFIG_FILE ?? "";
    if (cfg && fs.existsSync(cfg)) {
        for (const raw of fs.readFileSync(cfg, "utf8").split("\n")) {
            const line = raw.trim();
            if (line.startsWith("STATE_DIR=")) dir = line.slice("STATE_DIR=".length).trim().replace(/^"|"$/g, "");
        }
    }
    fs.mkdirSync(path.join(dir, "instances"), { recursive: true });
    return dir;
}

function publicView(i: StoredInstance): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(i)) if (!k.startsWith("_")) out[k] = v;
    return out;
}

function loadAll(dir: string): StoredInstance[] {
    const idir = path.join(dir, "instances");
    const out: StoredInstance[] = [];
    for (const f of fs.readdirSync(idir).sort()) {
        if (!f.endsWith(".json")) continue;
        try {
            out.push(JSON.parse(fs.readFileSync(path.join(idir, f), "utf8")) as StoredInstance);
        } catch {
            // a half-written file from a concurrent create; ignore
        }
    }
    return out;
}

function find(dir: string, ident: string): StoredInstance | undefined {
    // GARM passes the provider_id, or the instance name when none was recorded (§11.1).
    return loadAll(dir).find((i) => i.provider_id === ident || i.name === ident);
}

function safeName(name: string): string {
    return name.replace(/[^A-Za-z0-9_.-]/g, "_");
}

function logCall(dir: string, entry: Record<string, unknown>): void {
    try {
        fs.appendFileSync(path.join(dir, "calls.log"), JSON.stringify({ at: new Date().toISOString(), ...entry }) + "\n");
    } catch {
        // logging is best effort
    }
}

function main(): number {
    const cmd = process.env.GARM_COMMAND ?? "";
    const dir = stateDir();
    const instanceId = process.env.GARM_INSTANCE_ID ?? "";
    const poolId = process.env.GARM_POOL_ID ?? "";
    const base = { cmd, instanceId, poolId, iface: process.env.GARM_INTERFACE_VERSION ?? "" };

    switch (cmd) {
        case "CreateInstance": {
            const stdin = fs.readFileSync(0, "utf8");
            if (fs.existsSync(path.join(dir, "fail_create"))) {
                logCall(dir, { ...base, result: "injected-failure" });
                process.stderr.write("injected create failure\n");
                return 1;
            }
            const boot = JSON.parse(stdin) as Record<string, unknown>;
            const name = String(boot.name ?? "");
            if (!name) {
                process.stderr.write("missing name in bootstrap params\n");
                return 1;
            }
            const inst: StoredInstance = {
                provider_id: `fake-${name}`, // non-empty and unique (global unique index, §11.2)
                name, // must equal the requested name (ListInstances matching is by name)
                os_type: String(boot.os_type || "linux"),
                os_arch: String(boot.arch || "amd64"),
                os_name: "fake",
                os_version: "0",
                status: "running", // the only safe create status (§11.2)
                addresses: [{ address: "127.0.0.1", type: "private" }],
                pool_id: poolId, // kept for ListInstances filtering (pseudo pool id for scale sets, §4.3)
                _instance_token: String(boot["instance-token"] ?? ""),
                _metadata_url: String(boot["metadata-url"] ?? ""),
                _callback_url: String(boot["callback-url"] ?? ""),
                _created_at: new Date().toISOString(),
            };
            const file = path.join(dir, "instances", `${safeName(name)}.json`);
            fs.writeFileSync(`${file}.tmp`, JSON.stringify(inst));
            fs.renameSync(`${file}.tmp`, file);
            logCall(dir, { ...base, name, result: "ok" });
            process.stdout.write(JSON.stringify(publicView(inst)) + "\n");
            return 0;
        }
        case "DeleteInstance": {
            if (fs.existsSync(path.join(dir, "fail_delete"))) {
                logCall(dir, { ...base, result: "injected-failure" });
                process.stderr.write("injected delete failure\n");
                return 1;
            }
            const inst = find(dir, instanceId);
            if (inst) fs.rmSync(path.join(dir, "instances", `${safeName(inst.name)}.json`), { force: true });
            logCall(dir, { ...base, result: inst ? "deleted" : "absent" });
            return 0; // idempotent
        }
        case "GetInstance": {
            const inst = find(dir, instanceId);
            logCall(dir, { ...base, result: inst ? "found" : "not-found" });
            if (!inst) return EXIT_NOT_FOUND;
            process.stdout.write(JSON.stringify(publicView(inst)) + "\n");
            return 0;
        }
        case "ListInstances": {
            const list = loadAll(dir).filter((i) => i.pool_id === poolId);
            logCall(dir, { ...base, result: `listed ${list.length}` });
            process.stdout.write(JSON.stringify(list.map(publicView)) + "\n");
            return 0;
        }
        case "RemoveAllInstances": {
            for (const i of loadAll(dir)) fs.rmSync(path.join(dir, "instances", `${safeName(i.name)}.json`), { force: true });
            logCall(dir, { ...base, result: "ok" });
            return 0;
        }
        case "StartInstance":
        case "StopInstance":
            logCall(dir, { ...base, result: "noop" });
            return 0;
        case "GetVersion":
            process.stdout.write("v0.0.1-fake\n");
            return 0;
        default:
            logCall(dir, { ...base, result: "unknown-command" });
            process.stderr.write(`unknown GARM_COMMAND ${JSON.stringify(cmd)}\n`);
            return 1;
    }
}

if (require.main === module) {
    let code: number;
    try {
        code = main();
    } catch (e) {
        process.stderr.write(`fake provider error: ${(e as Error).stack ?? String(e)}\n`);
        code = 1;
    }
    process.exitCode = code;
}
