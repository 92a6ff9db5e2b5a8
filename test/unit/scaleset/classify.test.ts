import { strict as assert } from "node:assert";
import type { InstanceView, JobView } from "../../../provider/garm/client";
import { RUNNER_STATE_WORDS, type RunnerAction, type RunnerState, classifyRunner } from "../../../provider/runners/drain/classify";

const NOW = Date.parse("2026-11-30T12:00:00Z");
const HOUR = 3600_000;
const STALE = 120 * HOUR;

function runner(status: string, runnerStatus = "idle", providerFault = ""): InstanceView {
  return { id: "u", name: "garm-r1", status, runnerStatus, providerName: "fake", scaleSetId: 1, providerFault, job: undefined, createdAt: undefined, updatedAt: undefined };
}

function job(status: string, ageHours: number | undefined, runnerName = "garm-r1"): JobView {
  const startedAt = ageHours === undefined ? undefined : new Date(NOW - ageHours * HOUR).toISOString();
  return { id: 42, name: "build", status, runnerName, repository: "acme/app", startedAt, createdAt: undefined, updatedAt: undefined };
}

// One row per classification of the drain (docs/concepts/drains.md); statuses per garm-behaviour.md §6, §7. The
// state is what the progress line calls the runner (RUNNER_STATE_WORDS).
const table: [string, InstanceView, JobView[], RunnerAction, RunnerState][] = [
  ["active runner, no job record", runner("running", "active"), [], "leave", "busy"],
  ["idle runner with an in-progress job", runner("running", "idle"), [job("in_progress", 1)], "leave", "busy"],
  ["runner with a queued job (JobAssigned)", runner("running", "idle"), [job("queued", 0.1)], "leave", "busy"],
  ["active runner whose job has no timestamp", runner("running", "active"), [job("in_progress", undefined)], "leave", "busy"],
  ["busy runner already pending_delete with a fault", runner("pending_delete", "active", "boom"), [], "leave", "busy"],
  ["busy runner in error", runner("error", "active"), [], "leave", "busy"],
  ["idle running runner", runner("running", "idle"), [], "delete", "idle"],
  ["running runner still installing", runner("running", "installing"), [], "delete", "idle"],
  ["runner in error", runner("error", "failed"), [], "delete", "failed"],
  ["idle runner whose only job completed", runner("running", "idle"), [job("completed", 1)], "delete", "idle"],
  ["active runner whose job is older than the staleness bound", runner("running", "active"), [job("in_progress", 121)], "delete", "idle"],
  ["idle runner with a stale queued job", runner("running", "idle"), [job("queued", 200)], "delete", "idle"],
  ["job naming another runner", runner("running", "idle"), [job("in_progress", 1, "garm-other")], "delete", "idle"],
  ["pending_delete with a provider fault (stuck)", runner("pending_delete", "terminated", "injected delete failure"), [], "force", "stuck"],
  ["pending_force_delete: forced already, waited for (issue 23 item 16)", runner("pending_force_delete", "terminated"), [], "wait", "force-removing"],
  ["pending_delete without a fault", runner("pending_delete", "terminated"), [], "wait", "removing"],
  ["pending_create", runner("pending_create", ""), [], "wait", "creating"],
  ["creating", runner("creating", ""), [], "wait", "creating"],
  ["deleting", runner("deleting", ""), [], "wait", "removing"],
  ["deleted", runner("deleted", ""), [], "wait", "removing"],
  ["stopped (GARM refuses to delete it)", runner("stopped", ""), [], "wait", "stopped"],
  ["unknown status", runner("unknown", ""), [], "wait", "unknown"],
  ["no status", runner("", ""), [], "wait", "unknown"],
];

describe("drain classification", () => {
  for (const [what, r, jobs, action, state] of table) {
    it(`${what} → ${action}, ${RUNNER_STATE_WORDS[state]}`, () => {
      const verdict = classifyRunner(r, jobs, NOW, STALE);
      assert.deepEqual([verdict.action, verdict.state], [action, state]);
    });
  }

  it("gives every state its own words", () => {
    const words = Object.values(RUNNER_STATE_WORDS);
    assert.equal(new Set(words).size, words.length);
    assert.deepEqual(new Set(table.map((row) => row[4])), new Set(Object.keys(RUNNER_STATE_WORDS)), "every state has a row");
  });

  it("an in-progress job whose started_at is Go's zero time is live, not stale: GARM stores that when a webhook carries no start (§7.3)", () => {
    const zero = { ...job("in_progress", undefined), startedAt: "0001-01-01T00:00:00Z" };
    const verdict = classifyRunner(runner("running", "active"), [zero], NOW, STALE);
    assert.equal(verdict.action, "leave", verdict.reason);
    assert.equal(verdict.state, "busy");
    // With a real creation time beside it, that time dates the job.
    const created = { ...zero, createdAt: new Date(NOW - 2 * HOUR).toISOString() };
    assert.equal(classifyRunner(runner("running", "idle"), [created], NOW, STALE).jobAgeMs, 2 * HOUR);
  });

  it("uses the job GARM links on the instance too (§7.7)", () => {
    const r = { ...runner("running", "idle"), job: job("in_progress", 2) };
    const verdict = classifyRunner(r, [], NOW, STALE);
    assert.equal(verdict.action, "leave");
    assert.equal(verdict.jobAgeMs, 2 * HOUR);
    assert.match(verdict.reason, /"build" \(id 42\)/);
  });
});
