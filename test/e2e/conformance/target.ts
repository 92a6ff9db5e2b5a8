// The "target" a conformance scenario runs against: one small interface, implemented twice, by the GARM simulator
// (simulator) and by the real GARM v0.2.1 + mock GitHub + fake provider (harness/real-garm).
// Scenarios see only the REST API (garm-behaviour.md §2) plus a few control hooks; time passes through advance(), which is a
// simulator tick() or a short sleep against the real GARM, so the same script drives both.
import { startSimulator, type Simulator } from "../../../simulator";
import { startE2eEnvironment, type E2eEnvironment } from "../../../harness/real-garm/environment";

export interface ApiResult {
    status: number;
    /** Parsed JSON; undefined for an empty or non-JSON body. */
    body: unknown;
    text: string;
}

/** GitHub calls a scenario can make fail once (garm-behaviour.md §10.2 ids in brackets). */
export type GitHubFault =
    | "scaleset-delete" // A5: DELETE runnerscalesets/{id}
    | "scaleset-delete-token" // R4 before A5: the admin-info (runner-registration) call
    | "runner-delete"; // J2: DELETE distributedtask/pools/0/agents/{id}

export interface Target {
    readonly kind: "sim" | "real";
    readonly orgId: string;
    readonly repoId: string;
    /** Authenticated call below /api/v1. `body` as a string is sent verbatim (for malformed JSON). */
    api(method: string, path: string, body?: unknown): Promise<ApiResult>;
    /** Unauthenticated call below /api/v1. */
    apiNoAuth(method: string, path: string): Promise<ApiResult>;
    /** Lets time pass: one worker tick on the simulator, a short sleep on the real GARM. */
    advance(): Promise<void>;
    /** Upper bound for waits, in advance() steps. */
    readonly maxSteps: number;
    /**
     * Acts as the runner agent: the runner reports installing → idle (real GARM: callback URL with the instance token,
     * garm-behaviour.md §11.4). The simulator's runners already report idle on their own; there it is a no-op.
     */
    runnerReportsIdle(name: string): Promise<void>;
    /** The next call of `op` to GitHub answers `status`. */
    failGitHub(op: GitHubFault, status: number): void;
    /** The provider's DeleteInstance fails for `runner` (real: for every runner of the fake provider) while on. */
    failTeardown(runner: string, on: boolean): void;
    /** Deletes the scale set on the GitHub side only (the §5 no-op trap): GARM's id and GitHub's `scale_set_id`. */
    deleteGitHubScaleSet(ss: { id: number; scale_set_id: number }): void;
    /** A GARM restart (§4.5 worker start re-creates missing GitHub scale sets). */
    restart(): Promise<void>;
    stop(): Promise<void>;
    /** Log tail for failures (real GARM only). */
    logTail(): string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function parse(text: string): unknown {
    if (text === "") return undefined;
    try {
        return JSON.parse(text);
    } catch {
        return undefined;
    }
}

async function call(baseUrl: string, token: string | undefined, method: string, path: string, body?: unknown): Promise<ApiResult> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${baseUrl}/api/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(60000),
    });
    const text = await res.text();
    return { status: res.status, body: parse(text), text };
}

export async function simTarget(): Promise<Target> {
    // No background timer: time passes only through advance() → tick(), so every intermediate state is observable.
    const sim: Simulator = await startSimulator({ tickMs: 0 });
    const login = await call(sim.url, undefined, "POST", "/auth/login", { username: sim.username, password: sim.password });
    if (login.status !== 200) throw new Error(`simulator login failed: ${login.status} ${login.text}`);
    const token = (login.body as { token: string }).token;
    return {
        kind: "sim",
        orgId: sim.organizationId,
        repoId: sim.repositoryId,
        api: (m, p, b) => call(sim.url, token, m, p, b),
        apiNoAuth: (m, p) => call(sim.url, undefined, m, p),
        advance: () => sim.tick(),
        maxSteps: 40,
        runnerReportsIdle: async () => {},
        failGitHub: (op, status) => sim.failNextGitHub(op, status as 500),
        failTeardown: (runner, on) => sim.setTeardownFails(runner, on),
        deleteGitHubScaleSet: (ss) => sim.deleteGitHubScaleSet(ss.id),
        restart: () => sim.restart(),
        stop: () => sim.stop(),
        logTail: () => "",
    };
}

export async function realTarget(): Promise<Target & { env: E2eEnvironment }> {
    const env = await startE2eEnvironment();
    const { garm, mock } = env;
    const stepMs = 250;
    return {
        kind: "real",
        env,
        orgId: garm.orgId!,
        repoId: garm.repoId!,
        api: async (m, p, b) => {
            // garm.api JSON-encodes its body, so verbatim strings go through a plain fetch.
            if (typeof b === "string") return call(garm.url, garm.token, m, p, b);
            const r = await garm.api(m, p, b);
            return { status: r.status, body: r.body, text: r.text };
        },
        apiNoAuth: (m, p) => call(garm.url, undefined, m, p),
        advance: async () => {
            await sleep(stepMs);
        },
        maxSteps: Math.ceil(90000 / stepMs), // the first runner takes ~15 s; teardown retries back off (§6.1)
        runnerReportsIdle: async (name) => {
            if (!(await garm.provider.reportRunnerIdle(name))) throw new Error(`runner ${name}: installing/idle callbacks refused`);
        },
        failGitHub: (op, status) => {
            const mockOp = op === "scaleset-delete" ? "deleteScaleSet" : op === "scaleset-delete-token" ? "runnerRegistration" : "removeRunner";
            mock.failNext(mockOp, status);
        },
        failTeardown: (_runner, on) => garm.provider.setFailDelete(on),
        deleteGitHubScaleSet: (ss) => {
            if (!mock.deleteScaleSetOutOfBand(ss.scale_set_id)) throw new Error(`mock GitHub has no scale set ${ss.scale_set_id}`);
        },
        restart: () => garm.restart(),
        stop: () => env.stop(),
        logTail: () => garm.logs().split("\n").slice(-60).join("\n"),
    };
}
