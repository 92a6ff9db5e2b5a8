// The simulator's database: every GARM row it models, plus the row-level rules GARM's store applies (garm-behaviour.md §3.7, §6.2, §7.7).
import { randomBytes, randomUUID } from "node:crypto";
import { FakeGitHub } from "./github";
import { canTransition } from "./transitions";
import type {
  Behaviour,
  ControllerRecord,
  CredentialsRecord,
  EndpointRecord,
  EntityRecord,
  InstanceRecord,
  InstanceStatus,
  JobRecord,
  PoolRecord,
  ProviderRecord,
  RunnerStatus,
  ScaleSetRecord,
  TagRecord,
  TemplateRecord,
  UserRecord,
} from "./types";

export const ZERO_TIME = "0001-01-01T00:00:00Z";
export const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

/** GARM's NewID is ~12-13 base62 chars; runner names are lower-cased (garm-behaviour.md §8). */
export function newRunnerSuffix(): string {
  const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
  return [...randomBytes(12)].map((b) => alphabet[b % alphabet.length]).join("");
}

export interface InstanceUpdate {
  status?: InstanceStatus;
  runnerStatus?: RunnerStatus;
  /** Every update writes the fault; leaving it out clears it (§6.2). */
  providerFault?: string;
}

/** Every table GARM keeps in its database, with its id counters: what a backup holds (not the config, not GitHub). */
export interface DatabaseImage {
  users: UserRecord[];
  controller: ControllerRecord;
  endpoints: [string, EndpointRecord][];
  credentials: CredentialsRecord[];
  entities: [string, EntityRecord][];
  tags: TagRecord[];
  templates: TemplateRecord[];
  scaleSets: [number, ScaleSetRecord][];
  instances: [string, InstanceRecord][];
  jobs: [number, JobRecord][];
  pools: [string, PoolRecord][];
  /** Each forge's credentials table has its own ids (database/sql/models.go L481-516): both can hand out 1. */
  counters: { scaleSet: number; job: number; credentials: number; giteaCredentials?: number; template?: number };
}

function refill<K, V>(map: Map<K, V>, entries: [K, V][]): void {
  map.clear();
  for (const [k, v] of entries) map.set(k, v);
}

function refillArray<T>(list: T[], items: T[]): void {
  list.splice(0, list.length, ...items);
}

export class Store {
  readonly jwtSecret = randomBytes(32).toString("hex");
  readonly github = new FakeGitHub();
  users: UserRecord[] = [];
  controller: ControllerRecord = {
    controllerId: randomUUID(),
    hostname: "garm-simulator",
    metadataUrl: "",
    callbackUrl: "",
    webhookUrl: "",
    agentUrl: "",
    minimumJobAgeBackoff: 30,
  };
  readonly endpoints = new Map<string, EndpointRecord>();
  readonly credentials: CredentialsRecord[] = [];
  readonly entities = new Map<string, EntityRecord>();
  readonly tags: TagRecord[] = [];
  readonly templates: TemplateRecord[] = [
    // System templates created on first DB init (§2.6), with the ids GARM v0.2.1 gives them (test/e2e/conformance).
    { id: 1, name: "github_windows", osType: "windows", forgeType: "github" },
    { id: 2, name: "github_linux", osType: "linux", forgeType: "github" },
    { id: 3, name: "gitea_linux", osType: "linux", forgeType: "gitea" },
    { id: 4, name: "gitea_windows", osType: "windows", forgeType: "gitea" },
  ];
  readonly scaleSets = new Map<number, ScaleSetRecord>();
  readonly instances = new Map<string, InstanceRecord>();
  readonly jobs = new Map<number, JobRecord>();
  readonly pools = new Map<string, PoolRecord>();
  providers = new Map<string, ProviderRecord>();
  /** Runner names whose provider DeleteInstance fails (§6.1). */
  readonly teardownFails = new Set<string>();
  private nextScaleSetId = 1;
  private nextJobId = 1;
  private nextCredentialsId = 1;
  private nextGiteaCredentialsId = 1;
  /** Template ids are never handed out again after a delete (AUTOINCREMENT), until a restore; 1-4 are the system ones. */
  private nextTemplateId = 5;

  constructor(
    readonly behaviour: Behaviour,
    readonly clock: () => number,
    readonly log: (line: string) => void,
  ) {
    const now = this.now();
    // The default endpoint exists from the first DB init (§2.5).
    this.endpoints.set("github.com", {
      name: "github.com",
      description: "The github.com endpoint",
      apiBaseUrl: "https://api.github.com/",
      uploadBaseUrl: "https://uploads.github.com/",
      baseUrl: "https://github.com",
      createdAt: now,
      updatedAt: now,
    });
  }

  now(): string {
    return new Date(this.clock()).toISOString();
  }

  addCredentials(name: string, endpoint: string, description = "", forge: "github" | "gitea" = "github"): CredentialsRecord {
    const now = this.now();
    const c: CredentialsRecord = {
      id: forge === "gitea" ? this.nextGiteaCredentialsId++ : this.nextCredentialsId++,
      forge,
      name,
      description,
      endpoint,
      authType: "pat",
      createdAt: now,
      updatedAt: now,
    };
    this.credentials.push(c);
    return c;
  }

  /**
   * The credentials an entity uses: of its name (GARM's spelling, matched ignoring case) under its endpoint. GitHub and
   * Gitea credentials may share a name; endpoint names are unique across both forges (database/sql/github.go L38).
   */
  credentialsOf(e: Pick<EntityRecord, "credentialsName" | "endpoint">): CredentialsRecord | undefined {
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    return this.credentials.find((c) => same(c.name, e.credentialsName) && same(c.endpoint, e.endpoint));
  }

  addEntity(e: Omit<EntityRecord, "id" | "createdAt" | "updatedAt">): EntityRecord {
    const now = this.now();
    const rec: EntityRecord = { ...e, id: randomUUID(), createdAt: now, updatedAt: now };
    this.entities.set(rec.id, rec);
    return rec;
  }

  /** Tags are global rows looked up case-insensitively (§3.7). */
  getOrCreateTag(name: string): TagRecord {
    const existing = this.tags.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (existing !== undefined) return existing;
    const tag = { id: randomUUID(), name };
    this.tags.push(tag);
    return tag;
  }

  /** A copy of the database, as a backup taken now would hold it. */
  snapshot(): DatabaseImage {
    return structuredClone({
      users: this.users,
      controller: this.controller,
      endpoints: [...this.endpoints],
      credentials: this.credentials,
      entities: [...this.entities],
      tags: this.tags,
      templates: this.templates,
      scaleSets: [...this.scaleSets],
      instances: [...this.instances],
      jobs: [...this.jobs],
      pools: [...this.pools],
      counters: {
        scaleSet: this.nextScaleSetId,
        job: this.nextJobId,
        credentials: this.nextCredentialsId,
        giteaCredentials: this.nextGiteaCredentialsId,
        template: this.nextTemplateId,
      },
    });
  }

  /** Puts a backup back: every row and id counter as it was, so ids handed out since are handed out again. */
  restore(image: DatabaseImage): void {
    const img = structuredClone(image);
    this.users = img.users;
    this.controller = img.controller;
    refill(this.endpoints, img.endpoints);
    refillArray(this.credentials, img.credentials);
    refill(this.entities, img.entities);
    refillArray(this.tags, img.tags);
    refillArray(this.templates, img.templates);
    refill(this.scaleSets, img.scaleSets);
    refill(this.instances, img.instances);
    refill(this.jobs, img.jobs);
    refill(this.pools, img.pools);
    this.nextScaleSetId = img.counters.scaleSet;
    this.nextJobId = img.counters.job;
    this.nextCredentialsId = img.counters.credentials;
    this.nextGiteaCredentialsId = img.counters.giteaCredentials ?? 1;
    // sqlite's AUTOINCREMENT counters live in the database file (sqlite_sequence), so a restore hands ids out again.
    this.nextTemplateId = img.counters.template ?? this.nextTemplateId;
  }

  newScaleSetId(): number {
    return this.nextScaleSetId++;
  }

  newTemplateId(): number {
    return this.nextTemplateId++;
  }

  newJobId(): number {
    return this.nextJobId++;
  }

  instancesOf(scaleSetId: number): InstanceRecord[] {
    return [...this.instances.values()].filter((i) => i.scaleSetId === scaleSetId);
  }

  /** By name or by UUID, as GARM's getInstance (§2.2). */
  findInstance(nameOrId: string): InstanceRecord | undefined {
    for (const i of this.instances.values()) if (i.name === nameOrId || i.id === nameOrId) return i;
    return undefined;
  }

  jobOf(instanceId: string): JobRecord | undefined {
    for (const j of this.jobs.values()) if (j.instanceId === instanceId) return j;
    return undefined;
  }

  /** The scale set or pool a runner belongs to. */
  runnerOwner(inst: InstanceRecord): ScaleSetRecord | PoolRecord | undefined {
    return inst.poolId !== undefined ? this.pools.get(inst.poolId) : this.scaleSets.get(inst.scaleSetId);
  }

  /** The runners of a pool. */
  poolInstances(poolId: string): InstanceRecord[] {
    return [...this.instances.values()].filter((i) => i.poolId === poolId);
  }

  /** The provider of a scale set or pool is loaded from config; otherwise no worker runs for it (§9.3). */
  providerLoaded(ss: Pick<ScaleSetRecord, "providerName">): boolean {
    return this.providers.has(ss.providerName);
  }

  /** GARM learns about jobs only through the listener, which runs while the scale set is enabled (§7.5). */
  listenerActive(ss: ScaleSetRecord): boolean {
    return ss.enabled && this.providerLoaded(ss);
  }

  /**
   * Applies an instance update through the status state machine (§7.1).
   * @returns the refused transition as "from → to" text, or undefined when applied.
   */
  updateInstance(inst: InstanceRecord, update: InstanceUpdate, force = false): string | undefined {
    if (update.status !== undefined && !force && !canTransition(inst.status, update.status)) {
      return `invalid instance status transition from ${inst.status} to ${update.status}`;
    }
    if (update.status !== undefined) inst.status = update.status;
    if (update.runnerStatus !== undefined) inst.runnerStatus = update.runnerStatus;
    inst.providerFault = update.providerFault ?? "";
    inst.updatedAt = this.now();
    return undefined;
  }

  /** Hard-deletes a runner row; its job rows go with it (ON DELETE CASCADE, §7.7). */
  removeInstance(inst: InstanceRecord): void {
    this.instances.delete(inst.id);
    for (const [id, j] of this.jobs) if (j.instanceId === inst.id) this.jobs.delete(id);
    this.teardownFails.delete(inst.name);
  }
}
