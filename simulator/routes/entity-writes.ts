// Entity updates and GARM's webhook routes for organizations and repositories (garm-behaviour.md §2.4; runner/organizations.go
// L186-206, L383-446; runner/pool/pool.go L2204-2380), with the hooks GitHub holds per entity.
import { optBool, optString, parseBody } from "../body";
import { ApiError, badRequest, conflict, notFound } from "../errors";
import type { RequestContext, Router } from "../router";
import type { Store } from "../state";
import type { EntityKind, EntityRecord } from "../types";
import { entityView } from "../views";
import { STORE_WORD, lookupEntityFor } from "./entities";

export interface SimHook {
  id: number;
  url: string;
  secret: string;
  active: boolean;
}

/** GitHub's hooks per entity id, kept beside the store (GitHub, not GARM's database, holds them). */
const hooksOf = new WeakMap<Store, { next: number; byEntity: Map<string, SimHook[]> }>();

export function githubHooks(store: Store, entityId: string): SimHook[] {
  let all = hooksOf.get(store);
  if (!all) {
    all = { next: 1, byEntity: new Map() };
    hooksOf.set(store, all);
  }
  let list = all.byEntity.get(entityId);
  if (!list) {
    list = [];
    all.byEntity.set(entityId, list);
  }
  return list;
}

function nextHookId(store: Store): number {
  githubHooks(store, "");
  const all = hooksOf.get(store)!;
  return all.next++;
}

/** The controller's own webhook URL: the base URL joined with the controller id (database/sql/controller.go L49). */
function controllerHookUrl(store: Store): string {
  const base = store.controller.webhookUrl;
  return base === "" ? "" : `${base.replace(/\/+$/, "")}/${store.controller.controllerId}`;
}

const trim = (u: string) => u.replace(/\/+$/, "").toLowerCase();

/** UninstallWebhook: deletes the hook pointing at the controller URL; a base-URL hook must be removed by hand. */
export function removeControllerHook(store: Store, e: EntityRecord, prefix = ""): void {
  const url = controllerHookUrl(store);
  if (url === "") {
    if (prefix) throw badRequest(`${prefix}controller webhook url is empty`);
    return;
  }
  const hooks = githubHooks(store, e.id);
  const at = hooks.findIndex((h) => trim(h.url) === trim(url));
  if (at >= 0) {
    hooks.splice(at, 1);
    return;
  }
  const base = hooks.find((h) => trim(h.url) === trim(store.controller.webhookUrl));
  if (base && prefix) throw badRequest(`${prefix}base hook found (${base.url}) and must be deleted manually`);
}

const UPDATE_PREFIX: Record<EntityKind, string> = {
  organization: "error updating org: error saving org",
  repository: "error updating repo: error saving repo",
  enterprise: "error updating enterprise: error updating enterprise",
};

function update(kind: EntityKind, ctx: RequestContext) {
  const store = ctx.store;
  const b = parseBody(ctx.rawBody);
  const credentialsName = optString(b, "credentials_name") ?? "";
  const secret = optString(b, "webhook_secret") ?? "";
  const balancer = optString(b, "pool_balancer_type") ?? "";
  const agentMode = optBool(b, "agent_mode");
  if (!["", "roundrobin", "pack"].includes(balancer)) throw badRequest(`invalid pool balancer type: ${balancer}`);
  const prefix = UPDATE_PREFIX[kind];
  const id = ctx.params["id"]!;
  const e = lookupEntityFor(store, kind, id, prefix);
  if (credentialsName !== "") {
    // Looked up on the entity's own forge, ignoring case (database/sql/util.go L1160-1186).
    const forge = store.endpoints.get(e.endpoint)?.endpointType ?? "github";
    const creds = store.credentials.find((c) => (c.forge ?? "github") === forge && c.name.toLowerCase() === credentialsName.toLowerCase());
    if (creds === undefined) {
      throw notFound(`${prefix}: error fetching credentials: ${forge === "gitea" ? `gitea credentials ${JSON.stringify(credentialsName)} not found` : "github credentials not found: not found"}`);
    }
    if (creds.endpoint !== e.endpoint) throw badRequest(`${prefix}: endpoint mismatch`);
    e.credentialsName = creds.name;
  }
  if (secret !== "") e.webhookSecret = secret;
  if (balancer !== "") e.poolBalancerType = balancer;
  if (agentMode !== undefined) e.agentMode = agentMode;
  e.updatedAt = store.now();
  return { status: 200, body: entityView(store, e) };
}

function hookInfo(h: SimHook) {
  return { id: h.id, url: h.url, events: ["workflow_job"], active: h.active };
}

function install(kind: EntityKind, ctx: RequestContext) {
  const store = ctx.store;
  const e = lookupEntityFor(store, kind, ctx.params["id"]!, `error fetching ${STORE_WORD[kind]}`);
  const body = parseBody(ctx.rawBody);
  optString(body, "webhook_endpoint_type");
  const url = controllerHookUrl(store);
  if (url === "") throw badRequest("error installing webhook: controller webhook url is empty");
  const hooks = githubHooks(store, e.id);
  // validateHookRequest (runner/pool/util.go L128-153).
  const host = new URL(store.controller.webhookUrl).hostname.toLowerCase();
  for (const h of hooks) {
    if (h.url === url) throw conflict("error installing webhook: error validating hook request: hook already installed");
    if (h.url.toLowerCase().includes(store.controller.controllerId) || h.url.toLowerCase().includes(host)) {
      throw conflict(
        "error installing webhook: error validating hook request: a webhook containing the controller ID or hostname of this contreoller is already installed on this repository",
      );
    }
  }
  const hook: SimHook = { id: nextHookId(store), url, secret: e.webhookSecret, active: true };
  hooks.push(hook);
  return { status: 200, body: hookInfo(hook) };
}

function uninstall(kind: EntityKind, ctx: RequestContext) {
  const store = ctx.store;
  const e = lookupEntityFor(store, kind, ctx.params["id"]!, `error fetching ${STORE_WORD[kind]}`);
  removeControllerHook(store, e, "error uninstalling webhook: ");
  return { status: 200 };
}

function info(kind: EntityKind, ctx: RequestContext) {
  const store = ctx.store;
  const e = lookupEntityFor(store, kind, ctx.params["id"]!, `error fetching ${STORE_WORD[kind]}`);
  const hooks = githubHooks(store, e.id);
  const own = hooks.find((h) => trim(h.url) === trim(controllerHookUrl(store)) && controllerHookUrl(store) !== "");
  const base = hooks.find((h) => trim(h.url) === trim(store.controller.webhookUrl) && store.controller.webhookUrl !== "");
  const found = own ?? base;
  // The two runners word it differently (runner/organizations.go L443, repositories.go L492).
  const verb = kind === "repository" ? "getting" : "fetching";
  if (!found) throw new ApiError(404, "Not Found", `error ${verb} webhook info: hook not found`);
  return { status: 200, body: hookInfo(found) };
}

/** PUT for all three kinds; the webhook routes for organizations and repositories only (routers.go L384-394, L442-452). */
export function registerEntityWriteRoutes(router: Router, kind: EntityKind, plural: string, _word: string): void {
  router.add("PUT", `/${plural}/{id}`, "api", (ctx) => update(kind, ctx));
  if (kind === "enterprise") return;
  router.add("POST", `/${plural}/{id}/webhook`, "api", (ctx) => install(kind, ctx));
  router.add("DELETE", `/${plural}/{id}/webhook`, "api", (ctx) => uninstall(kind, ctx));
  router.add("GET", `/${plural}/{id}/webhook`, "api", (ctx) => info(kind, ctx));
}
