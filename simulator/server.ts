// The simulator process: HTTP server on 127.0.0.1, connection faults, the front proxy, the worker timer, seeding,
// restart and database backups.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { Api } from "./api";
import { handleControl } from "./control";
import type { GitHubOp } from "./github";
import { EventsSocket } from "./events-socket";
import { proxyBadGateway, proxyNotFound, type ProxyReply } from "./front-proxy";
import { encodeJson } from "./json";
import { loadProviders } from "./providers";
import { createAdmin } from "./routes/auth";
import { githubHooks } from "./routes/entity-writes";
import { completePoolJob, PoolManager, poolSource, queuePoolJob, startPoolJob } from "./pool-manager";
import { completeJob, createRunner, queueJob, RunnerLifecycle, scaleSetSource, startJob } from "./runner-lifecycle";
import type { RequestLogEntry, Simulator, SimulatorOptions } from "./simulator";
import { Store, type DatabaseImage } from "./state";
import type { InstanceStatus, ProviderRecord, RunnerStatus } from "./types";

const ADMIN = { username: "admin", email: "admin@example.com", fullName: "GARM Admin", password: "Sim-Admin-Passw0rd!" };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const clone = <T>(v: T): T => structuredClone(v);

/** Default of SimulatorOptions.restartDownMs. */
const DEFAULT_RESTART_DOWN_MS = 2500;

function sendProxyReply(res: ServerResponse, reply: ProxyReply): void {
  res.writeHead(reply.status, reply.headers).end(reply.body);
}

class SimulatorImpl implements Simulator {
  url = "";
  readonly username = ADMIN.username;
  readonly password = ADMIN.password;
  organizationId = "";
  repositoryId = "";
  readonly restartDownMs: number;
  private readonly store: Store;
  private readonly api: Api;
  private readonly lifecycle: RunnerLifecycle;
  private readonly poolManager: PoolManager;
  private readonly server: Server;
  private port = 0;
  /** Whether the port is bound (GARM's own listener, or the front proxy's, which stays up while GARM is down). */
  private listening = false;
  private stopped = false;
  private outage: "none" | "refuse" | "drop" = "none";
  /** The restart in progress, if any: restarts run one at a time. */
  private restartChain: Promise<void> = Promise.resolve();
  /** Ends a restart's down time early (stop()). */
  private wakeRestart: (() => void) | undefined;
  private readonly backups: DatabaseImage[] = [];
  private dropCount = 0;
  private readonly loseRules: { method: string; pattern: RegExp }[] = [];
  private log: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly say: (line: string) => void;
  readonly eventsSocket: EventsSocket;

  constructor(private readonly opts: SimulatorOptions) {
    this.say = opts.log ?? (() => {});
    this.restartDownMs = opts.restartDownMs ?? DEFAULT_RESTART_DOWN_MS;
    this.store = new Store(opts.behaviour ?? "v0.2.1", () => Date.now(), this.say);
    this.api = new Api(this.store);
    this.lifecycle = new RunnerLifecycle(this.store, opts.consolidationMs ?? 300_000);
    this.poolManager = new PoolManager(this.store);
    this.server = createServer((req, res) => {
      this.onRequest(req, res).catch((e: unknown) => {
        this.say(`request failed: ${(e as Error).message}`);
        req.socket.destroy();
      });
    });
    this.eventsSocket = new EventsSocket(this.store, this.say);
    this.server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.outage !== "none" || !this.eventsSocket.handleUpgrade(req, socket, head)) socket.destroy();
    });
  }

  async start(): Promise<void> {
    const providers = this.loadProviders();
    await this.listen(this.opts.port ?? 0);
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
    if (this.opts.seed ?? true) this.seed(providers);
    else this.setProviders(providers ?? []);
    const tickMs = this.opts.tickMs ?? 5000;
    if (tickMs > 0) {
      this.timer = setInterval(() => {
        if (this.outage === "none") {
          this.poolManager.tick();
          this.lifecycle.tick();
        }
      }, tickMs);
      this.timer.unref(); // never keeps the process alive
    }
    this.say(`GARM simulator (${this.store.behaviour}) listening on ${this.url}`);
  }

  /** Providers from the config file, or undefined when there is none. */
  private loadProviders(): ProviderRecord[] | undefined {
    if (this.opts.garmConfigPath === undefined) return undefined;
    return loadProviders(this.opts.garmConfigPath, this.opts.checkProviderExecutables ?? true);
  }

  private setProviders(list: ProviderRecord[]): void {
    this.store.providers = new Map(list.map((p) => [p.name, p]));
  }

  private seed(providers: ProviderRecord[] | undefined): void {
    const s = this.store;
    createAdmin(s, ADMIN);
    s.controller.metadataUrl = `${this.url}/api/v1/metadata`;
    s.controller.callbackUrl = `${this.url}/api/v1/callbacks`;
    s.controller.webhookUrl = `${this.url}/webhooks`;
    s.controller.agentUrl = `${this.url}/agent`;
    s.addCredentials("acme-pat", "github.com", "PAT for acme");
    const common = { credentialsName: "acme-pat", endpoint: "github.com", webhookSecret: "sim-secret", poolBalancerType: "roundrobin" };
    this.organizationId = s.addEntity({ kind: "organization", name: "acme", owner: "", ...common }).id;
    this.repositoryId = s.addEntity({ kind: "repository", name: "app", owner: "acme", ...common }).id;
    this.setProviders(providers ?? [{ name: "fake", description: "fake provider for tests" }]);
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.server.once("error", onError);
      this.server.listen(port, "127.0.0.1", () => {
        this.server.off("error", onError);
        this.listening = true;
        resolve();
      });
    });
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = req.method ?? "GET";
    const proxy = this.opts.frontProxy;
    if (!this.listening && proxy === undefined) {
      // A request on a connection kept alive from before a restart: the process that accepted it is gone.
      req.socket.destroy();
      return;
    }
    if (url.pathname === "/_sim" || url.pathname.startsWith("/_sim/")) {
      const reply = await handleControl(this, method, url.pathname, await readBody(req));
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (reply.afterAnswer !== undefined) headers["Connection"] = "close";
      res.writeHead(reply.status, headers).end(JSON.stringify(reply.body), reply.afterAnswer);
      return;
    }
    const entry: RequestLogEntry = { method, path: url.pathname, query: url.search, status: 0 };
    if (proxy !== undefined && (this.outage === "refuse" || !this.api.hasRoute(url))) {
      const reply = this.outage === "refuse" ? proxyBadGateway(proxy) : proxyNotFound(proxy);
      this.log.push({ ...entry, status: reply.status, proxy: true });
      sendProxyReply(res, reply);
      return;
    }
    if (this.outage !== "none" || this.dropCount > 0) {
      if (this.outage === "none") this.dropCount--;
      this.log.push(entry);
      this.say(`dropped ${method} ${url.pathname}`);
      req.socket.destroy();
      return;
    }
    const rawBody = await readBody(req);
    const reply = await this.api.dispatch(req, url, rawBody);
    entry.status = reply.status;
    this.log.push(entry);
    const lose = this.loseRules.findIndex((r) => r.method === method && r.pattern.test(url.pathname));
    if (lose >= 0) {
      this.loseRules.splice(lose, 1);
      entry.lost = true;
      this.say(`lost the answer to ${method} ${url.pathname} (${reply.status})`);
      req.socket.destroy();
      return;
    }
    // GARM always sets application/json, also on empty DELETE answers (§2.1). An answer finished while GARM is
    // going down closes its connection: the next request must open a new one, and find the port closed.
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (!this.listening) headers["Connection"] = "close";
    res.writeHead(reply.status, headers);
    res.end(reply.body === undefined ? undefined : encodeJson(reply.body));
  }

  addRunner(
    scaleSetId: number,
    opts: { status?: InstanceStatus; runnerStatus?: RunnerStatus; providerFault?: string; name?: string } = {},
  ): string {
    const ss = this.store.scaleSets.get(scaleSetId);
    if (ss === undefined) throw new Error(`no scale set ${scaleSetId}`);
    const inst = createRunner(this.store, scaleSetSource(ss), { status: "running", runnerStatus: "idle", ...opts });
    this.say(`added runner ${inst.name} (${inst.status}/${inst.runnerStatus}) to scale set ${scaleSetId}`);
    return inst.name;
  }

  queueJob(runnerName: string): void {
    queueJob(this.store, runnerName);
  }

  startJob(runnerName: string, opts: { ageMs?: number } = {}): void {
    startJob(this.store, runnerName, opts.ageMs ?? 0);
  }

  completeJob(runnerName: string): void {
    completeJob(this.store, runnerName);
  }

  setTeardownFails(runnerName: string, fails: boolean): void {
    if (fails) this.store.teardownFails.add(runnerName);
    else this.store.teardownFails.delete(runnerName);
  }

  setCreateFails(scaleSetId: number, fails: boolean): void {
    if (fails) this.lifecycle.createFails.add(scaleSetId);
    else this.lifecycle.createFails.delete(scaleSetId);
  }

  failNextGitHub(op: GitHubOp, status: 400 | 401 | 403 | 404 | 409 | 500, count = 1): void {
    this.store.github.failNext(op, status, count);
  }

  deleteGitHubScaleSet(scaleSetId: number): void {
    const ss = this.store.scaleSets.get(scaleSetId);
    if (ss === undefined) throw new Error(`no scale set ${scaleSetId}`);
    this.store.github.forgetScaleSet(ss.githubScaleSetId);
  }

  dropNextConnections(n: number): void {
    this.dropCount += n;
  }

  loseNextResponse(method: string, pathPattern: RegExp): void {
    this.loseRules.push({ method: method.toUpperCase(), pattern: pathPattern });
  }

  invalidateTokens(): void {
    for (const u of this.store.users) u.generation++;
  }

  addPool(providerName: string, entityId?: string): string {
    const now = this.store.now();
    const id = randomUUID();
    this.store.pools.set(id, {
      id,
      providerName,
      entityId: entityId ?? this.organizationId,
      image: "ubuntu:24.04",
      flavor: "default",
      osType: "linux",
      osArch: "amd64",
      maxRunners: 5,
      minIdleRunners: 0,
      enabled: true,
      runnerPrefix: "garm",
      tagIds: [this.store.getOrCreateTag("linux").id],
      runnerBootstrapTimeout: 20,
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  addPoolRunner(poolId: string, opts: { status?: InstanceStatus; runnerStatus?: RunnerStatus; providerFault?: string; name?: string } = {}): string {
    const pool = this.store.pools.get(poolId);
    if (pool === undefined) throw new Error(`no pool ${poolId}`);
    const inst = createRunner(this.store, poolSource(pool), { status: "running", runnerStatus: "idle", ...opts });
    this.say(`added runner ${inst.name} (${inst.status}/${inst.runnerStatus}) to pool ${poolId}`);
    return inst.name;
  }

  queuePoolJob(labels: string[], entityId?: string): number {
    return queuePoolJob(this.store, entityId ?? this.organizationId, labels);
  }

  startPoolJob(runnerName: string, jobId?: number): number {
    return startPoolJob(this.store, runnerName, jobId);
  }

  completePoolJob(runnerName: string): void {
    completePoolJob(this.store, runnerName);
  }

  pools() {
    return clone([...this.store.pools.values()]);
  }

  restart(): Promise<void> {
    const run = () => this.runRestart();
    const done = this.restartChain.then(run, run);
    this.restartChain = done.catch(() => undefined);
    return done;
  }

  async restartInBackground(): Promise<void> {
    let wentDown!: () => void;
    const down = new Promise<void>((resolve) => (wentDown = resolve));
    const run = () => this.runRestart(wentDown);
    const done = this.restartChain.then(run, run);
    this.restartChain = done.catch((e: unknown) => this.say(`restart failed: ${(e as Error).message}`));
    // A restart that fails before going down (cannot happen today) must not leave the caller waiting.
    await Promise.race([down, this.restartChain]);
  }

  private async runRestart(wentDown: () => void = () => {}): Promise<void> {
    if (this.stopped) return wentDown();
    this.say("restarting");
    await this.goDown();
    wentDown();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.restartDownMs);
      this.wakeRestart = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeRestart = undefined;
    if (this.stopped) return;
    // The old process is gone with every connection it had.
    if (this.opts.frontProxy === undefined) this.server.closeAllConnections();
    let providers: ProviderRecord[] | undefined;
    try {
      providers = this.loadProviders();
    } catch (e) {
      // GARM refuses to start: it stays down until a restart with a good config.
      this.say(`restart failed, GARM is down: ${(e as Error).message}`);
      throw e;
    }
    if (providers !== undefined) this.setProviders(providers);
    this.lifecycle.recoverAfterRestart();
    await this.resumeServing();
    this.say(`restarted with providers ${[...this.store.providers.keys()].join(", ") || "(none)"}`);
  }

  /** GARM stops: no ticks, no answers; the listener closes unless a front proxy holds the port. */
  private async goDown(): Promise<void> {
    this.outage = "refuse";
    this.eventsSocket.drop(); // GARM's sockets die with it
    if (this.opts.frontProxy !== undefined || !this.listening) return;
    this.listening = false;
    await new Promise<void>((resolve) => {
      // Waiting for 'close' would wait for every open connection; the port is free once the handle is closed.
      this.server.close();
      this.server.closeIdleConnections();
      setImmediate(resolve);
    });
  }

  stopServing(mode: "refuse" | "drop" = "refuse"): void {
    if (this.outage === "refuse") return;
    this.eventsSocket.drop();
    if (mode === "refuse") {
      void this.goDown();
      if (this.opts.frontProxy === undefined) this.server.closeAllConnections();
      return;
    }
    this.outage = mode;
  }

  async resumeServing(): Promise<void> {
    if (this.stopped) return;
    if (!this.listening) await this.listen(this.port);
    this.outage = "none";
  }

  snapshotDatabase(): number {
    this.backups.push(this.store.snapshot());
    return this.backups.length;
  }

  restoreDatabase(snapshot: number): void {
    const image = this.backups[snapshot - 1];
    if (image === undefined) throw new Error(`no database snapshot ${snapshot}; snapshots are numbered 1 to ${this.backups.length}`);
    this.store.restore(image);
    this.say(`database restored from snapshot ${snapshot}`);
  }

  controllerId(): string {
    return this.store.controller.controllerId;
  }

  requests(): RequestLogEntry[] {
    return clone(this.log);
  }

  clearRequests(): void {
    this.log = [];
  }

  async tick(): Promise<void> {
    this.poolManager.tick();
    this.lifecycle.tick();
  }

  async consolidate(): Promise<void> {
    this.lifecycle.consolidate();
  }

  scaleSets() {
    return clone([...this.store.scaleSets.values()]);
  }

  instances() {
    return clone([...this.store.instances.values()]);
  }

  jobs() {
    return clone([...this.store.jobs.values()]);
  }

  providers() {
    return clone([...this.store.providers.values()]);
  }

  credentials() {
    return clone(this.store.credentials);
  }

  templates() {
    return clone(this.store.templates);
  }

  webhooksOf(entityId: string) {
    return clone(githubHooks(this.store, entityId.toLowerCase()));
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.eventsSocket.close();
    if (this.stopped) return;
    this.stopped = true;
    this.outage = "refuse";
    this.wakeRestart?.();
    if (this.listening) {
      this.listening = false;
      await new Promise<void>((resolve) => {
        this.server.close(() => resolve());
        this.server.closeAllConnections();
      });
    } else {
      this.server.closeAllConnections();
    }
    this.say("stopped");
  }
}

/** Starts a simulator on 127.0.0.1; rejects when GARM would refuse to start (bad provider config, §9.1). */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const sim = new SimulatorImpl(opts);
  await sim.start();
  return sim;
}
