// The simulator process: HTTP server on 127.0.0.1, connection faults, the worker timer, seeding and restart.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { Api } from "./api";
import { handleControl } from "./control";
import type { GitHubOp } from "./github";
import { EventsSocket } from "./events-socket";
import { encodeJson } from "./json";
import { loadProviders } from "./providers";
import { createAdmin } from "./routes/auth";
import { completeJob, createRunner, queueJob, RunnerLifecycle, startJob } from "./runner-lifecycle";
import type { RequestLogEntry, Simulator, SimulatorOptions } from "./simulator";
import { Store } from "./state";
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

class SimulatorImpl implements Simulator {
  url = "";
  readonly username = ADMIN.username;
  readonly password = ADMIN.password;
  organizationId = "";
  repositoryId = "";
  private readonly store: Store;
  private readonly api: Api;
  private readonly lifecycle: RunnerLifecycle;
  private readonly server: Server;
  private port = 0;
  private outage: "none" | "refuse" | "drop" = "none";
  private dropCount = 0;
  private readonly loseRules: { method: string; pattern: RegExp }[] = [];
  private log: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly say: (line: string) => void;
  readonly eventsSocket: EventsSocket;

  constructor(private readonly opts: SimulatorOptions) {
    this.say = opts.log ?? (() => {});
    this.store = new Store(opts.behaviour ?? "v0.2.1", () => Date.now(), this.say);
    this.api = new Api(this.store);
    this.lifecycle = new RunnerLifecycle(this.store, opts.consolidationMs ?? 300_000);
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
        if (this.outage === "none") this.lifecycle.tick();
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
        resolve();
      });
    });
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = req.method ?? "GET";
    if (url.pathname === "/_sim" || url.pathname.startsWith("/_sim/")) {
      const reply = await handleControl(this, method, url.pathname, await readBody(req));
      res.writeHead(reply.status, { "Content-Type": "application/json" }).end(JSON.stringify(reply.body));
      return;
    }
    const entry: RequestLogEntry = { method, path: url.pathname, query: url.search, status: 0 };
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
    // GARM always sets application/json, also on empty DELETE answers (§2.1).
    res.writeHead(reply.status, { "Content-Type": "application/json" });
    res.end(reply.body === undefined ? undefined : encodeJson(reply.body));
  }

  addRunner(
    scaleSetId: number,
    opts: { status?: InstanceStatus; runnerStatus?: RunnerStatus; providerFault?: string; name?: string } = {},
  ): string {
    const ss = this.store.scaleSets.get(scaleSetId);
    if (ss === undefined) throw new Error(`no scale set ${scaleSetId}`);
    const inst = createRunner(this.store, ss, { status: "running", runnerStatus: "idle", ...opts });
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
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  async restart(): Promise<void> {
    this.say("restarting");
    let providers: ProviderRecord[] | undefined;
    try {
      providers = this.loadProviders();
    } catch (e) {
      // GARM refuses to start: it stays down until a restart with a good config.
      this.stopServing("refuse");
      this.say(`restart failed, GARM is down: ${(e as Error).message}`);
      throw e;
    }
    if (providers !== undefined) this.setProviders(providers);
    this.lifecycle.recoverAfterRestart();
    if (this.outage !== "none") await this.resumeServing();
    this.say(`restarted with providers ${[...this.store.providers.keys()].join(", ") || "(none)"}`);
  }

  stopServing(mode: "refuse" | "drop" = "refuse"): void {
    if (this.outage === "refuse") return;
    this.outage = mode;
    this.eventsSocket.drop();
    if (mode === "refuse") {
      this.server.close();
      this.server.closeAllConnections();
    }
  }

  async resumeServing(): Promise<void> {
    if (this.outage === "refuse") await this.listen(this.port);
    this.outage = "none";
  }

  requests(): RequestLogEntry[] {
    return clone(this.log);
  }

  clearRequests(): void {
    this.log = [];
  }

  async tick(): Promise<void> {
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

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.eventsSocket.close();
    if (this.outage === "refuse") return;
    this.outage = "refuse";
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.say("stopped");
  }
}

/** Starts a simulator on 127.0.0.1; rejects when GARM would refuse to start (bad provider config, §9.1). */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const sim = new SimulatorImpl(opts);
  await sim.start();
  return sim;
}
