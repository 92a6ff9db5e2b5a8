// First run, login and the controller info routes (garm-behaviour.md §1.2, §1.3, §1.6).
import { randomUUID } from "node:crypto";
import { signToken } from "../auth";
import { optString, optUint, parseBody } from "../body";
import { badRequest, conflict, notAuthorized } from "../errors";
import type { Reply, RequestContext, Router } from "../router";
import type { Store } from "../state";
import type { UserRecord } from "../types";

function userView(u: UserRecord): Record<string, unknown> {
  return {
    id: u.id,
    created_at: u.createdAt,
    updated_at: u.updatedAt,
    email: u.email,
    username: u.username,
    full_name: u.fullName,
    enabled: true,
    is_admin: true,
  };
}

/** Stands in for zxcvbn score 4 (§1.2): at least 12 characters from at least three character classes. */
function strongEnough(pw: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(pw)).length;
  return pw.length >= 12 && classes >= 3;
}

/** Creates the admin user with GARM's first-run checks (§1.2); used by the route and by seeding. */
export function createAdmin(store: Store, p: { username: string; email: string; fullName: string; password: string }): UserRecord {
  if (store.users.length > 0) throw conflict("already initialized");
  if (p.username === "" || p.email === "") throw badRequest("missing username or email");
  if (!/^[^@\s]+@[^@\s]+$/.test(p.email)) throw badRequest("invalid email address");
  if (!/^[A-Za-z0-9]{1,64}$/.test(p.username)) throw badRequest("invalid username");
  if (!strongEnough(p.password)) throw badRequest("password is too weak");
  const now = store.now();
  const user: UserRecord = { id: randomUUID(), ...p, generation: 0, createdAt: now, updatedAt: now };
  store.users.push(user);
  return user;
}

function controllerView(store: Store): Record<string, unknown> {
  const c = store.controller;
  let agentUrl = c.agentUrl;
  if (agentUrl === "" && c.callbackUrl !== "") {
    // AgentURL is inferred from the callback URL when never set (§1.6).
    const u = new URL(c.callbackUrl);
    agentUrl = `${u.protocol}//${u.host}`;
  }
  return {
    controller_id: c.controllerId,
    hostname: c.hostname,
    metadata_url: c.metadataUrl,
    callback_url: c.callbackUrl,
    webhook_url: c.webhookUrl,
    controller_webhook_url: c.webhookUrl === "" ? "" : `${c.webhookUrl.replace(/\/$/, "")}/${c.controllerId}`,
    agent_url: agentUrl,
    garm_agent_releases_url: "",
    enable_agent_tools_sync: false,
    garm_agent_version: "",
    allow_insecure_garm_agent: false,
    minimum_job_age_backoff: c.minimumJobAgeBackoff,
    version: store.behaviour === "head" ? "v0.2.1-96-gafda4e76" : "v0.2.1",
  };
}

/** metadata_url + callback_url are enough; agent_url is inferred (§1.6). */
export function urlsConfigured(store: Store): boolean {
  return store.controller.metadataUrl !== "" && store.controller.callbackUrl !== "";
}

function checkUrl(key: string, v: string): string {
  try {
    const u = new URL(v);
    if (u.host === "" || u.protocol === "") throw new Error();
  } catch {
    throw badRequest(`invalid ${key}`);
  }
  return v;
}

function updateController(ctx: RequestContext): Reply {
  const b = parseBody(ctx.rawBody);
  const c = ctx.store.controller;
  const fields: [string, keyof typeof c][] = [
    ["metadata_url", "metadataUrl"],
    ["callback_url", "callbackUrl"],
    ["webhook_url", "webhookUrl"],
    ["agent_url", "agentUrl"],
  ];
  const next = { ...c };
  for (const [key, field] of fields) {
    const v = optString(b, key);
    if (v !== undefined) (next as Record<string, unknown>)[field] = checkUrl(key, v);
  }
  const backoff = optUint(b, "minimum_job_age_backoff");
  if (backoff !== undefined) next.minimumJobAgeBackoff = backoff;
  ctx.store.controller = next;
  return { status: 200, body: controllerView(ctx.store) };
}

export function registerAuthRoutes(router: Router): void {
  router.add("POST", "/first-run", "open", (ctx) => {
    const b = parseBody(ctx.rawBody);
    const user = createAdmin(ctx.store, {
      username: optString(b, "username") ?? "",
      email: optString(b, "email") ?? "",
      fullName: optString(b, "full_name") ?? "",
      password: optString(b, "password") ?? "",
    });
    return { status: 200, body: userView(user) };
  });

  router.add("POST", "/auth/login", "init", (ctx) => {
    const b = parseBody(ctx.rawBody);
    const username = optString(b, "username") ?? "";
    const password = optString(b, "password") ?? "";
    const user = ctx.store.users.find((u) => u.username === username);
    // Empty, unknown and wrong credentials all read the same (§1.3).
    if (username === "" || password === "" || user === undefined || user.password !== password) {
      throw notAuthorized();
    }
    return { status: 200, body: { token: signToken(ctx.store.jwtSecret, user, ctx.store.clock()) } };
  });

  router.add("GET", "/controller", "controller", (ctx) => ({ status: 200, body: controllerView(ctx.store) }));
  router.add("PUT", "/controller", "controller", updateController);
  // The legacy alias sits behind the URLs check (§1.6).
  router.add("GET", "/controller-info", "api", (ctx) => ({ status: 200, body: controllerView(ctx.store) }));
}

