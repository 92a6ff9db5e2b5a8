// Runner listing and the runner DELETE with its GitHub removal and status change (garm-behaviour.md §2.2, §6).
import { parseBool } from "../body";
import { badRequest, notFound } from "../errors";
import { GitHubError } from "../github";
import type { Reply, RequestContext, Router } from "../router";
import type { Store } from "../state";
import { deletionLane } from "../transitions";
import type { InstanceRecord, InstanceStatus } from "../types";
import { instanceView } from "../views";
import { githubFailure } from "./github-errors";

const DELETABLE: readonly InstanceStatus[] = ["running", "error", "pending_force_delete", "pending_delete"];

function lookup(store: Store, nameOrId: string): InstanceRecord {
  const inst = store.findInstance(nameOrId);
  if (inst === undefined) {
    throw notFound("error fetching instance: error fetching instance: error fetching instance by name: not found");
  }
  return inst;
}

function view(store: Store, i: InstanceRecord) {
  return instanceView(store, i, { providerName: store.scaleSets.get(i.scaleSetId)?.providerName ?? "", withJob: true });
}

function deleteRunner(ctx: RequestContext): Reply {
  const store = ctx.store;
  const inst = lookup(store, ctx.params["name"]!);
  if (!DELETABLE.includes(inst.status)) {
    throw badRequest('runner must be in one of the following states: "running, error, pending_force_delete, pending_delete"');
  }
  const force = parseBool(ctx.query.get("forceRemove"));
  const bypass = parseBool(ctx.query.get("bypassGHUnauthorized"));
  if (inst.agentId !== 0) {
    try {
      store.github.removeAgent(inst.agentId, true);
    } catch (e) {
      // 404 means already gone; the bypass flag skips every other GitHub error, not only 401 (§6 step 3).
      if (!(e instanceof GitHubError) || e.status !== 404) {
        if (!bypass) throw githubFailure(e, "error removing runner from github");
        store.log(`runner ${inst.name}: GitHub removal failed, bypassed (${(e as Error).message})`);
      }
    }
  }
  const target: InstanceStatus = force ? "pending_force_delete" : "pending_delete";
  const from = inst.status;
  const refused = store.updateInstance(inst, { status: target });
  if (refused !== undefined) {
    // HEAD swallows a refusal on the deletion lane; v0.2.1 reports it (§6 step 4, Appendix A).
    if (store.behaviour === "head" && deletionLane.includes(from)) return { status: 200 };
    throw badRequest(refused);
  }
  store.log(`runner ${inst.name}: ${from} -> ${target}`);
  return { status: 200 };
}

export function registerInstanceRoutes(router: Router): void {
  router.add("GET", "/instances", "api", (ctx) => ({
    status: 200,
    body: [...ctx.store.instances.values()].map((i) => view(ctx.store, i)),
  }));
  router.add("GET", "/instances/{name}", "api", (ctx) => ({
    status: 200,
    body: view(ctx.store, lookup(ctx.store, ctx.params["name"]!)),
  }));
  router.add("DELETE", "/instances/{name}", "api", deleteRunner);
}
