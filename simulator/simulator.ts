// The public shape of the GARM simulator: start options and the control handle.
import type { EventsSocket } from "./events-socket";
import type { FrontProxy } from "./front-proxy";
import type { GitHubOp } from "./github";
import type { SimHook } from "./routes/entity-writes";
import type {
  Behaviour,
  InstanceRecord,
  InstanceStatus,
  JobRecord,
  PoolRecord,
  ProviderRecord,
  CredentialsRecord,
  TemplateRecord,
  RunnerStatus,
  ScaleSetRecord,
} from "./types";

export interface SimulatorOptions {
  /** Port on 127.0.0.1. Defaults to 0 (a free port). */
  port?: number;
  /** GARM config TOML; its [[provider]] sections are loaded at start and on restart() (garm-behaviour.md §9). */
  garmConfigPath?: string;
  /** Which GARM to imitate (garm-behaviour.md Appendix A). Defaults to "v0.2.1". */
  behaviour?: Behaviour;
  /** Worker tick period in ms (GARM: 5000). Defaults to 5000; 0 disables the timer (tick() only). */
  tickMs?: number;
  /** Entity consolidation period in ms (GARM: 5 minutes, §7.5). Defaults to 300000. */
  consolidationMs?: number;
  /**
   * Defaults to true: admin user, controller URLs, credentials "acme-pat" on endpoint github.com, org "acme",
   * repo "acme/app", and provider "fake" unless garmConfigPath is given. false: a fresh GARM (first-run needed).
   */
  seed?: boolean;
  /** Refuse to start when a provider executable is missing, as GARM does (§9.1). Defaults to true. */
  checkProviderExecutables?: boolean;
  /**
   * How long a restart keeps GARM down (connections refused) before it listens again on the same port. Defaults to
   * 2500 ms: GARM v0.2.1 takes seconds to stop, migrate its database and start its workers. Tests of other things may
   * pass less.
   */
  restartDownMs?: number;
  /**
   * A reverse proxy in front of GARM on the same port: paths GARM has no route for get the proxy's own 404 (HTML for
   * "nginx", text for "plain"), not GARM's JSON catch-all (§1.1), and while GARM is down the proxy answers 502 instead
   * of refusing the connection. Defaults to none. The /_sim control API is not behind it.
   */
  frontProxy?: FrontProxy;
  /** One line per event. Defaults to no logging. */
  log?: (line: string) => void;
}

export interface RequestLogEntry {
  method: string;
  /** path without the query string */
  path: string;
  /** the query string including "?", or "" */
  query: string;
  /** 0 when the connection was dropped without an answer */
  status: number;
  /** true when the request was performed but its answer was lost */
  lost?: boolean;
  /** true when the front proxy answered without reaching GARM (unknown path, or GARM down) */
  proxy?: boolean;
}

export interface Simulator {
  /** e.g. http://127.0.0.1:PORT; the API is under /api/v1, the control API under /_sim */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** ids of the seeded org "acme" and repo "acme/app" ("" when not seeded) */
  readonly organizationId: string;
  readonly repositoryId: string;
  /** GARM's events socket (GET /api/v1/ws/events): its mode switch (accept, refuse, silent), drop(), and the events sent. */
  readonly eventsSocket: EventsSocket;
  /** How long a restart keeps GARM down (SimulatorOptions.restartDownMs). */
  readonly restartDownMs: number;

  /** Adds a runner to a scale set, registered in GitHub; defaults: status running, runner_status idle. Returns its name. */
  addRunner(
    scaleSetId: number,
    opts?: { status?: InstanceStatus; runnerStatus?: RunnerStatus; providerFault?: string; name?: string },
  ): string;
  /** JobAssigned: a queued job naming the runner (only while the listener runs, §7.5). */
  queueJob(runnerName: string): void;
  /** JobStarted: job in_progress with started_at = now - ageMs, runner_status active (§7.5). */
  startJob(runnerName: string, opts?: { ageMs?: number }): void;
  /** JobCompleted: job completed, runner pending_delete + terminated; while disabled only the consolidation notices (§7.5). */
  completeJob(runnerName: string): void;
  /** Makes the provider's DeleteInstance fail for this runner (§6.1, §6.2). */
  setTeardownFails(runnerName: string, fails: boolean): void;
  /** Makes the provider's CreateInstance fail for the scale set's new runners (§6.2). */
  setCreateFails(scaleSetId: number, fails: boolean): void;
  /** The next `count` (default 1) GitHub calls of `op` answer `status`. */
  failNextGitHub(op: GitHubOp, status: 400 | 401 | 403 | 404 | 409 | 500, count?: number): void;
  /** Deletes the scale set on the GitHub side only (the §5 no-op trap until restart, §4.5). */
  deleteGitHubScaleSet(scaleSetId: number): void;
  /** Destroys the socket of the next n API requests without performing them. */
  dropNextConnections(n: number): void;
  /** Performs the next matching API request, then destroys the socket instead of answering. */
  loseNextResponse(method: string, pathPattern: RegExp): void;
  /** Invalidates every JWT issued so far (as a password change does, §1.3). */
  invalidateTokens(): void;
  /** Adds a pool using `providerName` under an entity (default: the seeded org). Returns the pool id. */
  addPool(providerName: string, entityId?: string): string;
  /** Adds a runner to a pool, registered in GitHub; defaults: status running, runner_status idle. Returns its name. */
  addPoolRunner(poolId: string, opts?: { status?: InstanceStatus; runnerStatus?: RunnerStatus; providerFault?: string; name?: string }): string;
  /** A workflow_job "queued" webhook for the entity (default: the seeded org); the pool manager makes a runner for it. Returns the job id. */
  queuePoolJob(labels: string[], entityId?: string): number;
  /** A workflow_job "in_progress" webhook naming the pool runner (the queued job's, or a new one). Returns the job id. */
  startPoolJob(runnerName: string, jobId?: number): number;
  /** A workflow_job "completed" webhook: the job ends and GARM removes the ephemeral runner. */
  completePoolJob(runnerName: string): void;
  pools(): PoolRecord[];
  /**
   * A GARM restart: closes the listener and every connection, stays down restartDownMs, then reloads [[provider]]
   * (§9.2), runs the worker start recovery (§4.5, §6.3) and listens again on the same port. JWTs stay valid. Resolves
   * once GARM serves again; rejects, and stays down, when GARM would refuse to start (§9.1). Restarts run one at a time.
   */
  restart(): Promise<void>;
  /** Begins a restart, as `POST /_sim/restart` does, and resolves once GARM is down; a refused start is only logged. */
  restartInBackground(): Promise<void>;
  /** A backup of GARM's database (rows and id counters; not the config file, not GitHub). Returns its number. */
  snapshotDatabase(): number;
  /** Restores a backup taken by snapshotDatabase(): ids handed out since are handed out again. */
  restoreDatabase(snapshot: number): void;
  /** GARM down: "refuse" closes the listener (connection refused), "drop" destroys API connections. Ticks pause. */
  stopServing(mode?: "refuse" | "drop"): void;
  resumeServing(): Promise<void>;
  /** The id GARM made on its first start and keeps for good (garm-behaviour.md §1.8). */
  controllerId(): string;
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /** One worker pass now: autoscale, provider create/teardown, row cleanup, consolidation when due. */
  tick(): Promise<void>;
  /** Runs the entity consolidation now (§7.5). */
  consolidate(): Promise<void>;
  scaleSets(): ScaleSetRecord[];
  instances(): InstanceRecord[];
  jobs(): JobRecord[];
  providers(): ProviderRecord[];
  /** GitHub and Gitea credentials, with a digest of each one's secret. */
  credentials(): CredentialsRecord[];
  /** Runner install templates, GARM's system ones (ids 1-4) included. */
  templates(): TemplateRecord[];
  /** The hooks GitHub holds for an organization or repository, each with the secret GitHub signs its deliveries with. */
  webhooksOf(entityId: string): SimHook[];
  stop(): Promise<void>;
}
