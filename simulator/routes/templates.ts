// Runner install templates: list, get, create, update and delete with GARM v0.2.1's validation and error texts
// (apiserver/controllers/templates.go, runner/templates.go, database/sql/templates.go; garm-behaviour.md §2.6).
import { type Body, optString, parseBody } from "../body";
import { badRequest, conflict, invalidRequest, notFound, serverError } from "../errors";
import type { RequestContext, Router } from "../router";
import type { Store } from "../state";
import type { TemplateRecord } from "../types";

const SYSTEM = "system";

/** params.Template; lists omit the data column (database/sql/templates.go L34), which then marshals as null. */
function templateView(t: TemplateRecord, withData: boolean) {
  return {
    id: t.id,
    created_at: t.createdAt ?? "2025-01-01T00:00:00Z",
    updated_at: "2025-01-01T00:00:00Z",
    name: t.name,
    description: t.description ?? "",
    os_type: t.osType,
    forge_type: t.forgeType,
    data: withData ? (t.data ?? null) : null,
    owner_id: t.owner ?? SYSTEM,
  };
}

/** getValueFromVarsAsUint (apiserver/controllers/templates.go L277-290). */
function templateId(ctx: RequestContext): number {
  const raw = ctx.params["id"]!;
  if (!/^[0-9]+$/.test(raw)) throw badRequest(`invalid value for "templateID": ${JSON.stringify(raw)}`);
  return Number(raw);
}

function find(store: Store, id: number, prefix: string): TemplateRecord {
  const t = store.templates.find((x) => x.id === id);
  // getTemplate answers ErrNotFound, wrapped once by the store and once by the runner (templates.go L44-53, L99-110).
  if (t === undefined) throw notFound(`${prefix}: not found`);
  return t;
}

/** A Go `[]byte` field: base64 text, or 400 from the decoder. */
function optData(b: Body, key: string): string | undefined {
  const v = optString(b, key);
  if (v === undefined) return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) throw invalidRequest();
  return v;
}

function userOf(store: Store): string {
  return store.users[0]?.username ?? "admin";
}

/** The caller's templates share a unique (name, user) index; system ones have user NULL (database/sql/models.go L96-97). */
function nameTaken(store: Store, name: string, owner: string, except?: number): boolean {
  return store.templates.some((t) => t.id !== except && t.name === name && (t.owner ?? SYSTEM) === owner);
}

export function registerTemplateRoutes(router: Router): void {
  // Exact-match filters on osType and forgeType, a case-insensitive part of the name (database/sql/templates.go L43-53).
  router.add("GET", "/templates", "api", (ctx) => {
    const os = ctx.query.get("osType");
    const forge = ctx.query.get("forgeType");
    const part = ctx.query.get("partialName")?.toLowerCase();
    return {
      status: 200,
      body: ctx.store.templates
        .filter((t) => (!os || t.osType === os) && (!forge || t.forgeType === forge) && (!part || t.name.toLowerCase().includes(part)))
        .map((t) => templateView(t, false)),
    };
  });

  router.add("GET", "/templates/{id}", "api", (ctx) => ({
    status: 200,
    body: templateView(find(ctx.store, templateId(ctx), "failed to get template: failed to get template"), true),
  }));

  router.add("POST", "/templates", "api", (ctx) => {
    const b = parseBody(ctx.rawBody);
    const name = optString(b, "name") ?? "";
    const data = optData(b, "data") ?? "";
    const osType = optString(b, "os_type") ?? "";
    const forgeType = optString(b, "forge_type") ?? "";
    // CreateTemplateParams.Validate, in its order (params/requests.go L886-907), quoted by the runner (templates.go L33-35).
    const invalid = (why: string) => badRequest(`invalid create params ${JSON.stringify(why)}`);
    if (name === "") throw invalid("name cannot be empty");
    if (data === "") throw invalid("template data is empty");
    if (osType !== "linux" && osType !== "windows") throw invalid(`invalid OS type: ${JSON.stringify(osType)}`);
    if (forgeType !== "github" && forgeType !== "gitea") throw invalid(`invalid forge type: ${JSON.stringify(forgeType)}`);
    const owner = userOf(ctx.store);
    if (nameTaken(ctx.store, name, owner)) {
      throw conflict("failed to create template: a template name already exists with the specified name");
    }
    const t: TemplateRecord = { id: ctx.store.newTemplateId(), name, osType, forgeType, description: optString(b, "description") ?? "", data, owner, createdAt: ctx.store.now() };
    ctx.store.templates.push(t);
    return { status: 200, body: templateView(t, true) };
  });

  router.add("PUT", "/templates/{id}", "api", (ctx) => {
    const id = templateId(ctx);
    const b = parseBody(ctx.rawBody);
    const name = optString(b, "name");
    const description = optString(b, "description");
    const data = optData(b, "data");
    if (name === "") throw badRequest('invalid update params: "name cannot be empty"');
    const t = find(ctx.store, id, "failed to update template: failed to update template: failed to get template");
    // The unique index refuses the save; GARM does not map that error, so it is a 500 (database/sql/templates.go L230-232).
    if (name !== undefined && nameTaken(ctx.store, name, t.owner ?? SYSTEM, t.id)) throw serverError();
    if (description !== undefined) t.description = description;
    if (name !== undefined) t.name = name;
    // An empty data leaves the body as it is (database/sql/templates.go L217-224).
    if (data !== undefined && data !== "") t.data = data;
    return { status: 200, body: templateView(t, true) };
  });

  router.add("DELETE", "/templates/{id}", "api", (ctx) => {
    const store = ctx.store;
    const id = templateId(ctx);
    const t = store.templates.find((x) => x.id === id);
    // A missing template is success (runner/templates.go L187-191).
    if (t === undefined) return { status: 200 };
    const used =
      [...store.scaleSets.values()].some((s) => s.templateId === id) || [...store.pools.values()].some((p) => p.templateId === id);
    if (used) {
      throw badRequest("failed to delete template: failed to delete template: cannot delete template while in use by pools or scale sets");
    }
    store.templates.splice(store.templates.indexOf(t), 1);
    return { status: 200 };
  });
}
