// Starts the REAL GARM v0.2.1 binary against the mock GitHub (../mock-github) and the fake provider (../fake-provider),
// and bootstraps it through its own API (garm-behaviour.md §12 "Bootstrap sequence"): first-run, login, PUT /controller,
// GitHub endpoint + PAT credentials pointing at the mock, org `acme` and repo `acme/app`.
//
// Everything binds to 127.0.0.1. Child processes are tracked and killed on stop() and on process exit.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { installFakeProvider, type FakeProvider } from "../fake-provider";
import { listensOn, pickPort } from "./ports";

export const GARM_VERSION = "v0.2.1";

export interface ProviderSpec {
    /** Provider name (`provider_name` of scale sets). Default "fake". */
    name: string;
    description?: string;
    /** "" / "v0.1.0" (default) / "v0.1.1" (garm-behaviour.md §11.2: v0.1.1 ListInstances always fails in GARM). */
    interfaceVersion?: string;
}

export interface StartRealGarmOptions {
    /** Path of the garm binary; default locateGarm(). */
    garmBinary?: string;
    /** Directory for config, database, logs and provider state (created if missing). */
    workDir: string;
    /** Base URL of the mock GitHub (no trailing slash), e.g. mock.url. */
    mockGithubUrl: string;
    /** Providers to configure; default one fake provider named "fake". Each gets its own state dir. */
    providers?: ProviderSpec[];
    /** Run the bootstrap sequence (default true). With false only first-run/login/controller are done. */
    bootstrapEntities?: boolean;
    /**
     * Set the controller's metadata, callback, webhook and agent URLs (default true). With false only the garm-agent
     * releases URL is set (kept on loopback), and GARM answers every route but /controller with 409 urls_required until
     * the test sets them (auth/init_required.go L65-79), as a GARM fresh from first-run does. Needs bootstrapEntities false.
     */
    controllerUrls?: boolean;
    /** GARM log level (default "debug"). */
    logLevel?: "debug" | "info" | "warn" | "error";
    /** How long to wait for GARM to answer HTTP after spawning (default 60 s: a busy 2-core machine is slow). */
    startTimeoutMs?: number;
    /** The port to try first (default: a random free one outside the ephemeral range); moved if it is taken. */
    port?: number;
    /**
     * Runs GARM as this user and group (no supplementary groups) instead of the test's user, as a host's `garm` service
     * user; needs root. The work dir is handed to that user and the binary copied into it, where that user can run it.
     */
    runAs?: { uid: number; gid: number };
}

export interface ApiResponse<T = unknown> {
    status: number;
    /** Parsed JSON body, or undefined when empty / not JSON. */
    body: T;
    text: string;
    headers: Headers;
}

export interface RealGarm {
    /** Base URL of the GARM server, e.g. http://127.0.0.1:43121 (the API is under /api/v1). */
    readonly url: string;
    readonly username: string;
    readonly password: string;
    /** A JWT from the bootstrap login (TTL ≥ 24 h; survives restarts: same jwt secret). */
    readonly token: string;
    readonly configPath: string;
    readonly logPath: string;
    readonly dbPath: string;
    readonly workDir: string;
    /** Fake providers by name. */
    readonly providers: ReadonlyMap<string, FakeProvider>;
    /** The default fake provider (the first configured). */
    readonly provider: FakeProvider;
    readonly endpointName: string;
    readonly credentialsName: string;
    readonly webhookSecret: string;
    /** Ids of the bootstrapped entities (undefined when bootstrapEntities=false). */
    readonly orgId: string | undefined;
    readonly repoId: string | undefined;
    readonly controllerId: string | undefined;
    /** Milliseconds from spawn to first HTTP answer, for the last (re)start. */
    readonly lastStartMs: number;
    /** Authenticated JSON call against /api/v1 (path relative to /api/v1, e.g. "/scalesets"). */
    api<T = unknown>(method: string, apiPath: string, body?: unknown): Promise<ApiResponse<T>>;
    /** SIGTERM + start again with the same config file (re-read by GARM). `providers` rewrites the [[provider]] list first. */
    restart(opts?: { providers?: ProviderSpec[] }): Promise<void>;
    /** SIGTERM (SIGKILL after 15 s); idempotent. */
    stop(): Promise<void>;
    /** Kill -9 without shutdown (to simulate a crash). */
    kill(): Promise<void>;
    /** The binary this handle starts (a copy in the work dir with runAs). */
    readonly binary: string;
    /** Pid of the GARM process this handle started, while it runs. */
    readonly pid: number | undefined;
    /** The environment GARM is started with. */
    readonly env: Readonly<Record<string, string>>;
    /** The GARM log so far (stdout+stderr of every run). */
    logs(): string;
    /** Whether the GARM process is alive. */
    running(): boolean;
}

const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
    if (exitHookInstalled) return;
    exitHookInstalled = true;
    const killAll = () => {
        for (const c of liveChildren) {
            try {
                c.kill("SIGKILL");
            } catch {
                // already gone
            }
        }
    };
    // Never leave a GARM behind when mocha (or anything) exits, even on failure or Ctrl-C.
    process.on("exit", killAll);
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
        process.once(sig, () => {
            killAll();
            process.kill(process.pid, sig); // re-raise with the default handler
        });
    }
}

/** Finds the garm binary: $GARM_BINARY, `garm` on PATH, then the tools cache; throws naming `make tools`. */
export function locateGarm(): string {
    const candidates: string[] = [];
    if (process.env.GARM_BINARY) candidates.push(process.env.GARM_BINARY);
    const cache = process.env.PULUMI_GARM_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-garm");
    candidates.push(path.join(cache, `garm-${GARM_VERSION}`, "garm"));
    for (const dir of (process.env.PATH ?? "").split(path.delimiter)) if (dir) candidates.push(path.join(dir, "garm"));
    for (const c of candidates) {
        try {
            fs.accessSync(c, fs.constants.X_OK);
            return c;
        } catch {
            // try next
        }
    }
    throw new Error(`GARM ${GARM_VERSION} binary not found (looked at ${candidates.slice(0, 2).join(", ")} and PATH); run \`make tools\` (scripts/tools.sh garm)`);
}

/** chown -R, without following symlinks. */
function chownTree(dir: string, uid: number, gid: number): void {
    fs.lchownSync(dir, uid, gid);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) chownTree(p, uid, gid);
        else fs.lchownSync(p, uid, gid);
    }
}

/** GARM exited at start because its port was taken ("bind: address already in use"). */
class PortTakenError extends Error {}

/** How many times a start is tried again after losing its port. */
const PORT_ATTEMPTS = 5;

/**
 * GARM ran but never answered HTTP. Seen once in a parallel `make test` (load 6 on 2 cores): a restart on the same port
 * and database stayed in its cache worker's start for the whole minute, its pool managers running; the same scenario
 * passes alone and four at once. The start is tried once more, saying so; the stacks of the hung one are in its log.
 */
class StartHungError extends Error {}
const HUNG_ATTEMPTS = 2;

/** High-entropy secret of an exact length from [A-Za-z0-9] plus a few symbols (zxcvbn score 4; safe inside TOML "..."). */
function secret(len: number): string {
    const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789_-.:";
    const bytes = randomBytes(len);
    let out = "";
    for (let i = 0; i < len; i++) out += alphabet[bytes[i] % alphabet.length];
    return out;
}

function tomlString(s: string): string {
    return JSON.stringify(s); // TOML basic strings accept JSON escaping for the characters we use
}

interface ConfigInputs {
    port: number;
    jwtSecret: string;
    dbPassphrase: string;
    dbPath: string;
    logLevel: string;
    providers: { spec: ProviderSpec; fake: FakeProvider }[];
}

function renderConfig(c: ConfigInputs): string {
    // garm-behaviour.md §12 minimal config; controller URLs are set through the API (§1.6). Webhook management is on, as the
    // simulator serves the webhook routes (apiserver/routers/routers.go L384, L442: registered only when enabled).
    const lines = [
        "# Generated by harness/real-garm for an end-to-end test run.",
        "[default]",
        "enable_webhook_management = true",
        "",
        "[logging]",
        `log_level = ${tomlString(c.logLevel)}`,
        `log_format = "text"`,
        "",
        "[metrics]",
        "enable = false",
        "",
        "[jwt_auth]",
        `secret = ${tomlString(c.jwtSecret)}`,
        `time_to_live = "8760h"`,
        "",
        "[apiserver]",
        `bind = "127.0.0.1"`,
        `port = ${c.port}`,
        "use_tls = false",
        "",
        "[database]",
        `backend = "sqlite3"`,
        `passphrase = ${tomlString(c.dbPassphrase)}`,
        "  [database.sqlite3]",
        `  db_file = ${tomlString(c.dbPath)}`,
        "  busy_timeout_seconds = 5",
        "",
    ];
    for (const { spec, fake } of c.providers) {
        lines.push(
            "[[provider]]",
            `name = ${tomlString(spec.name)}`,
            `provider_type = "external"`,
            `description = ${tomlString(spec.description ?? `fake provider ${spec.name} for e2e tests`)}`,
            "  [provider.external]",
            `  provider_executable = ${tomlString(fake.executable)}`,
            `  config_file = ${tomlString(fake.configFile)}`,
            ...(spec.interfaceVersion ? [`  interface_version = ${tomlString(spec.interfaceVersion)}`] : []),
            "",
        );
    }
    return lines.join("\n");
}

/** The goroutines of a Go SIGQUIT dump that run GARM's own code, for an error message (at most `maxLines`). */
export function garmGoroutines(dump: string, maxLines = 200): string {
    const blocks = dump.split(/\n(?=goroutine \d+ )/).filter((b) => b.startsWith("goroutine ") && b.includes("cloudbase/garm/"));
    if (blocks.length === 0) return "";
    const lines = `GARM's goroutines (SIGQUIT):\n${blocks.join("\n")}`.split("\n");
    return lines.slice(0, maxLines).join("\n") + (lines.length > maxLines ? `\n... ${lines.length - maxLines} more lines` : "");
}

async function sleep(ms: number): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
}

export async function startRealGarm(opts: StartRealGarmOptions): Promise<RealGarm> {
    installExitHook();
    const workDir = path.resolve(opts.workDir);
    fs.mkdirSync(workDir, { recursive: true });
    const runAs = opts.runAs;
    let garmBinary = opts.garmBinary ?? locateGarm();
    if (runAs) {
        // The tools cache sits under root's home, which other users cannot enter.
        const copy = path.join(workDir, "bin", "garm");
        fs.mkdirSync(path.dirname(copy), { recursive: true });
        fs.copyFileSync(garmBinary, copy);
        fs.chmodSync(copy, 0o755);
        garmBinary = copy;
    }
    const garmEnv = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: workDir, TMPDIR: os.tmpdir() };
    /** Hands the work dir (database, provider state, config) to GARM's user. */
    const handOver = () => {
        if (runAs) chownTree(workDir, runAs.uid, runAs.gid);
    };
    const mock = opts.mockGithubUrl.replace(/\/+$/, "");
    const configPath = path.join(workDir, "config.toml");
    const logPath = path.join(workDir, "garm.log");
    const dbPath = path.join(workDir, "garm.db");
    const startTimeoutMs = opts.startTimeoutMs ?? 60000;
    // Outside the ephemeral range, so no outgoing connection takes it between the pick and GARM's bind (ports.ts).
    let port = opts.port ?? (await pickPort());
    let url = `http://127.0.0.1:${port}`;

    const providers = new Map<string, FakeProvider>();
    const ensureProviders = (specs: ProviderSpec[]) =>
        specs.map((spec) => {
            let fake = providers.get(spec.name);
            if (!fake) {
                fake = installFakeProvider({ dir: path.join(workDir, "providers", spec.name), name: spec.name });
                providers.set(spec.name, fake);
            }
            return { spec, fake };
        });
    let providerSpecs = opts.providers ?? [{ name: "fake" }];
    const cfg: ConfigInputs = {
        port,
        jwtSecret: secret(64),
        dbPassphrase: secret(32), // exactly 32 chars (garm-behaviour.md §12)
        dbPath,
        logLevel: opts.logLevel ?? "debug",
        providers: ensureProviders(providerSpecs),
    };
    fs.writeFileSync(configPath, renderConfig(cfg), { mode: 0o600 });
    handOver();

    const username = "admin";
    const password = `Pw-${secret(28)}`;
    let token = "";
    let child: ChildProcess | undefined;
    let exitPromise: Promise<void> = Promise.resolve();
    let lastStartMs = 0;

    async function rawFetch(method: string, apiPath: string, body?: unknown, auth = true): Promise<ApiResponse> {
        const headers: Record<string, string> = { accept: "application/json" };
        if (body !== undefined) headers["content-type"] = "application/json";
        if (auth && token) headers.authorization = `Bearer ${token}`;
        const res = await fetch(`${url}/api/v1${apiPath}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(60000),
        });
        const text = await res.text();
        let parsed: unknown;
        try {
            parsed = text ? JSON.parse(text) : undefined;
        } catch {
            parsed = undefined;
        }
        return { status: res.status, body: parsed, text, headers: res.headers };
    }

    function logs(): string {
        try {
            return fs.readFileSync(logPath, "utf8");
        } catch {
            return "";
        }
    }

    function tail(n = 40): string {
        return logs().split("\n").slice(-n).join("\n");
    }

    /**
     * Starts GARM. Before the bootstrap (`mayMovePort`) a lost port is replaced by another one; afterwards the port is
     * part of GARM's controller URLs and of every client's URL, so the same port is tried again after a pause.
     */
    async function start(mayMovePort: boolean): Promise<void> {
        for (let attempt = 1, hung = 0; ; attempt++) {
            try {
                await startOnce();
                return;
            } catch (e) {
                if (e instanceof StartHungError && ++hung < HUNG_ATTEMPTS) {
                    console.log(`      (GARM ran but did not answer on ${url} within ${startTimeoutMs / 1000} s; its goroutines are in ${logPath}; starting it again)`);
                    continue;
                }
                if (!(e instanceof PortTakenError) || attempt >= PORT_ATTEMPTS) throw e;
                if (mayMovePort) {
                    port = await pickPort();
                    url = `http://127.0.0.1:${port}`;
                    cfg.port = port;
                    fs.writeFileSync(configPath, renderConfig(cfg), { mode: 0o600 });
                } else {
                    await sleep(2000);
                }
            }
        }
    }

    async function startOnce(): Promise<void> {
        const logBefore = logs().length;
        const fd = fs.openSync(logPath, "a");
        fs.writeSync(fd, `\n===== [real-garm] starting ${garmBinary} -config ${configPath} at ${new Date().toISOString()} =====\n`);
        const t0 = Date.now();
        // Minimal env: GARM itself needs nothing from ours, and providers get a clean env anyway (§11.1).
        const c = spawn(garmBinary, ["-config", configPath], {
            cwd: workDir,
            stdio: ["ignore", fd, fd],
            env: garmEnv,
            ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
        });
        fs.closeSync(fd);
        child = c;
        liveChildren.add(c);
        let exited = false;
        exitPromise = new Promise<void>((resolve) => {
            c.once("exit", () => {
                exited = true;
                liveChildren.delete(c);
                resolve();
            });
        });
        const deadline = Date.now() + startTimeoutMs;
        for (let i = 0; Date.now() < deadline && i < 1000; i++) {
            if (exited) {
                const thisRun = logs().slice(logBefore);
                if (/address already in use/.test(thisRun)) throw new PortTakenError(`GARM could not bind ${url}: address already in use`);
                throw new Error(`GARM exited during startup (code ${c.exitCode}); log tail:\n${tail()}`);
            }
            try {
                // Any HTTP answer means an API server is up (409 init_required before first-run, §1.2); it is ours
                // only if our process holds the listening socket, or a GARM of another test answered on this port.
                const r = await fetch(`${url}/api/v1/controller`, { signal: AbortSignal.timeout(5000) });
                await r.text();
                if (c.pid !== undefined && listensOn(c.pid, port) === false) throw new Error(`another process answers on ${url}`);
                lastStartMs = Date.now() - t0;
                return;
            } catch {
                await sleep(150);
            }
        }
        // Still running but not serving: Go prints every goroutine's stack on SIGQUIT, which shows where GARM's start waits.
        const logSoFar = logs().length;
        const wasRunning = !exited;
        await stopProcess("SIGQUIT");
        const message = `GARM did not answer on ${url} within ${startTimeoutMs} ms; log tail:\n${tail()}\n${garmGoroutines(logs().slice(logSoFar))}`;
        throw wasRunning ? new StartHungError(message) : new Error(message);
    }

    async function stopProcess(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
        const c = child;
        if (!c || c.exitCode !== null || c.signalCode !== null) return;
        c.kill(signal);
        const timer = setTimeout(() => c.kill("SIGKILL"), 15000);
        await exitPromise;
        clearTimeout(timer);
    }

    async function must(method: string, apiPath: string, body: unknown, what: string, auth = true): Promise<ApiResponse> {
        const r = await rawFetch(method, apiPath, body, auth);
        if (r.status < 200 || r.status >= 300) throw new Error(`GARM bootstrap step "${what}" failed: ${method} ${apiPath} -> ${r.status} ${r.text}\nlog tail:\n${tail()}`);
        return r;
    }

    await start(true);

    let orgId: string | undefined;
    let repoId: string | undefined;
    let controllerId: string | undefined;
    const endpointName = "mock-github";
    const credentialsName = "mock-pat";
    const webhookSecret = secret(40);
    try {
        await must("POST", "/first-run", { username, email: "admin@example.com", full_name: "E2E Admin", password }, "first-run", false);
        const login = await must("POST", "/auth/login", { username, password }, "login", false);
        token = (login.body as { token: string }).token;
        if ((opts.controllerUrls ?? true) === false && (opts.bootstrapEntities ?? true)) {
            throw new Error("startRealGarm: controllerUrls false needs bootstrapEntities false (GARM refuses entities without the URLs)");
        }
        const urls = {
            metadata_url: `${url}/api/v1/metadata`,
            callback_url: `${url}/api/v1/callbacks`,
            webhook_url: `${url}/webhooks`,
            agent_url: `${url}/agent`,
        };
        const ctrl = await must(
            "PUT",
            "/controller",
            {
                ...((opts.controllerUrls ?? true) ? urls : {}),
                // Keep GARM's garm-agent release poller on loopback (the mock answers it).
                garm_agent_releases_url: `${mock}/api/v3/repos/cloudbase/garm-agent/releases`,
            },
            "PUT /controller",
        );
        controllerId = (ctrl.body as { controller_id?: string }).controller_id;
        if (opts.bootstrapEntities ?? true) {
            await must(
                "POST",
                "/github/endpoints",
                {
                    name: endpointName,
                    description: "mock GitHub for e2e tests",
                    api_base_url: `${mock}/api/v3/`,
                    upload_base_url: `${mock}/api/uploads/`,
                    base_url: mock,
                },
                "POST /github/endpoints",
            );
            await must(
                "POST",
                "/github/credentials",
                { name: credentialsName, description: "mock PAT", endpoint: endpointName, auth_type: "pat", pat: { oauth2_token: `ghp_${secret(36)}` } },
                "POST /github/credentials",
            );
            const org = await must("POST", "/organizations", { name: "acme", credentials_name: credentialsName, webhook_secret: webhookSecret, pool_balancer_type: "roundrobin" }, "POST /organizations");
            orgId = (org.body as { id: string }).id;
            const repo = await must("POST", "/repositories", { owner: "acme", name: "app", credentials_name: credentialsName, webhook_secret: webhookSecret }, "POST /repositories");
            repoId = (repo.body as { id: string }).id;
        }
    } catch (e) {
        await stopProcess();
        throw e;
    }

    const handle: RealGarm = {
        get url() {
            return url;
        },
        username,
        password,
        get token() {
            return token;
        },
        configPath,
        logPath,
        dbPath,
        workDir,
        providers,
        get provider() {
            return providers.get(providerSpecs[0]?.name ?? "fake") ?? [...providers.values()][0];
        },
        endpointName,
        credentialsName,
        webhookSecret,
        orgId,
        repoId,
        controllerId,
        get lastStartMs() {
            return lastStartMs;
        },
        async api<T>(method: string, apiPath: string, body?: unknown) {
            return (await rawFetch(method, apiPath, body)) as ApiResponse<T>;
        },
        async restart(r) {
            await stopProcess();
            if (r?.providers) {
                providerSpecs = r.providers;
                cfg.providers = ensureProviders(providerSpecs);
                fs.writeFileSync(configPath, renderConfig(cfg), { mode: 0o600 });
                handOver();
            }
            await start(false);
        },
        async stop() {
            await stopProcess();
        },
        async kill() {
            await stopProcess("SIGKILL");
        },
        binary: garmBinary,
        get pid() {
            return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
        },
        env: garmEnv,
        logs,
        running() {
            return !!child && child.exitCode === null && child.signalCode === null;
        },
    };
    return handle;
}

/** A short text of what a wait saw, for its timeout message. */
function shortText(v: unknown): string {
    const text = typeof v === "string" ? v : JSON.stringify(v);
    return text === undefined ? String(v) : text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

/**
 * Polls `fn` every `intervalMs` until it returns a non-undefined value or `timeoutMs` passes. `fn` may pass what it
 * observed to `seen`: the timeout error names `what` was awaited and what was seen last (and the last error, if any).
 */
export async function waitFor<T>(
    what: string,
    fn: (seen: (observed: unknown) => void) => Promise<T | undefined> | T | undefined,
    timeoutMs: number,
    intervalMs = 500,
): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    let lastSeen: { v: unknown } | undefined;
    const seen = (observed: unknown) => {
        lastSeen = { v: observed };
    };
    for (;;) {
        try {
            const v = await fn(seen);
            if (v !== undefined) return v;
            lastError = undefined;
        } catch (e) {
            lastError = e;
        }
        if (Date.now() >= deadline) break;
        await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
    }
    const saw = lastSeen === undefined ? "" : `; last seen: ${shortText(lastSeen.v)}`;
    const err = lastError === undefined ? "" : `; last error: ${(lastError as Error).message}`;
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${saw}${err}`);
}
