// Mock of the GitHub REST API and the GitHub Actions service, as far as GARM v0.2.1 uses them for scale sets
// (garm-behaviour.md §10.2: R1-R5, A1-A5, L1-L6, J1-J3, C1). One org `acme` and one repo `acme/app`.
//
// The mock is stateful (scale sets, message sessions, a message queue per scale set, agents = registered runners) and
// exposes a control surface twice: in-process (methods on the returned handle) and over HTTP under `/_mock/`, so a
// test in another process (or a human with curl) can push job messages and inject failures.
//
// Everything listens on 127.0.0.1 only; long polls are bounded (longPollMs) and released on close().
import { type HookOp, MockHooks } from "./hooks";
import * as http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";

export const ORG = "acme";
export const REPO_OWNER = "acme";
export const REPO_NAME = "app";

/** Named operations of the mock; the names are used by the failure switches and the request log. */
export type MockOp =
    | "rateLimit" // R1
    | "toolsDownloads" // R2
    | "registrationToken" // R3
    | "runnerRegistration" // R4 (admin info)
    | "runnerGroups" // R5
    | "listRunnersRest" // REST fallback of C1
    | "generateJitConfigRest" // classic pool runner JIT config (REST)
    | "removeRunnerRest" // classic pool runner removal (REST)
    | "createScaleSet" // A1
    | "listScaleSets" // A2
    | "getScaleSet"
    | "updateScaleSet" // A3
    | "getRunnerGroupByName" // A4
    | "deleteScaleSet" // A5
    | "createSession" // L1
    | "getMessage" // L2
    | "deleteMessage" // L3
    | "acquireJobs" // L4
    | "refreshSession" // L5
    | "deleteSession" // L6
    | "generateJitConfig" // J1
    | "removeRunner" // J2
    | "getRunner" // J3
    | "listAgents" // C1
    | "agentReleases" // controller garm_agent_releases_url, pointed here to keep GARM off the internet
    | HookOp // webhook management (./hooks.ts)
    | "unknown";

export interface EntityRef {
    kind: "org" | "repo";
    /** "acme" for the org, "acme/app" for the repo. */
    key: string;
}

export interface MockScaleSet {
    id: number;
    name: string;
    runnerGroupId: number;
    runnerGroupName: string;
    labels: { type: string; name: string }[];
    enabled: boolean | undefined;
    disableUpdate: boolean;
    entity: EntityRef;
    createdOn: string;
}

export interface MockSession {
    sessionId: string;
    ownerName: string;
    scaleSetId: number;
    token: string;
    createdAt: number;
}

export interface MockAgent {
    id: number;
    name: string;
    runnerScaleSetId: number;
    status: "online" | "offline";
    busy: boolean;
    entity: EntityRef;
    createdOn: string;
}

/** One job message entry inside a RunnerScaleSetJobMessages body (garm params/github.go ScaleSetJobMessage). */
export interface JobMessageEntry {
    messageType: "JobAvailable" | "JobAssigned" | "JobStarted" | "JobCompleted";
    jobId: string;
    runnerRequestId: number;
    repositoryName: string;
    ownerName: string;
    jobWorkflowRef?: string;
    jobDisplayName: string;
    workflowRunId: number;
    eventName: string;
    requestLabels: string[];
    queueTime?: string;
    scaleSetAssignTime?: string;
    runnerAssignTime?: string;
    finishTime?: string;
    result?: string;
    runnerId?: number;
    runnerName?: string;
    acquireJobUrl?: string;
}

interface QueuedMessage {
    messageId: number;
    messageType: string;
    entries: JobMessageEntry[];
    /** Statistics are computed when the message is delivered unless pinned here; null omits them (GARM panics, §10.2). */
    statistics?: Record<string, number> | null;
    delivered: number;
}

interface MockJob {
    jobId: string;
    runnerRequestId: number;
    scaleSetId: number;
    state: "available" | "assigned" | "started" | "completed";
    runnerName?: string;
    runnerId?: number;
}

export interface FailureRule {
    op: MockOp;
    status: number;
    /** How many matching calls fail; Infinity for "until cleared". */
    remaining: number;
    body?: unknown;
}

export interface RequestRecord {
    at: number;
    method: string;
    path: string;
    op: MockOp;
    status: number;
    body?: string;
}

export interface MockGithubOptions {
    /** Long-poll wait before answering 202 (real GitHub: ~50 s; GARM does not sleep between polls). Default 1500 ms. */
    longPollMs?: number;
    /** Status for a second session on a scale set that already has one. Real GitHub answers 409; default: replace (0). */
    sessionConflictStatus?: number;
    /** Status returned when removing a busy runner (J2). Default 400, as the actions service refuses (ARC's JobStillRunningException). */
    busyRunnerRemovalStatus?: number;
    /** On JobCompleted, drop the (ephemeral) runner from the agents list, as GitHub does. Default true. */
    removeAgentOnJobCompleted?: boolean;
    /** Keep a log of requests (default true; capped at 5000 entries). */
    recordRequests?: boolean;
    /** Print each request to stderr (debugging). */
    verbose?: boolean;
}

export interface PushJobOptions {
    jobId?: string;
    runnerRequestId?: number;
    eventName?: string;
    result?: string;
    jobDisplayName?: string;
    workflowRunId?: number;
    repositoryName?: string;
    ownerName?: string;
    requestLabels?: string[];
}

export interface PushResult {
    messageId: number;
    scaleSetId: number;
    entry: JobMessageEntry;
}

export interface MockGithub {
    /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
    readonly url: string;
    /** URLs to give GARM's POST /github/endpoints (garm-behaviour.md §10.1). */
    readonly endpoint: { base_url: string; api_base_url: string; upload_base_url: string };
    readonly scaleSets: ReadonlyMap<number, MockScaleSet>;
    readonly sessions: ReadonlyMap<string, MockSession>;
    readonly agents: ReadonlyMap<number, MockAgent>;
    readonly requests: readonly RequestRecord[];
    /** Organization and repository webhooks GARM installed. */
    readonly hooks: MockHooks;

    /** Injects failures: the next `times` calls of `op` answer `status` (times default 1; Infinity = sticky). */
    failNext(op: MockOp, status: number, times?: number, body?: unknown): void;
    clearFailures(op?: MockOp): void;
    /** Count of recorded requests for an op (optionally only those answered with `status`). */
    calls(op: MockOp, status?: number): number;

    findScaleSetByName(name: string): MockScaleSet | undefined;
    findAgentByName(name: string): MockAgent | undefined;
    /** Scale set that has an active session (listener running), if any. */
    sessionFor(scaleSetId: number): MockSession | undefined;
    /** Number of undelivered + unacknowledged messages queued for a scale set. */
    pendingMessages(scaleSetId: number): number;

    /** A job becomes available to the scale set (GARM acquires it via L4). */
    pushJobAvailable(scaleSetId: number, opts?: PushJobOptions): PushResult;
    /** A job is assigned to the scale set (counts into statistics.totalAssignedJobs, i.e. desired_runner_count). */
    pushJobAssigned(scaleSetId: number, opts?: PushJobOptions): PushResult;
    /** A job starts on the named runner: the agent turns busy; GARM sets runner_status=active. */
    pushJobStarted(runnerName: string, opts?: PushJobOptions): PushResult;
    /** The job on the named runner finishes: GARM marks the runner pending_delete (garm-behaviour.md §7.5). */
    pushJobCompleted(runnerName: string, opts?: PushJobOptions): PushResult;
    /** Raw message push (any messageType; statistics computed at delivery unless given). */
    pushMessage(scaleSetId: number, entries: JobMessageEntry[], opts?: { messageType?: string; statistics?: Record<string, number> | null }): number;
    /** Resolves once every queued message of the scale set was acknowledged (L3), or rejects after timeoutMs. */
    waitForQueueDrained(scaleSetId: number, timeoutMs?: number): Promise<void>;

    setAgentBusy(runnerName: string, busy: boolean): void;
    setAgentStatus(runnerName: string, status: "online" | "offline"): void;
    /** Out-of-band removal (as if deleted in the GitHub UI). */
    removeAgentOutOfBand(runnerName: string): boolean;
    deleteScaleSetOutOfBand(id: number): boolean;

    close(): Promise<void>;
}

const REST_PREFIX = "/api/v3";
const ACTIONS_PREFIX = "/_actions";
const MSGQ_PREFIX = "/_msgq";

function b64url(s: string): string {
    return Buffer.from(s).toString("base64url");
}

/** GARM parses the admin and message-queue tokens unverified, only for `exp` (garm params/github.go getJWT). */
function fakeJwt(ttlSeconds: number, extra: Record<string, unknown> = {}): string {
    const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    const payload = b64url(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + ttlSeconds, iat: Math.floor(Date.now() / 1000), ...extra }));
    return `${header}.${payload}.${b64url("mock-signature")}`;
}

function readBody(req: http.IncomingMessage, limit = 1 << 20): Promise<string> {
    return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        req.on("data", (c: Buffer) => {
            size += c.length;
            if (size > limit) {
                reject(new Error("body too large"));
                req.destroy();
                return;
            }
            chunks.push(c);
        });
        req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        req.on("error", reject);
    });
}

function parseJson(text: string): unknown {
    if (!text) return undefined;
    try {
        return JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch {
        return undefined;
    }
}

export async function startMockGithub(options: MockGithubOptions = {}): Promise<MockGithub> {
    const longPollMs = options.longPollMs ?? 1500;
    const busyRemovalStatus = options.busyRunnerRemovalStatus ?? 400;
    const removeOnCompleted = options.removeAgentOnJobCompleted ?? true;
    const recordRequests = options.recordRequests ?? true;

    const scaleSets = new Map<number, MockScaleSet>();
    const sessions = new Map<string, MockSession>();
    const agents = new Map<number, MockAgent>();
    const queues = new Map<number, QueuedMessage[]>();
    const jobs = new Map<string, MockJob>();
    const failures: FailureRule[] = [];
    const hooks = new MockHooks();
    const requests: RequestRecord[] = [];
    // Long-poll waiters per scale set; woken by a push or by close().
    const waiters = new Map<number, Set<() => void>>();
    const drainWaiters = new Set<() => void>();
    let nextScaleSetId = 101; // deliberately different from GARM's own ids, so a client mixing them up fails visibly
    let nextAgentId = 5001;
    let nextMessageId = 1;
    let nextRequestId = 9001;
    let nextJobSeq = 1;
    let closed = false;
    let baseUrl = "";

    const entities: EntityRef[] = [
        { kind: "org", key: ORG },
        { kind: "repo", key: `${REPO_OWNER}/${REPO_NAME}` },
    ];

    function actionsUrlFor(e: EntityRef): string {
        // One actions "tenant" per entity, like GitHub; the path keeps agents lists (C1) scoped per entity.
        return `${baseUrl}${ACTIONS_PREFIX}/${e.kind}/${e.key}/`;
    }

    function takeFailure(op: MockOp): FailureRule | undefined {
        const idx = failures.findIndex((f) => f.op === op && f.remaining > 0);
        if (idx < 0) return undefined;
        const rule = failures[idx];
        rule.remaining -= 1;
        if (rule.remaining <= 0) failures.splice(idx, 1);
        return rule;
    }

    function stats(scaleSetId: number): Record<string, number> {
        let assigned = 0;
        let running = 0;
        let available = 0;
        let acquired = 0;
        for (const j of jobs.values()) {
            if (j.scaleSetId !== scaleSetId) continue;
            if (j.state === "available") available++;
            if (j.state === "assigned" || j.state === "started") assigned++;
            if (j.state === "started") running++;
        }
        acquired = assigned;
        const regs = [...agents.values()].filter((a) => a.runnerScaleSetId === scaleSetId);
        const busy = regs.filter((a) => a.busy).length;
        // garm-behaviour.md §10.2 pitfall: a message without statistics panics GARM; always send the full object.
        return {
            totalAvailableJobs: available,
            totalAcquiredJobs: acquired,
            totalAssignedJobs: assigned,
            totalRunningJobs: running,
            totalRegisteredRunners: regs.length,
            totalBusyRunners: busy,
            totalIdleRunners: regs.length - busy,
        };
    }

    function scaleSetJson(s: MockScaleSet): Record<string, unknown> {
        return {
            id: s.id,
            name: s.name,
            runnerGroupId: s.runnerGroupId,
            runnerGroupName: s.runnerGroupName,
            labels: s.labels,
            RunnerSetting: { ephemeral: true, isElastic: true, ...(s.disableUpdate ? { disableUpdate: true } : {}) },
            createdOn: s.createdOn,
            runnerJitConfigUrl: `${actionsUrlFor(s.entity)}_apis/runtime/runnerscalesets/${s.id}/generatejitconfig`,
            statistics: stats(s.id),
            ...(s.enabled !== undefined ? { enabled: s.enabled } : {}),
        };
    }

    function agentJson(a: MockAgent): Record<string, unknown> {
        return {
            id: a.id,
            name: a.name,
            os: "Linux",
            runnerScaleSetId: a.runnerScaleSetId,
            createdOn: a.createdOn,
            runnerGroupId: 1,
            runnerGroupName: "Default",
            version: "2.330.0",
            enabled: true,
            ephemeral: true,
            status: a.status,
            disableUpdate: false,
            provisioningState: "Provisioned",
            busy: a.busy,
            labels: [{ type: "System", name: "self-hosted" }],
        };
    }

    function sessionJson(s: MockSession): Record<string, unknown> {
        const ss = scaleSets.get(s.scaleSetId);
        return {
            sessionId: s.sessionId,
            ownerName: s.ownerName,
            runnerScaleSet: ss ? scaleSetJson(ss) : { id: s.scaleSetId },
            messageQueueUrl: `${baseUrl}${MSGQ_PREFIX}/${s.scaleSetId}/${s.sessionId}`,
            messageQueueAccessToken: s.token,
            statistics: stats(s.scaleSetId),
        };
    }

    function wake(scaleSetId: number): void {
        const set = waiters.get(scaleSetId);
        if (!set) return;
        for (const w of [...set]) w();
    }

    function queueOf(scaleSetId: number): QueuedMessage[] {
        let q = queues.get(scaleSetId);
        if (!q) {
            q = [];
            queues.set(scaleSetId, q);
        }
        return q;
    }

    function pushMessage(scaleSetId: number, entries: JobMessageEntry[], opts: { messageType?: string; statistics?: Record<string, number> | null } = {}): number {
        const messageId = nextMessageId++;
        queueOf(scaleSetId).push({
            messageId,
            messageType: opts.messageType ?? "RunnerScaleSetJobMessages",
            entries,
            statistics: opts.statistics,
            delivered: 0,
        });
        wake(scaleSetId);
        return messageId;
    }

    function entryFor(type: JobMessageEntry["messageType"], job: MockJob, opts: PushJobOptions): JobMessageEntry {
        const now = new Date().toISOString();
        const e: JobMessageEntry = {
            messageType: type,
            jobId: job.jobId,
            runnerRequestId: job.runnerRequestId,
            repositoryName: opts.repositoryName ?? REPO_NAME,
            ownerName: opts.ownerName ?? REPO_OWNER,
            jobWorkflowRef: `${REPO_OWNER}/${REPO_NAME}/.github/workflows/ci.yml@refs/heads/main`,
            jobDisplayName: opts.jobDisplayName ?? `job-${job.jobId}`,
            workflowRunId: opts.workflowRunId ?? 7000 + job.runnerRequestId,
            eventName: opts.eventName ?? "push",
            requestLabels: opts.requestLabels ?? ["self-hosted"],
            queueTime: now,
        };
        if (type !== "JobAvailable") e.scaleSetAssignTime = now;
        if (job.runnerName) {
            e.runnerName = job.runnerName;
            e.runnerId = job.runnerId;
            e.runnerAssignTime = now;
        }
        if (type === "JobCompleted") {
            e.finishTime = now;
            e.result = opts.result ?? "succeeded";
        }
        if (type === "JobAvailable") {
            e.acquireJobUrl = `${baseUrl}${ACTIONS_PREFIX}/acquire/${job.runnerRequestId}`;
        }
        return e;
    }

    function newJob(scaleSetId: number, opts: PushJobOptions, state: MockJob["state"]): MockJob {
        const seq = nextJobSeq++;
        const job: MockJob = {
            jobId: opts.jobId ?? `job-${seq}-${randomUUID().slice(0, 8)}`,
            runnerRequestId: opts.runnerRequestId ?? nextRequestId++,
            scaleSetId,
            state,
        };
        jobs.set(job.jobId, job);
        return job;
    }

    function requireScaleSet(id: number): MockScaleSet {
        const s = scaleSets.get(id);
        if (!s) throw new Error(`mock-github: no scale set with id ${id}`);
        return s;
    }

    function requireAgent(name: string): MockAgent {
        const a = [...agents.values()].find((x) => x.name === name);
        if (!a) throw new Error(`mock-github: no runner (agent) named ${name}; known: ${[...agents.values()].map((x) => x.name).join(", ")}`);
        return a;
    }

    /** The job bound to a runner: an explicit jobId, else the runner's current job, else a fresh one. */
    function jobForRunner(a: MockAgent, opts: PushJobOptions): MockJob {
        if (opts.jobId && jobs.has(opts.jobId)) return jobs.get(opts.jobId)!;
        const current = [...jobs.values()].find((j) => j.runnerName === a.name && j.state !== "completed");
        if (current) return current;
        const j = newJob(a.runnerScaleSetId, opts, "assigned");
        j.runnerName = a.name;
        j.runnerId = a.id;
        return j;
    }

    const handle: MockGithub = {
        get url() {
            return baseUrl;
        },
        get endpoint() {
            return { base_url: baseUrl, api_base_url: `${baseUrl}/api/v3/`, upload_base_url: `${baseUrl}/api/uploads/` };
        },
        scaleSets,
        sessions,
        agents,
        requests,
        hooks,
        failNext(op, status, times = 1, body) {
            failures.push({ op, status, remaining: times, body });
        },
        clearFailures(op) {
            for (let i = failures.length - 1; i >= 0; i--) if (!op || failures[i].op === op) failures.splice(i, 1);
        },
        calls(op, status) {
            return requests.filter((r) => r.op === op && (status === undefined || r.status === status)).length;
        },
        findScaleSetByName(name) {
            return [...scaleSets.values()].find((s) => s.name === name);
        },
        findAgentByName(name) {
            return [...agents.values()].find((a) => a.name === name);
        },
        sessionFor(scaleSetId) {
            return [...sessions.values()].find((s) => s.scaleSetId === scaleSetId);
        },
        pendingMessages(scaleSetId) {
            return queues.get(scaleSetId)?.length ?? 0;
        },
        pushJobAvailable(scaleSetId, opts = {}) {
            requireScaleSet(scaleSetId);
            const job = newJob(scaleSetId, opts, "available");
            const entry = entryFor("JobAvailable", job, opts);
            return { messageId: pushMessage(scaleSetId, [entry]), scaleSetId, entry };
        },
        pushJobAssigned(scaleSetId, opts = {}) {
            requireScaleSet(scaleSetId);
            const job = opts.jobId && jobs.has(opts.jobId) ? jobs.get(opts.jobId)! : newJob(scaleSetId, opts, "assigned");
            job.state = "assigned";
            const entry = entryFor("JobAssigned", job, opts);
            return { messageId: pushMessage(scaleSetId, [entry]), scaleSetId, entry };
        },
        pushJobStarted(runnerName, opts = {}) {
            const a = requireAgent(runnerName);
            const job = jobForRunner(a, opts);
            job.state = "started";
            job.runnerName = a.name;
            job.runnerId = a.id;
            a.busy = true;
            const entry = entryFor("JobStarted", job, opts);
            return { messageId: pushMessage(a.runnerScaleSetId, [entry]), scaleSetId: a.runnerScaleSetId, entry };
        },
        pushJobCompleted(runnerName, opts = {}) {
            const a = requireAgent(runnerName);
            const job = jobForRunner(a, opts);
            job.state = "completed";
            job.runnerName = a.name;
            job.runnerId = a.id;
            a.busy = false;
            const entry = entryFor("JobCompleted", job, opts);
            // An ephemeral runner de-registers after its job; GitHub then no longer lists it (C1).
            if (removeOnCompleted) agents.delete(a.id);
            return { messageId: pushMessage(a.runnerScaleSetId, [entry]), scaleSetId: a.runnerScaleSetId, entry };
        },
        pushMessage,
        async waitForQueueDrained(scaleSetId, timeoutMs = 30000) {
            const deadline = Date.now() + timeoutMs;
            while ((queues.get(scaleSetId)?.length ?? 0) > 0) {
                const left = deadline - Date.now();
                if (left <= 0 || closed) {
                    throw new Error(`mock-github: queue of scale set ${scaleSetId} still has ${queues.get(scaleSetId)?.length} message(s) after ${timeoutMs} ms`);
                }
                await new Promise<void>((resolve) => {
                    const done = () => {
                        clearTimeout(t);
                        drainWaiters.delete(done);
                        resolve();
                    };
                    const t = setTimeout(done, Math.min(left, 500));
                    drainWaiters.add(done);
                });
            }
        },
        setAgentBusy(runnerName, busy) {
            requireAgent(runnerName).busy = busy;
        },
        setAgentStatus(runnerName, status) {
            requireAgent(runnerName).status = status;
        },
        removeAgentOutOfBand(runnerName) {
            const a = [...agents.values()].find((x) => x.name === runnerName);
            return a ? agents.delete(a.id) : false;
        },
        deleteScaleSetOutOfBand(id) {
            for (const [sid, s] of sessions) if (s.scaleSetId === id) sessions.delete(sid);
            queues.delete(id);
            wake(id);
            return scaleSets.delete(id);
        },
        close() {
            closed = true;
            for (const set of waiters.values()) for (const w of [...set]) w();
            for (const d of [...drainWaiters]) d();
            return new Promise<void>((resolve) => {
                server.close(() => resolve());
                server.closeAllConnections();
            });
        },
    };

    // ---------------------------------------------------------------- HTTP plumbing

    type Reply = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> };

    function send(res: http.ServerResponse, r: Reply): void {
        if (res.writableEnded || res.destroyed) return;
        const headers: Record<string, string> = { ...(r.headers ?? {}) };
        let payload = "";
        if (r.raw !== undefined) payload = r.raw;
        else if (r.body !== undefined) {
            payload = JSON.stringify(r.body);
            headers["content-type"] ??= "application/json; charset=utf-8";
        }
        res.writeHead(r.status, headers);
        res.end(payload);
    }

    function notFound(what: string): Reply {
        return { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest", detail: what } };
    }

    function entityFromActionsPath(parts: string[]): { entity: EntityRef; rest: string[] } | undefined {
        // /_actions/org/acme/_apis/...  or  /_actions/repo/acme/app/_apis/...
        if (parts[0] === "org" && parts[1] === ORG) return { entity: entities[0], rest: parts.slice(2) };
        if (parts[0] === "repo" && parts[1] === REPO_OWNER && parts[2] === REPO_NAME) return { entity: entities[1], rest: parts.slice(3) };
        return undefined;
    }

    function restEntity(seg: string[]): EntityRef | undefined {
        if (seg[0] === "orgs" && seg[1] === ORG) return entities[0];
        if (seg[0] === "repos" && seg[1] === REPO_OWNER && seg[2] === REPO_NAME) return entities[1];
        return undefined;
    }

    async function route(req: http.IncomingMessage, res: http.ServerResponse, u: URL, body: string): Promise<{ op: MockOp; reply?: Reply }> {
        const method = req.method ?? "GET";
        const p = u.pathname;

        // ---------------- REST API (go-github, base <mock>/api/v3/)
        if (p.startsWith(`${REST_PREFIX}/`)) {
            const seg = p.slice(REST_PREFIX.length + 1).split("/").filter(Boolean);
            if (method === "GET" && seg.length === 1 && seg[0] === "rate_limit") {
                const reset = Math.floor(Date.now() / 1000) + 3600;
                const core = { limit: 5000, used: 0, remaining: 5000, reset };
                return { op: "rateLimit", reply: { status: 200, body: { resources: { core, search: core }, rate: core } } };
            }
            if (method === "GET" && seg.join("/") === "repos/cloudbase/garm-agent/releases") {
                // GARM's garm-agent release poller (§10.3 "unrelated outbound call"); answer locally.
                const release = {
                    tag_name: "v0.0.0-mock",
                    name: "mock",
                    assets: [{ name: "garm-agent-linux-amd64", browser_download_url: `${baseUrl}/downloads/garm-agent-linux-amd64`, size: 1 }],
                };
                return { op: "agentReleases", reply: { status: 200, body: [release] } };
            }
            const hooked = hooks.handle(method, seg, parseJson(body));
            if (hooked) return hooked;
            const ent = restEntity(seg);
            const tail = ent ? seg.slice(ent.kind === "org" ? 2 : 3).join("/") : "";
            if (ent && method === "GET" && tail === "actions/runners/downloads") {
                const dl = (os: string, arch: string, ext: string) => ({
                    os,
                    architecture: arch,
                    download_url: `${baseUrl}/downloads/actions-runner-${os}-${arch}-2.330.0.${ext}`,
                    filename: `actions-runner-${os}-${arch}-2.330.0.${ext}`,
                    sha256_checksum: "0".repeat(64),
                });
                // R2: must be non-empty, otherwise GARM's autoscaler pauses (garm-behaviour.md §10.2).
                return { op: "toolsDownloads", reply: { status: 200, body: [dl("linux", "x64", "tar.gz"), dl("linux", "arm64", "tar.gz"), dl("win", "x64", "zip")] } };
            }
            if (ent && method === "POST" && tail === "actions/runners/registration-token") {
                return {
                    op: "registrationToken",
                    reply: { status: 201, body: { token: `REG${randomUUID().replace(/-/g, "").toUpperCase()}`, expires_at: new Date(Date.now() + 3600_000).toISOString() } },
                };
            }
            if (ent && ent.kind === "org" && method === "GET" && tail === "actions/runner-groups") {
                return {
                    op: "runnerGroups",
                    reply: { status: 200, body: { total_count: 1, runner_groups: [{ id: 1, name: "Default", visibility: "all", default: true, runners_url: "", inherited: false, allows_public_repositories: true }] } },
                };
            }
            if (ent && method === "GET" && tail === "actions/runners") {
                const list = [...agents.values()].filter((a) => a.entity.key === ent.key);
                return {
                    op: "listRunnersRest",
                    reply: {
                        status: 200,
                        body: {
                            total_count: list.length,
                            runners: list.map((a) => ({ id: a.id, name: a.name, os: "linux", status: a.status, busy: a.busy, labels: [{ id: 1, name: "self-hosted", type: "read-only" }] })),
                        },
                    },
                };
            }
            // Classic pool runners: GARM asks for a JIT config per runner (runner/pool/pool.go L951-957, util/github/client.go
            // L490-550: `runner` and base64 JSON `encoded_jit_config`) and removes a runner by id when its API delete or its
            // failed creation removes it (runner/pool/pool.go L1921-1922, L959-967; util/github/client.go L307-343).
            if (ent && method === "POST" && tail === "actions/runners/generate-jitconfig") {
                const name = String((parseJson(body) as { name?: unknown } | undefined)?.name ?? "");
                if (!name) return { op: "generateJitConfigRest", reply: { status: 422, body: { message: "name required" } } };
                if ([...agents.values()].some((a) => a.name === name)) {
                    return { op: "generateJitConfigRest", reply: { status: 409, body: { message: `runner ${name} exists` } } };
                }
                const agent: MockAgent = { id: nextAgentId++, name, runnerScaleSetId: 0, status: "online", busy: false, entity: ent, createdOn: new Date().toISOString() };
                agents.set(agent.id, agent);
                const jit = { ".runner": Buffer.from(JSON.stringify({ agentId: agent.id, agentName: name })).toString("base64") };
                return {
                    op: "generateJitConfigRest",
                    reply: { status: 201, body: { runner: { id: agent.id, name, os: "linux", status: "online", busy: false }, encoded_jit_config: Buffer.from(JSON.stringify(jit)).toString("base64") } },
                };
            }
            const removal = /^actions\/runners\/(\d+)$/.exec(tail);
            if (ent && method === "DELETE" && removal) {
                const id = Number(removal[1]);
                const a = agents.get(id);
                if (!a || a.entity.key !== ent.key) return { op: "removeRunnerRest", reply: notFound(`runner ${id}`) };
                agents.delete(id);
                return { op: "removeRunnerRest", reply: { status: 204 } };
            }
            return { op: "unknown", reply: notFound(`${method} ${p}`) };
        }

        // ---------------- R4: admin info; path replaced onto the API host (garm-behaviour.md §10.1)
        if (p === "/actions/runner-registration" && method === "POST") {
            if (!(req.headers.authorization ?? "").startsWith("RemoteAuth ")) {
                return { op: "runnerRegistration", reply: { status: 401, body: { message: "missing RemoteAuth" } } };
            }
            const b = parseJson(body) as { url?: string } | undefined;
            const target = (b?.url ?? "").replace(/\/+$/, "");
            let ent: EntityRef | undefined;
            if (target === `${baseUrl}/${ORG}`) ent = entities[0];
            else if (target === `${baseUrl}/${REPO_OWNER}/${REPO_NAME}`) ent = entities[1];
            if (!ent) return { op: "runnerRegistration", reply: notFound(`no entity for url ${b?.url}`) };
            return { op: "runnerRegistration", reply: { status: 200, body: { url: actionsUrlFor(ent), token: fakeJwt(3600, { scope: ent.key }) } } };
        }

        // ---------------- message queue (L2/L3)
        if (p.startsWith(`${MSGQ_PREFIX}/`)) {
            const [ssIdStr, sessionId, msgIdStr] = p.slice(MSGQ_PREFIX.length + 1).split("/");
            const ssId = Number(ssIdStr);
            const sess = sessions.get(sessionId);
            const auth = req.headers.authorization ?? "";
            if (method === "DELETE" && msgIdStr) {
                const q = queueOf(ssId);
                const idx = q.findIndex((m) => m.messageId === Number(msgIdStr));
                if (idx >= 0) q.splice(idx, 1);
                for (const d of [...drainWaiters]) d();
                return { op: "deleteMessage", reply: { status: 204 } };
            }
            if (method === "GET" && !msgIdStr) {
                if (!sess || sess.scaleSetId !== ssId) return { op: "getMessage", reply: notFound(`no session ${sessionId}`) };
                if (auth !== `Bearer ${sess.token}`) return { op: "getMessage", reply: { status: 401, body: { message: "bad message queue token" } } };
                const lastId = Number(u.searchParams.get("lastMessageId") ?? "0");
                const pick = () => queueOf(ssId).find((m) => m.messageId > lastId);
                let msg = pick();
                if (!msg) {
                    // Long poll: block up to longPollMs, wake on push/close/disconnect (bounded by the timer).
                    await new Promise<void>((resolve) => {
                        let set = waiters.get(ssId);
                        if (!set) {
                            set = new Set();
                            waiters.set(ssId, set);
                        }
                        const s = set;
                        const done = () => {
                            clearTimeout(t);
                            s.delete(done);
                            res.off("close", done);
                            resolve();
                        };
                        const t = setTimeout(done, longPollMs);
                        s.add(done);
                        res.on("close", done);
                    });
                    msg = closed || !sessions.has(sessionId) ? undefined : pick();
                }
                if (!msg) return { op: "getMessage", reply: { status: 202 } };
                msg.delivered++;
                return {
                    op: "getMessage",
                    reply: {
                        status: 200,
                        body: {
                            messageId: msg.messageId,
                            messageType: msg.messageType,
                            // `body` is a JSON-encoded string (garm-behaviour.md §10.2 L2).
                            body: JSON.stringify(msg.entries),
                            ...(msg.statistics === null ? {} : { statistics: msg.statistics ?? stats(ssId) }),
                        },
                    },
                };
            }
            return { op: "unknown", reply: notFound(`${method} ${p}`) };
        }

        // ---------------- actions service
        if (p.startsWith(`${ACTIONS_PREFIX}/`)) {
            const parts = p.slice(ACTIONS_PREFIX.length + 1).split("/").filter(Boolean);
            const found = entityFromActionsPath(parts);
            if (!found) return { op: "unknown", reply: notFound(`${method} ${p}`) };
            const { entity, rest } = found;
            if (rest[0] !== "_apis") return { op: "unknown", reply: notFound(`${method} ${p}`) };
            const r = rest.slice(1);
            const jsonBody = parseJson(body) as Record<string, unknown> | undefined;

            // runtime/runnergroups?groupName=  (A4)
            if (r[0] === "runtime" && r[1] === "runnergroups" && method === "GET") {
                const name = u.searchParams.get("groupName") ?? "";
                const groups = name.toLowerCase() === "default" ? [{ id: 1, name: "Default", size: 0, isDefaultGroup: true }] : [];
                return { op: "getRunnerGroupByName", reply: { status: 200, body: { count: groups.length, value: groups } } };
            }

            if (r[0] === "runtime" && r[1] === "runnerscalesets") {
                const id = r[2] !== undefined ? Number(r[2]) : undefined;
                if (id === undefined) {
                    if (method === "POST") {
                        const name = String(jsonBody?.name ?? "");
                        const groupId = Number(jsonBody?.runnerGroupId ?? 1);
                        if (!name) return { op: "createScaleSet", reply: { status: 400, body: { message: "name required" } } };
                        const dup = [...scaleSets.values()].find((s) => s.entity.key === entity.key && s.runnerGroupId === groupId && s.name === name);
                        if (dup) {
                            // Real GitHub: 400 for a duplicate name within a runner group (garm scalesets.go comment, §8).
                            return {
                                op: "createScaleSet",
                                reply: { status: 400, body: { message: `A runner scale set named ${name} already exists in runner group ${groupId}`, typeName: "RunnerScaleSetExistsException" } },
                            };
                        }
                        const setting = (jsonBody?.RunnerSetting ?? {}) as { disableUpdate?: boolean };
                        const ss: MockScaleSet = {
                            id: nextScaleSetId++,
                            name,
                            runnerGroupId: groupId,
                            runnerGroupName: "Default",
                            labels: Array.isArray(jsonBody?.labels) ? (jsonBody!.labels as { type: string; name: string }[]) : [],
                            enabled: typeof jsonBody?.enabled === "boolean" ? (jsonBody.enabled as boolean) : undefined,
                            disableUpdate: !!setting.disableUpdate,
                            entity,
                            createdOn: new Date().toISOString(),
                        };
                        scaleSets.set(ss.id, ss);
                        return { op: "createScaleSet", reply: { status: 200, body: scaleSetJson(ss) } };
                    }
                    if (method === "GET") {
                        const name = u.searchParams.get("name");
                        const gid = u.searchParams.get("runnerGroupId");
                        const list = [...scaleSets.values()].filter(
                            (s) => s.entity.key === entity.key && (name === null || s.name === name) && (gid === null || s.runnerGroupId === Number(gid)),
                        );
                        return { op: "listScaleSets", reply: { status: 200, body: { count: list.length, value: list.map(scaleSetJson) } } };
                    }
                }
                if (id !== undefined && r.length === 3) {
                    const ss = scaleSets.get(id);
                    const op: MockOp = method === "GET" ? "getScaleSet" : method === "PATCH" ? "updateScaleSet" : method === "DELETE" ? "deleteScaleSet" : "unknown";
                    if (!ss || ss.entity.key !== entity.key) return { op, reply: notFound(`scale set ${id}`) };
                    if (method === "GET") return { op, reply: { status: 200, body: scaleSetJson(ss) } };
                    if (method === "PATCH") {
                        if (typeof jsonBody?.name === "string" && jsonBody.name) ss.name = jsonBody.name;
                        if (typeof jsonBody?.runnerGroupId === "number" && jsonBody.runnerGroupId) ss.runnerGroupId = jsonBody.runnerGroupId;
                        const setting = jsonBody?.RunnerSetting as { disableUpdate?: boolean } | undefined;
                        if (setting) ss.disableUpdate = !!setting.disableUpdate;
                        return { op, reply: { status: 200, body: scaleSetJson(ss) } };
                    }
                    if (method === "DELETE") {
                        handle.deleteScaleSetOutOfBand(id);
                        for (const a of [...agents.values()]) if (a.runnerScaleSetId === id) agents.delete(a.id);
                        // GARM requires exactly 204 here (garm-behaviour.md §5 step 5).
                        return { op, reply: { status: 204 } };
                    }
                }
                if (id !== undefined && r[3] === "sessions") {
                    const ss = scaleSets.get(id);
                    const sid = r[4];
                    if (method === "POST" && !sid) {
                        if (!ss) return { op: "createSession", reply: notFound(`scale set ${id}`) };
                        const existing = handle.sessionFor(id);
                        if (existing) {
                            if (options.sessionConflictStatus) {
                                return { op: "createSession", reply: { status: options.sessionConflictStatus, body: { message: "session already exists", typeName: "TaskAgentSessionConflictException" } } };
                            }
                            sessions.delete(existing.sessionId);
                            wake(id);
                        }
                        const sess: MockSession = {
                            sessionId: randomUUID(),
                            ownerName: String(jsonBody?.ownerName ?? ""),
                            scaleSetId: id,
                            token: fakeJwt(3600, { sess: id }),
                            createdAt: Date.now(),
                        };
                        sessions.set(sess.sessionId, sess);
                        return { op: "createSession", reply: { status: 200, body: sessionJson(sess) } };
                    }
                    if (method === "PATCH" && sid) {
                        const sess = sessions.get(sid);
                        if (!sess) return { op: "refreshSession", reply: notFound(`session ${sid}`) };
                        sess.token = fakeJwt(3600, { sess: id });
                        return { op: "refreshSession", reply: { status: 200, body: sessionJson(sess) } };
                    }
                    if (method === "DELETE" && sid) {
                        // Never 404 here: GARM v0.2.1 dereferences a nil response on 404 and crashes (garm-behaviour.md §10.2 L6).
                        if (sessions.delete(sid)) wake(id);
                        return { op: "deleteSession", reply: { status: 204 } };
                    }
                }
                if (id !== undefined && r[3] === "acquirejobs" && method === "POST") {
                    const ids = Array.isArray(parseJson(body)) ? (parseJson(body) as number[]) : [];
                    const acquired: number[] = [];
                    for (const j of jobs.values()) {
                        if (j.scaleSetId === id && ids.includes(j.runnerRequestId) && j.state === "available") {
                            j.state = "assigned";
                            acquired.push(j.runnerRequestId);
                        }
                    }
                    return { op: "acquireJobs", reply: { status: 200, body: { count: acquired.length, value: acquired } } };
                }
                if (id !== undefined && r[3] === "generatejitconfig" && method === "POST") {
                    const ss = scaleSets.get(id);
                    if (!ss) return { op: "generateJitConfig", reply: notFound(`scale set ${id}`) };
                    const name = String(jsonBody?.name ?? "");
                    if (!name) return { op: "generateJitConfig", reply: { status: 400, body: { message: "name required" } } };
                    if ([...agents.values()].some((a) => a.name === name)) {
                        return { op: "generateJitConfig", reply: { status: 409, body: { message: `agent ${name} exists` } } };
                    }
                    const agent: MockAgent = {
                        id: nextAgentId++,
                        name,
                        runnerScaleSetId: id,
                        // Listed online and idle so GARM's reaper/consolidation keeps the runner (garm-behaviour.md §10.2 pitfalls).
                        status: "online",
                        busy: false,
                        entity,
                        createdOn: new Date().toISOString(),
                    };
                    agents.set(agent.id, agent);
                    // encodedJITConfig: base64 of a JSON object string->string (J1).
                    const jit = {
                        ".runner": Buffer.from(JSON.stringify({ agentId: agent.id, agentName: name, poolId: 1, serverUrl: actionsUrlFor(entity) })).toString("base64"),
                        ".credentials": Buffer.from(JSON.stringify({ scheme: "OAuthAccessToken" })).toString("base64"),
                        ".credentials_rsaparams": Buffer.from("{}").toString("base64"),
                    };
                    return {
                        op: "generateJitConfig",
                        reply: { status: 200, body: { runner: agentJson(agent), encodedJITConfig: Buffer.from(JSON.stringify(jit)).toString("base64") } },
                    };
                }
            }

            // distributedtask/pools/0/agents[/{id}]  (J2, J3, C1)
            if (r[0] === "distributedtask" && r[1] === "pools" && r[3] === "agents") {
                const aid = r[4] !== undefined ? Number(r[4]) : undefined;
                if (aid === undefined && method === "GET") {
                    const agentName = u.searchParams.get("agentName");
                    const list = [...agents.values()].filter((a) => a.entity.key === entity.key && (agentName === null || a.name === agentName));
                    return { op: "listAgents", reply: { status: 200, body: { count: list.length, value: list.map(agentJson) } } };
                }
                if (aid !== undefined) {
                    const a = agents.get(aid);
                    if (method === "GET") {
                        if (!a || a.entity.key !== entity.key) return { op: "getRunner", reply: notFound(`agent ${aid}`) };
                        return { op: "getRunner", reply: { status: 200, body: agentJson(a) } };
                    }
                    if (method === "DELETE") {
                        if (!a || a.entity.key !== entity.key) return { op: "removeRunner", reply: notFound(`agent ${aid}`) };
                        if (a.busy && busyRemovalStatus >= 300) {
                            return {
                                op: "removeRunner",
                                reply: { status: busyRemovalStatus, body: { message: `Agent ${a.name} is running a job`, typeName: "JobStillRunningException" } },
                            };
                        }
                        agents.delete(aid);
                        return { op: "removeRunner", reply: { status: 204 } };
                    }
                }
            }
            return { op: "unknown", reply: notFound(`${method} ${p}`) };
        }

        // ---------------- control API
        if (p.startsWith("/_mock/")) return { op: "unknown", reply: control(method, p.slice("/_mock/".length), parseJson(body)) };

        return { op: "unknown", reply: notFound(`${method} ${p}`) };
    }

    // Control API over HTTP (same operations as the in-process handle). Answers 400 with {error} on bad input.
    function control(method: string, what: string, b: unknown): Reply {
        const o = (b ?? {}) as Record<string, unknown>;
        try {
            if (method === "GET" && what === "state") {
                return {
                    status: 200,
                    body: {
                        scaleSets: [...scaleSets.values()],
                        sessions: [...sessions.values()],
                        agents: [...agents.values()],
                        queues: Object.fromEntries([...queues.entries()].map(([k, v]) => [k, v.map((m) => ({ messageId: m.messageId, entries: m.entries }))])),
                        failures,
                    },
                };
            }
            if (method === "GET" && what === "requests") return { status: 200, body: requests };
            if (method === "POST" && what === "fail") {
                handle.failNext(o.op as MockOp, Number(o.status ?? 500), o.times === undefined ? 1 : o.times === "sticky" ? Infinity : Number(o.times), o.body);
                return { status: 200, body: { ok: true } };
            }
            if (method === "POST" && what === "clear-failures") {
                handle.clearFailures(o.op as MockOp | undefined);
                return { status: 200, body: { ok: true } };
            }
            if (method === "POST" && what === "jobs") {
                const type = String(o.type ?? "");
                const opts = o as PushJobOptions;
                let r: PushResult;
                if (type === "JobAvailable") r = handle.pushJobAvailable(Number(o.scaleSetId), opts);
                else if (type === "JobAssigned") r = handle.pushJobAssigned(Number(o.scaleSetId), opts);
                else if (type === "JobStarted") r = handle.pushJobStarted(String(o.runnerName), opts);
                else if (type === "JobCompleted") r = handle.pushJobCompleted(String(o.runnerName), opts);
                else return { status: 400, body: { error: `unknown job message type ${type}` } };
                return { status: 200, body: r };
            }
            if (method === "POST" && what === "agent") {
                if (o.busy !== undefined) handle.setAgentBusy(String(o.runnerName), !!o.busy);
                if (o.status !== undefined) handle.setAgentStatus(String(o.runnerName), o.status as "online" | "offline");
                if (o.remove) handle.removeAgentOutOfBand(String(o.runnerName));
                return { status: 200, body: { ok: true } };
            }
        } catch (e) {
            return { status: 400, body: { error: (e as Error).message } };
        }
        return notFound(`control ${method} ${what}`);
    }

    /** Maps a request to its operation name without side effects (used for failure injection). */
    function classify(method: string, p: string): MockOp {
        const m = (re: RegExp) => re.test(p);
        if (p === `${REST_PREFIX}/rate_limit`) return "rateLimit";
        if (p.startsWith(`${REST_PREFIX}/`)) {
            if (m(/\/actions\/runners\/downloads\/?$/)) return "toolsDownloads";
            if (m(/\/actions\/runners\/registration-token\/?$/)) return "registrationToken";
            if (m(/\/actions\/runner-groups\/?$/)) return "runnerGroups";
            if (m(/\/actions\/runners\/?$/) && method === "GET") return "listRunnersRest";
            if (m(/\/actions\/runners\/generate-jitconfig\/?$/)) return "generateJitConfigRest";
            if (m(/\/actions\/runners\/\d+\/?$/) && method === "DELETE") return "removeRunnerRest";
            if (m(/\/hooks\/\d+\/pings\/?$/)) return "pingHook";
            if (m(/\/hooks\/\d+\/?$/)) return "deleteHook";
            if (m(/\/hooks\/?$/)) return method === "POST" ? "createHook" : "listHooks";
            return "unknown";
        }
        if (p === "/actions/runner-registration") return "runnerRegistration";
        if (p.startsWith(`${MSGQ_PREFIX}/`)) {
            const n = p.split("/").filter(Boolean).length; // _msgq, ss, session[, msg]
            if (method === "GET" && n === 3) return "getMessage";
            if (method === "DELETE" && n === 4) return "deleteMessage";
            return "unknown";
        }
        if (!p.startsWith(`${ACTIONS_PREFIX}/`)) return "unknown";
        if (m(/\/_apis\/runtime\/runnergroups\/?$/)) return "getRunnerGroupByName";
        if (m(/\/_apis\/runtime\/runnerscalesets\/?$/)) return method === "POST" ? "createScaleSet" : method === "GET" ? "listScaleSets" : "unknown";
        if (m(/\/_apis\/runtime\/runnerscalesets\/\d+\/?$/)) {
            return method === "GET" ? "getScaleSet" : method === "PATCH" ? "updateScaleSet" : method === "DELETE" ? "deleteScaleSet" : "unknown";
        }
        if (m(/\/_apis\/runtime\/runnerscalesets\/\d+\/sessions\/?$/) && method === "POST") return "createSession";
        if (m(/\/_apis\/runtime\/runnerscalesets\/\d+\/sessions\/[^/]+\/?$/)) {
            return method === "PATCH" ? "refreshSession" : method === "DELETE" ? "deleteSession" : "unknown";
        }
        if (m(/\/_apis\/runtime\/runnerscalesets\/\d+\/acquirejobs\/?$/)) return "acquireJobs";
        if (m(/\/_apis\/runtime\/runnerscalesets\/\d+\/generatejitconfig\/?$/)) return "generateJitConfig";
        if (m(/\/_apis\/distributedtask\/pools\/\d+\/agents\/?$/) && method === "GET") return "listAgents";
        if (m(/\/_apis\/distributedtask\/pools\/\d+\/agents\/\d+\/?$/)) return method === "GET" ? "getRunner" : method === "DELETE" ? "removeRunner" : "unknown";
        return "unknown";
    }

    const server = http.createServer((req, res) => {
        const started = Date.now();
        readBody(req)
            .then(async (body) => {
                const u = new URL(req.url ?? "/", "http://127.0.0.1");
                // Injected failures are decided before routing, so a failed call has no side effect (e.g. a failed
                // scale-set delete leaves the scale set in place).
                const pre = classify(req.method ?? "GET", u.pathname);
                const fail = pre !== "unknown" ? takeFailure(pre) : undefined;
                let op: MockOp = pre;
                let r: Reply;
                if (fail) r = { status: fail.status, body: fail.body ?? { message: `mock-github: injected failure for ${pre}` } };
                else {
                    const routed = await route(req, res, u, body);
                    op = routed.op;
                    r = routed.reply ?? { status: 500, body: { message: "no reply" } };
                }
                if (recordRequests && !u.pathname.startsWith("/_mock/")) {
                    requests.push({ at: started, method: req.method ?? "", path: u.pathname + u.search, op, status: r.status, body: body || undefined });
                    if (requests.length > 5000) requests.splice(0, requests.length - 5000);
                }
                if (options.verbose) process.stderr.write(`[mock-github] ${req.method} ${u.pathname}${u.search} -> ${r.status} (${op}, ${Date.now() - started} ms)\n`);
                send(res, r);
            })
            .catch((e: unknown) => send(res, { status: 500, body: { message: String(e) } }));
    });
    server.keepAliveTimeout = 5000;

    await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return handle;
}
