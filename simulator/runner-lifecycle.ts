// The worker passes GARM runs on its ticks: autoscale, provider create/teardown, row cleanup, consolidation, restart recovery
// (garm-behaviour.md §6.1, §6.3, §7.5, §7.6, §4.5).
import { randomUUID } from "node:crypto";
import { GitHubError } from "./github";
import { newRunnerSuffix, type Store } from "./state";
import { deletionLane } from "./transitions";
import type { InstanceRecord, InstanceStatus, JobRecord, RunnerStatus, ScaleSetRecord } from "./types";

export interface AddRunnerOptions {
  status?: InstanceStatus;
  runnerStatus?: RunnerStatus;
  providerFault?: string;
  name?: string;
}

/** What a new runner takes from its scale set or pool. */
export interface RunnerSource {
  readonly runnerPrefix: string;
  readonly osType: string;
  readonly osArch: string;
  readonly runnerGroup: string;
  /** A scale set's id; a pool runner has 0 and its pool's id in poolId. */
  readonly scaleSetId: number;
  readonly poolId?: string;
}

/** A scale set as the source of its runners. */
export const scaleSetSource = (ss: ScaleSetRecord): RunnerSource => ({ ...ss, scaleSetId: ss.id });

/** Creates a runner row the way handleScaleUp does: agent registered in GitHub first, then the DB row (§10.2 J1). */
export function createRunner(store: Store, ss: RunnerSource, opts: AddRunnerOptions = {}): InstanceRecord {
  const name = (opts.name ?? `${ss.runnerPrefix}-${newRunnerSuffix()}`).toLowerCase();
  if (store.findInstance(name) !== undefined) throw new Error(`runner ${name} already exists`);
  const status = opts.status ?? "pending_create";
  const now = store.now();
  const provisioned = !["pending_create", "creating"].includes(status);
  const inst: InstanceRecord = {
    id: randomUUID(),
    name,
    providerId: provisioned ? `fake-${name}` : "",
    agentId: store.github.registerAgent(name),
    scaleSetId: ss.scaleSetId,
    ...(ss.poolId === undefined ? {} : { poolId: ss.poolId }),
    osType: ss.osType,
    osArch: ss.osArch,
    osName: provisioned ? "fake" : "",
    osVersion: provisioned ? "0" : "",
    status,
    runnerStatus: opts.runnerStatus ?? (status === "pending_create" ? "pending" : "idle"),
    providerFault: opts.providerFault ?? "",
    runnerGroup: ss.runnerGroup,
    createdAt: now,
    updatedAt: now,
  };
  store.instances.set(inst.id, inst);
  return inst;
}

const BUSY: readonly (RunnerStatus | "")[] = ["active", "terminated"];

export class RunnerLifecycle {
  private lastConsolidation: number;
  /** Scale sets whose provider CreateInstance fails. */
  readonly createFails = new Set<number>();
  /** Instances torn down from pending_force_delete: provider errors are ignored (§6.1). */
  private readonly forced = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly consolidationMs: number,
  ) {
    this.lastConsolidation = store.clock();
  }

  /** One worker pass: scale-set workers, then the provider worker, then consolidation when due. */
  tick(): void {
    for (const ss of this.store.scaleSets.values()) {
      if (!this.store.providerLoaded(ss)) continue; // no worker for it (§9.3)
      this.purgeDeleted(ss);
      this.autoscale(ss);
    }
    this.providerPass();
    if (this.store.clock() - this.lastConsolidation >= this.consolidationMs) this.consolidate();
  }

  /** The entity worker's consolidation: runners GitHub no longer lists become pending_delete (§7.5). */
  consolidate(): void {
    this.lastConsolidation = this.store.clock();
    for (const inst of [...this.store.instances.values()]) {
      const owner = this.store.runnerOwner(inst);
      if (owner === undefined || !this.store.providerLoaded(owner)) continue;
      if (deletionLane.includes(inst.status) || this.store.github.agents.has(inst.agentId)) continue;
      if (this.store.updateInstance(inst, { status: "pending_delete" }) === undefined) {
        this.store.log(`consolidation: runner ${inst.name} is gone from GitHub -> pending_delete`);
      }
    }
  }

  /** Worker start after a GARM restart (§4.5, §6.3). */
  recoverAfterRestart(): void {
    const store = this.store;
    this.lastConsolidation = store.clock();
    for (const ss of store.scaleSets.values()) {
      if (!store.providerLoaded(ss)) {
        store.log(`provider ${ss.providerName} not found for scale set ${ss.name}`);
        continue;
      }
      if (!store.github.scaleSets.has(ss.githubScaleSetId)) {
        try {
          ss.githubScaleSetId = store.github.register(ss.entityId, ss.runnerGroup, ss.name);
          store.log(`scale set ${ss.id} re-created in GitHub with id ${ss.githubScaleSetId}`);
        } catch (e) {
          store.log(`scale set ${ss.id}: re-create in GitHub failed: ${(e as Error).message}`);
        }
      }
      for (const inst of store.instancesOf(ss.id)) {
        if (inst.status === "creating" || inst.status === "deleting") store.updateInstance(inst, { status: "pending_delete" }, true);
        else if (inst.status === "deleted") store.removeInstance(inst);
      }
    }
  }

  /** `deleted` rows are purged by the scale-set worker only (§6.1, §6.3). */
  private purgeDeleted(ss: ScaleSetRecord): void {
    for (const inst of this.store.instancesOf(ss.id)) if (inst.status === "deleted") this.store.removeInstance(inst);
  }

  /** §7.6: target = min(min_idle + desired, max); scale-up only when enabled, scale-down of idle runners always. */
  private autoscale(ss: ScaleSetRecord): void {
    const store = this.store;
    if (store.listenerActive(ss)) {
      // totalAssignedJobs of the last message; frozen while there is no listener.
      ss.desiredRunnerCount = [...store.jobs.values()].filter(
        (j) => j.status !== "completed" && store.instances.get(j.instanceId)?.scaleSetId === ss.id,
      ).length;
    }
    const target = Math.min(ss.minIdleRunners + ss.desiredRunnerCount, ss.maxRunners);
    const live = store.instancesOf(ss.id).filter((i) => !deletionLane.includes(i.status));
    if (ss.enabled && live.length < target) {
      for (let n = live.length; n < target; n++) {
        const inst = createRunner(store, scaleSetSource(ss));
        store.log(`scale set ${ss.id}: scale up, runner ${inst.name} pending_create`);
      }
    }
    let excess = live.length - target;
    for (const inst of live) {
      if (excess <= 0) break;
      if (inst.status !== "running" || BUSY.includes(inst.runnerStatus)) continue;
      try {
        store.github.removeAgent(inst.agentId, false);
      } catch (e) {
        if (!(e instanceof GitHubError) || e.status !== 404) {
          store.log(`scale set ${ss.id}: scale down skipped ${inst.name}: ${(e as Error).message}`);
          continue;
        }
      }
      store.updateInstance(inst, { status: "pending_delete" });
      store.log(`scale set ${ss.id}: scale down, runner ${inst.name} pending_delete`);
      excess--;
    }
  }

  /** The provider worker: create, error cleanup and teardown, one step per tick (§6.1, §6.2). */
  private providerPass(): void {
    const store = this.store;
    for (const inst of [...store.instances.values()]) {
      const ss = store.runnerOwner(inst);
      if (ss === undefined || !store.providerLoaded(ss)) continue; // "provider not configured, skipping runner" (§9.3)
      switch (inst.status) {
        case "pending_create":
          store.updateInstance(inst, { status: "creating" });
          break;
        case "creating":
          if (this.createFails.has(inst.scaleSetId)) {
            store.updateInstance(inst, { status: "error", providerFault: "injected create failure" });
          } else {
            inst.providerId = `fake-${inst.name}`;
            inst.osName = "fake";
            inst.osVersion = "0";
            // The runner then reports installing → idle through its callbacks; the simulator skips ahead.
            store.updateInstance(inst, { status: "running", runnerStatus: "idle" });
          }
          break;
        case "error":
          // A create failure's fault is cleared by the next update (§6.2).
          store.updateInstance(inst, { status: "pending_delete" });
          break;
        case "pending_delete":
        case "pending_force_delete":
          if (inst.status === "pending_force_delete") this.forced.add(inst.id);
          else this.forced.delete(inst.id);
          store.updateInstance(inst, { status: "deleting" }, true); // force-set, clears the fault
          break;
        case "deleting": {
          const forced = this.forced.has(inst.id);
          if (store.teardownFails.has(inst.name) && !forced) {
            // GARM v0.2.1's wrapping of the provider error (§11.1), as observed by test/e2e/conformance; the fake
            // provider ends its stderr with a newline, which GARM keeps.
            const exe = `/opt/garm/providers.d/${ss.providerName}`;
            const fault =
              `deleting instance in provider: provider binary ${exe} returned error: ` +
              `provider binary failed with stdout: ; stderr: injected delete failure\n: exit status 1`;
            store.updateInstance(inst, { status: "pending_delete", providerFault: fault });
            store.log(`runner ${inst.name}: provider delete failed -> pending_delete`);
          } else {
            store.updateInstance(inst, { status: "deleted" });
            store.removeInstance(inst); // the scale-set worker reacts to the update event at once
            this.forced.delete(inst.id);
            store.log(`runner ${inst.name}: deleted`);
          }
          break;
        }
        default:
          break;
      }
    }
  }
}

/** JobStarted through the listener: job in_progress, runner active (§7.5). */
export function startJob(store: Store, runnerName: string, ageMs = 0): void {
  const { inst, ss } = runnerAndScaleSet(store, runnerName);
  const agent = store.github.agents.get(inst.agentId);
  if (agent === undefined) throw new Error(`runner ${runnerName} is not registered in GitHub`);
  agent.busy = true;
  if (!store.listenerActive(ss)) {
    store.log(`job started on ${runnerName} with no listener: GARM does not learn of it (§7.5)`);
    return;
  }
  const job = store.jobOf(inst.id) ?? newJob(store, inst, ss);
  job.status = "in_progress";
  job.startedAt = new Date(store.clock() - ageMs).toISOString();
  job.updatedAt = store.now();
  store.updateInstance(inst, { runnerStatus: "active" });
  store.log(`job ${job.id} in_progress on ${runnerName}`);
}

/** JobAssigned: a queued job naming the runner (§7.3). */
export function queueJob(store: Store, runnerName: string): void {
  const { inst, ss } = runnerAndScaleSet(store, runnerName);
  if (!store.listenerActive(ss)) return;
  if (store.jobOf(inst.id) === undefined) newJob(store, inst, ss);
}

/**
 * The job ends and the ephemeral runner leaves GitHub. With a listener GARM sets pending_delete + terminated at once;
 * without one only the consolidation notices (§7.5).
 */
export function completeJob(store: Store, runnerName: string): void {
  const { inst, ss } = runnerAndScaleSet(store, runnerName);
  store.github.agents.delete(inst.agentId);
  if (!store.listenerActive(ss)) {
    store.log(`job completed on ${runnerName} with no listener: left to the consolidation (§7.5)`);
    return;
  }
  const job = store.jobOf(inst.id) ?? newJob(store, inst, ss);
  job.status = "completed";
  job.conclusion = "succeeded";
  job.completedAt = store.now();
  job.updatedAt = job.completedAt;
  store.updateInstance(inst, { status: "pending_delete", runnerStatus: "terminated" });
  store.log(`job ${job.id} completed on ${runnerName}; runner pending_delete`);
}

function runnerAndScaleSet(store: Store, runnerName: string): { inst: InstanceRecord; ss: ScaleSetRecord } {
  const inst = store.findInstance(runnerName);
  if (inst === undefined) throw new Error(`no runner ${runnerName}`);
  const ss = store.scaleSets.get(inst.scaleSetId);
  if (ss === undefined) throw new Error(`runner ${runnerName} has no scale set`);
  return { inst, ss };
}

function newJob(store: Store, inst: InstanceRecord, ss: ScaleSetRecord): JobRecord {
  const entity = store.entities.get(ss.entityId);
  const now = store.now();
  const id = store.newJobId();
  const job: JobRecord = {
    id,
    scalesetJobId: `job-${id}`,
    runId: 9000 + id,
    action: "push", // the GitHub event name for scale-set jobs (§7.3)
    conclusion: "",
    status: "queued",
    name: `build-${id}`,
    instanceId: inst.id,
    repositoryName: entity?.kind === "repository" ? entity.name : "app",
    repositoryOwner: entity?.kind === "repository" ? entity.owner : (entity?.name ?? ""),
    labels: ss.tagIds.map((t) => store.tags.find((x) => x.id === t)?.name ?? ""),
    entityId: ss.entityId,
    startedAt: now,
    completedAt: "0001-01-01T00:00:00Z",
    createdAt: now,
    updatedAt: now,
  };
  store.jobs.set(id, job);
  return job;
}
