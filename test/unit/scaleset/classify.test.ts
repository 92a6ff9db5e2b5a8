import { strict as assert } from "node:assert";
import type { InstanceView, JobView } from "../../../provider/garm/client";
import { type RunnerAction, classifyRunner } from "../../../provider/scaleset/classify";

const NOW = Date.parse("2026-11-30T12:00:00Z");
const HOUR = 3600_000;
const STALE = 120 * HOUR;

function runner(status: string, runnerStatus = "idle", providerFault = ""): InstanceView {
  return { id: "u", name: "garm-r1", status, runnerStatus, providerName: "fake", scaleSetId: 1, providerFault, job: undefined, createdAt: undefined, updatedAt: undefined };
}

function job(status: string, ageHours: number | undefined, runnerName = "garm-r1"): JobView {
  const startedAt = ageHours === undefined ? undefined : new Date(NOW - ageHours * HOUR).toISOString();
  return { id: "42", name: "build", status, runnerName, repository: "acme/app", startedAt, createdAt: undefined, updatedAt: undefined };
}

// One row per classification of DESIGN.md's drain (GarmScaleSet, delete step 2); statuses per garm-api.md §6, §7.
const table: [string, InstanceView, JobView[], RunnerAction][] = [
  ["active runner, no job record", runner("running", "active"), [], "leave"],
  ["idle runner with an in-progress job", runner("running", "idle"), [job("in_progress", 1)], "leave"],
  ["runner with a queued job (JobAssigned)", runner("running", "idle"), [job("queued", 0.1)], "leave"],
  ["active runner whose job has no timestamp", runner("running", "active"), [job("in_progress", undefined)], "leave"],
  ["busy runner already pending_delete with a fault", runner("pending_delete", "active", "boom"), [], "leave"],
  ["busy runner in error", runner("error", "active"), [], "leave"],
  ["idle running runner", runner("running", "idle"), [], "delete"],
  ["running runner still installing", runner("running", "installing"), [], "delete"],
  ["runner in error", runner("error", "failed"), [], "delete"],
  ["idle runner whose only job completed", runner("running", "idle"), [job("completed", 1)], "delete"],
  ["active runner whose job is older than the staleness bound", runner("running", "active"), [job("in_progress", 121)], "delete"],
  ["idle runner with a stale queued job", runner("running", "idle"), [job("queued", 200)], "delete"],
  ["job naming another runner", runner("running", "idle"), [job("in_progress", 1, "garm-other")], "delete"],
  ["pending_delete with a provider fault (stuck)", runner("pending_delete", "terminated", "injected delete failure"), [], "force"],
  ["pending_force_delete", runner("pending_force_delete", "terminated"), [], "force"],
  ["pending_delete without a fault", runner("pending_delete", "terminated"), [], "wait"],
  ["pending_create", runner("pending_create", ""), [], "wait"],
  ["creating", runner("creating", ""), [], "wait"],
  ["deleting", runner("deleting", ""), [], "wait"],
  ["deleted", runner("deleted", ""), [], "wait"],
  ["stopped (GARM refuses to delete it)", runner("stopped", ""), [], "wait"],
  ["unknown status", runner("", ""), [], "wait"],
];

describe("drain classification", () => {
  for (const [what, r, jobs, action] of table) {
    it(`${what} → ${action}`, () => {
      assert.equal(classifyRunner(r, jobs, NOW, STALE).action, action);
    });
  }

  it("uses the job GARM links on the instance too (§7.7)", () => {
    const r = { ...runner("running", "idle"), job: job("in_progress", 2) };
    const verdict = classifyRunner(r, [], NOW, STALE);
    assert.equal(verdict.action, "leave");
    assert.equal(verdict.jobAgeMs, 2 * HOUR);
    assert.match(verdict.reason, /"build" \(id 42\)/);
  });
});
