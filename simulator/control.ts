// The /_sim control API: the Simulator handle over HTTP, for `make demo` and out-of-process tests (no auth).
import type { GitHubOp } from "./github";
import type { Simulator } from "./simulator";
import type { InstanceStatus, RunnerStatus } from "./types";

type Json = Record<string, unknown>;

export interface ControlReply {
  status: number;
  body: unknown;
  /** Runs once the answer is sent, on a connection the answer closes (a restart takes the listener down). */
  afterAnswer?: () => void;
}

/** A route result whose action runs after the answer. */
class AfterAnswer {
  constructor(readonly action: () => void) {}
}

const str = (b: Json, k: string): string => {
  const v = b[k];
  if (typeof v !== "string" || v === "") throw new Error(`${k} must be a non-empty string`);
  return v;
};
const num = (b: Json, k: string): number => {
  const v = b[k];
  if (typeof v !== "number") throw new Error(`${k} must be a number`);
  return v;
};
const optNum = (b: Json, k: string): number | undefined => (b[k] === undefined ? undefined : num(b, k));

async function route(sim: Simulator, method: string, path: string, b: Json): Promise<unknown> {
  const key = `${method} ${path}`;
  switch (key) {
    case "GET /_sim/state":
      return { scaleSets: sim.scaleSets(), instances: sim.instances(), jobs: sim.jobs(), providers: sim.providers() };
    case "GET /_sim/requests":
      return sim.requests();
    case "DELETE /_sim/requests":
      sim.clearRequests();
      return {};
    case "POST /_sim/runners": {
      const opts: Parameters<Simulator["addRunner"]>[1] = {};
      if (b["status"] !== undefined) opts.status = str(b, "status") as InstanceStatus;
      if (b["runnerStatus"] !== undefined) opts.runnerStatus = str(b, "runnerStatus") as RunnerStatus;
      if (b["providerFault"] !== undefined) opts.providerFault = str(b, "providerFault");
      if (b["name"] !== undefined) opts.name = str(b, "name");
      return { name: sim.addRunner(num(b, "scaleSetId"), opts) };
    }
    case "POST /_sim/jobs/queue":
      sim.queueJob(str(b, "runner"));
      return {};
    case "POST /_sim/jobs/start": {
      const ageMs = optNum(b, "ageMs");
      sim.startJob(str(b, "runner"), ageMs === undefined ? {} : { ageMs });
      return {};
    }
    case "POST /_sim/jobs/complete":
      sim.completeJob(str(b, "runner"));
      return {};
    case "POST /_sim/teardown-fails":
      sim.setTeardownFails(str(b, "runner"), b["fails"] !== false);
      return {};
    case "POST /_sim/create-fails":
      sim.setCreateFails(num(b, "scaleSetId"), b["fails"] !== false);
      return {};
    case "POST /_sim/fail-github":
      sim.failNextGitHub(str(b, "op") as GitHubOp, num(b, "status") as 500, optNum(b, "count"));
      return {};
    case "POST /_sim/github/delete-scaleset":
      sim.deleteGitHubScaleSet(num(b, "scaleSetId"));
      return {};
    case "POST /_sim/drop-connections":
      sim.dropNextConnections(num(b, "n"));
      return {};
    case "POST /_sim/lose-response":
      sim.loseNextResponse(str(b, "method"), new RegExp(str(b, "pathPattern")));
      return {};
    case "POST /_sim/invalidate-tokens":
      sim.invalidateTokens();
      return {};
    case "POST /_sim/pools": {
      const entityId = b["entityId"] === undefined ? undefined : str(b, "entityId");
      return { id: sim.addPool(str(b, "providerName"), entityId) };
    }
    case "POST /_sim/restart":
      // As `systemctl restart` returns once the service manager acts: the answer first, then GARM goes down.
      return new AfterAnswer(() => void sim.restartInBackground());
    case "POST /_sim/db/snapshot":
      return { snapshot: sim.snapshotDatabase() };
    case "POST /_sim/db/restore":
      sim.restoreDatabase(num(b, "snapshot"));
      return {};
    case "POST /_sim/tick":
      await sim.tick();
      return {};
    case "POST /_sim/consolidate":
      await sim.consolidate();
      return {};
    case "POST /_sim/stop-serving":
      // Over HTTP only the "drop" outage is possible, or the control API would be unreachable too.
      sim.stopServing("drop");
      return {};
    case "POST /_sim/resume-serving":
      await sim.resumeServing();
      return {};
    default:
      return undefined;
  }
}

export async function handleControl(sim: Simulator, method: string, path: string, rawBody: string): Promise<ControlReply> {
  let body: Json = {};
  try {
    if (rawBody.trim() !== "") body = JSON.parse(rawBody) as Json;
  } catch {
    return { status: 400, body: { error: "body is not JSON" } };
  }
  try {
    const out = await route(sim, method, path.replace(/\/$/, ""), body);
    if (out === undefined) return { status: 404, body: { error: `no control route ${method} ${path}` } };
    if (out instanceof AfterAnswer) return { status: 200, body: {}, afterAnswer: out.action };
    return { status: 200, body: out };
  } catch (e) {
    return { status: 400, body: { error: (e as Error).message } };
  }
}
