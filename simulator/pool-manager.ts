// GARM's pool manager for classic pools, on the simulator's ticks (runner/pool/pool.go, v0.2.1): it keeps min idle
// runners, makes a runner for each queued job a pool's tags match, and scales surplus idle runners down, all only while
// the pool is enabled. Jobs reach it as workflow_job webhooks (queued, in_progress, completed), which tests inject.
import type { Store } from "./state";
import { createRunner, type RunnerSource } from "./runner-lifecycle";
import { deletionLane } from "./transitions";
import type { InstanceRecord, JobRecord, PoolRecord } from "./types";

const BUSY = new Set(["active", "terminated"]);

export const poolSource = (p: PoolRecord): RunnerSource => ({
  runnerPrefix: p.runnerPrefix || "garm",
  osType: p.osType,
  osArch: p.osArch,
  runnerGroup: p.runnerGroup ?? "",
  scaleSetId: 0,
  poolId: p.id,
});

function tagsOf(store: Store, p: PoolRecord): string[] {
  return (p.tagIds ?? []).map((id) => store.tags.find((t) => t.id === id)?.name.toLowerCase() ?? "");
}

/** The enabled pools under the job's entity whose tags hold every job label, highest priority first (FindPoolsMatchingAllTags). */
function matchingPools(store: Store, job: JobRecord): PoolRecord[] {
  const wanted = job.labels.map((l) => l.toLowerCase());
  return [...store.pools.values()]
    .filter((p) => p.enabled && p.entityId === job.entityId && store.providerLoaded(p) && wanted.every((l) => tagsOf(store, p).includes(l)))
    .sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
}

export class PoolManager {
  constructor(private readonly store: Store) {}

  tick(): void {
    for (const pool of this.store.pools.values()) {
      if (!this.store.providerLoaded(pool)) continue;
      for (const inst of this.store.poolInstances(pool.id)) if (inst.status === "deleted") this.store.removeInstance(inst);
      this.ensureMinIdle(pool);
    }
    this.consumeQueuedJobs();
    for (const pool of this.store.pools.values()) this.scaleDown(pool);
  }

  /** ensureIdleRunnersForOnePool (pool.go L1346-1400): enabled pools only, never above max_runners. */
  private ensureMinIdle(pool: PoolRecord): void {
    if (!pool.enabled || pool.minIdleRunners === 0) return;
    const existing = this.store.poolInstances(pool.id);
    if (existing.length >= pool.maxRunners) return;
    const idleOrPending = existing.filter((i) => !BUSY.has(i.runnerStatus)).length;
    const required = Math.min(pool.minIdleRunners - idleOrPending, pool.maxRunners - existing.length);
    for (let n = 0; n < required; n++) this.addRunner(pool, "min idle");
  }

  /** Queued jobs without a runner get one from the first matching pool below its maximum (pool.go consumeQueuedJobs). */
  private consumeQueuedJobs(): void {
    for (const job of this.store.jobs.values()) {
      if (job.status !== "queued" || job.instanceId !== "" || job.lockedForRunner) continue;
      const pool = matchingPools(this.store, job).find((p) => this.store.poolInstances(p.id).length < p.maxRunners);
      if (pool === undefined) continue;
      job.lockedForRunner = true;
      this.addRunner(pool, `job ${job.id} queued`);
    }
  }

  /** scaleDownOnePool (pool.go L1225-1300): a disabled pool is skipped; half the idle surplus goes per pass. */
  private scaleDown(pool: PoolRecord): void {
    if (!pool.enabled) return;
    const idle = this.store.poolInstances(pool.id).filter((i) => i.status === "running" && i.runnerStatus === "idle");
    const queued = [...this.store.jobs.values()].filter((j) => j.status === "queued").length;
    const surplus = idle.length - (pool.minIdleRunners + queued);
    if (surplus <= 0) return;
    for (const inst of idle.slice(0, Math.ceil(surplus * 0.5))) {
      this.store.github.agents.delete(inst.agentId);
      this.store.updateInstance(inst, { status: "pending_delete" });
      this.store.log(`pool ${pool.id}: scale down, runner ${inst.name} pending_delete`);
    }
  }

  private addRunner(pool: PoolRecord, why: string): InstanceRecord {
    const inst = createRunner(this.store, poolSource(pool));
    this.store.log(`pool ${pool.id}: ${why}, runner ${inst.name} pending_create`);
    return inst;
  }
}

/** A workflow_job "queued" webhook for the entity: GARM records the job (pool.go L406-470). Returns its id. */
export function queuePoolJob(store: Store, entityId: string, labels: string[]): number {
  const now = store.now();
  const id = store.newJobId();
  const entity = store.entities.get(entityId);
  store.jobs.set(id, {
    id,
    scalesetJobId: "",
    runId: 9000 + id,
    action: "workflow_job",
    conclusion: "",
    status: "queued",
    name: `build-${id}`,
    instanceId: "",
    repositoryName: entity?.kind === "repository" ? entity.name : "app",
    repositoryOwner: entity?.kind === "repository" ? entity.owner : (entity?.name ?? ""),
    labels,
    entityId,
    startedAt: "0001-01-01T00:00:00Z",
    completedAt: "0001-01-01T00:00:00Z",
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

/** "in_progress" naming the runner: the job points at it and the runner is active (handleInProgressJob). */
export function startPoolJob(store: Store, runnerName: string, jobId?: number): number {
  const inst = poolRunner(store, runnerName);
  const pool = store.pools.get(inst.poolId!)!;
  const id = jobId ?? queuePoolJob(store, pool.entityId, tagsOf(store, pool));
  const job = store.jobs.get(id)!;
  job.status = "in_progress";
  job.instanceId = inst.id;
  job.startedAt = store.now();
  job.updatedAt = job.startedAt;
  store.updateInstance(inst, { runnerStatus: "active" });
  store.log(`job ${id} in_progress on pool runner ${runnerName}`);
  return id;
}

/** "completed": the ephemeral runner leaves GitHub and GARM removes it (handleCompletedJob: pending_delete, terminated). */
export function completePoolJob(store: Store, runnerName: string): void {
  const inst = poolRunner(store, runnerName);
  const job = store.jobOf(inst.id);
  if (job !== undefined) {
    job.status = "completed";
    job.conclusion = "success";
    job.completedAt = store.now();
    job.updatedAt = job.completedAt;
  }
  store.github.agents.delete(inst.agentId);
  if (!deletionLane.includes(inst.status)) store.updateInstance(inst, { status: "pending_delete", runnerStatus: "terminated" });
  store.log(`job completed on pool runner ${runnerName}; runner pending_delete`);
}

function poolRunner(store: Store, runnerName: string): InstanceRecord {
  const inst = store.findInstance(runnerName);
  if (inst?.poolId === undefined) throw new Error(`no pool runner ${runnerName}`);
  return inst;
}
