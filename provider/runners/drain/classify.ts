// What a drain does with one runner, decided from GARM's view alone: a pure function of the runner, GARM's jobs and the
// time, so every row of the decision table is a unit test.
import type { InstanceView, JobView } from "../../garm/client";

/** leave: busy, never touched. delete: idle, plain removal. force: stuck tearing down. wait: on its way already (force-removing included). */
export type RunnerAction = "leave" | "delete" | "force" | "wait";

/**
 * What a runner is doing, one value per branch of classifyRunner: busy (leave); idle or failed (delete); stuck (force);
 * force-removing, creating, removing, stopped or unknown (wait).
 */
export type RunnerState = "busy" | "idle" | "failed" | "stuck" | "force-removing" | "creating" | "removing" | "stopped" | "unknown";

/** The words a progress line or error uses for each state, e.g. `2 being created [...]`. */
export const RUNNER_STATE_WORDS: Readonly<Record<RunnerState, string>> = {
  busy: "busy",
  idle: "idle",
  failed: "failed",
  stuck: "stuck",
  "force-removing": "being force-removed",
  creating: "being created",
  removing: "being removed",
  stopped: "stopped",
  unknown: "in an unknown state",
};

export interface RunnerVerdict {
  readonly action: RunnerAction;
  readonly state: RunnerState;
  /** Why, in words a user can act on, e.g. `job "build" (id 88) is in_progress`. */
  readonly reason: string;
  /** The job that keeps a busy runner, when GARM knows it. */
  readonly job?: JobView;
  readonly jobAgeMs?: number;
}

const LIVE_JOB = new Set(["queued", "in_progress"]);

/** Go's zero time.Time, which GARM serializes for a time it never set ("0001-01-01T00:00:00Z"). */
const isGoZeroTime = (stamp: string) => stamp.startsWith("0001-01-01");

/**
 * When a job began, as far as GARM recorded it (started_at is the runner assign time for scale sets, §7.3). A time GARM
 * never set reads as year 1 and would make a running job look ancient, so it counts as no time at all.
 */
export function jobStart(job: JobView): number | undefined {
  for (const stamp of [job.startedAt, job.createdAt, job.updatedAt]) {
    const ms = stamp && !isGoZeroTime(stamp) ? Date.parse(stamp) : NaN;
    if (!Number.isNaN(ms)) return ms;
  }
  return undefined;
}

/**
 * Classifies one runner. Busy (leave): a queued or in-progress job names it and is younger than `staleAfterMs`, or its
 * runner_status is `active` (§7.5) and no such job record shows that job is older than the bound. Otherwise by status:
 * running/error → delete (GARM's DeleteRunner accepts these, §6); pending_delete with a provider fault → force (§6.1,
 * §6.2); anything else → wait, pending_force_delete included: GARM is already removing it whatever its provider says.
 */
export function classifyRunner(runner: InstanceView, jobs: readonly JobView[], now: number, staleAfterMs: number): RunnerVerdict {
  const own = [...jobs.filter((j) => j.runnerName === runner.name), ...(runner.job ? [runner.job] : [])].filter((j) =>
    LIVE_JOB.has(j.status),
  );
  const aged = own.map((job) => {
    const start = jobStart(job);
    return { job, ageMs: start === undefined ? undefined : Math.max(0, now - start) };
  });
  // A job with no timestamp could still be running: it counts as live.
  const live = aged.find((a) => a.ageMs === undefined || a.ageMs < staleAfterMs);
  if (live) {
    const { job, ageMs } = live;
    return { action: "leave", state: "busy", reason: `job ${describeJob(job)} is ${job.status}`, job, jobAgeMs: ageMs };
  }
  const stale = aged[0];
  if (runner.runnerStatus === "active" && !stale) {
    return { action: "leave", state: "busy", reason: "running a job: GARM shows runner_status active and has no job record for it" };
  }
  const staleNote = stale ? `; its job ${describeJob(stale.job)} is older than the staleness bound` : "";
  const statuses = `${runner.status}${runner.runnerStatus ? `/${runner.runnerStatus}` : ""}`;
  switch (runner.status) {
    case "running":
      return { action: "delete", state: "idle", reason: `not running a job, status ${statuses}${staleNote}` };
    case "error":
      return { action: "delete", state: "failed", reason: `status ${statuses}${staleNote}` };
    case "pending_force_delete":
      // Forced already: waited for, never forced again (each DELETE is another GARM write and event) nor downgraded.
      return { action: "wait", state: "force-removing", reason: "GARM is force-removing it, status pending_force_delete" };
    case "pending_delete":
      return runner.providerFault
        ? { action: "force", state: "stuck", reason: `its provider failed to delete it: ${oneLine(runner.providerFault)}` }
        : { action: "wait", state: "removing", reason: "GARM is tearing it down, status pending_delete" };
    case "deleting":
    case "deleted":
      return { action: "wait", state: "removing", reason: `GARM is tearing it down, status ${runner.status}` };
    case "pending_create":
    case "creating":
      return { action: "wait", state: "creating", reason: `GARM is creating it, status ${runner.status}; it is removed once it is up` };
    case "stopped":
      // GARM's DeleteRunner refuses a stopped runner (§6, step 2).
      return { action: "wait", state: "stopped", reason: "its provider reports it stopped, and GARM removes a runner only while it is running or failed" };
    default:
      return { action: "wait", state: "unknown", reason: `GARM reports status ${runner.status || "(none)"}` };
  }
}

/** `"build" (id 88)`: the workflow job's name as GitHub shows it, and GARM's numeric job id (`id` in `GET /jobs`, §3.3). */
export function describeJob(job: JobView): string {
  const name = job.name ? `"${job.name}"` : "";
  const id = job.id !== undefined ? `(id ${job.id})` : "";
  return [name, id].filter(Boolean).join(" ") || "(unnamed)";
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}
