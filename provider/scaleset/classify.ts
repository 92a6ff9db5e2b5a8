// What a drain does with one runner, decided from GARM's view alone: a pure function of the runner, GARM's jobs and the
// time, so every row of the decision table is a unit test.
import type { InstanceView, JobView } from "../garm/client";

/** leave: busy, never touched. delete: idle, plain removal. force: stuck tearing down. wait: on its way already. */
export type RunnerAction = "leave" | "delete" | "force" | "wait";

export interface RunnerVerdict {
  readonly action: RunnerAction;
  readonly reason: string;
  /** The job that keeps a busy runner, when GARM knows it. */
  readonly job?: JobView;
  readonly jobAgeMs?: number;
}

const LIVE_JOB = new Set(["queued", "in_progress"]);

/** When a job began, as far as GARM recorded it (started_at is the runner assign time for scale sets, §7.3). */
export function jobStart(job: JobView): number | undefined {
  const stamp = job.startedAt ?? job.createdAt ?? job.updatedAt;
  const ms = stamp ? Date.parse(stamp) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Classifies one runner. Busy (leave): a queued or in-progress job names it and is younger than `staleAfterMs`, or its
 * runner_status is `active` (§7.5) and no such job record shows that job is older than the bound. Otherwise by status:
 * running/error → delete (GARM's DeleteRunner accepts these, §6); pending_force_delete, or pending_delete with a
 * provider fault → force (§6.1, §6.2); anything else → wait.
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
    return { action: "leave", reason: `job ${describeJob(live.job)} is ${live.job.status}`, job: live.job, jobAgeMs: live.ageMs };
  }
  const stale = aged[0];
  if (runner.runnerStatus === "active" && !stale) {
    return { action: "leave", reason: "runner is running a job (runner_status active)" };
  }
  const staleNote = stale ? `; its job ${describeJob(stale.job)} is older than the staleness bound` : "";
  switch (runner.status) {
    case "running":
    case "error":
      return { action: "delete", reason: `idle (${runner.status}${runner.runnerStatus ? `/${runner.runnerStatus}` : ""})${staleNote}` };
    case "pending_force_delete":
      return { action: "force", reason: "GARM is force-removing it" };
    case "pending_delete":
      return runner.providerFault
        ? { action: "force", reason: `teardown failed in the provider: ${oneLine(runner.providerFault)}` }
        : { action: "wait", reason: "GARM is tearing it down" };
    default:
      return { action: "wait", reason: `GARM has it ${runner.status || "in an unknown state"}` };
  }
}

/** `"build" (id 88)`: the workflow job's name as GitHub shows it, and GARM's job id. */
export function describeJob(job: JobView): string {
  const name = job.name ? `"${job.name}"` : "";
  const id = job.id ? `(id ${job.id})` : "";
  return [name, id].filter(Boolean).join(" ") || "(unnamed)";
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}
