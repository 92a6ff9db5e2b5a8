// Organizations, repositories, enterprises, GitHub endpoints and credentials (garm-behaviour.md §2.4, §2.5).
import { isUuid, optBool, optString, parseBody, parseBool } from "../body";
import { ApiError, badRequest, conflict, notFound, serverError } from "../errors";
import type { Reply, RequestContext, Router } from "../router";
import type { Store } from "../state";
import type { CredentialsRecord, EntityKind, EntityRecord } from "../types";
import { sameName } from "../names";
import { entityView } from "../views";
import { registerEntityWriteRoutes, removeControllerHook } from "./entity-writes";

interface KindInfo {
  kind: EntityKind;
  /** path segment */
  plural: string;
  /** the word GARM uses in its messages */
  word: string;
}

const KINDS: KindInfo[] = [
  { kind: "organization", plural: "organizations", word: "organization" },
  { kind: "repository", plural: "repositories", word: "repo" },
  { kind: "enterprise", plural: "enterprises", word: "enterprise" },
];

/** The store's word for an entity kind in its wrapped errors ("error fetching org: ..."). */
export const STORE_WORD: Record<EntityKind, string> = { organization: "org", repository: "repo", enterprise: "enterprise" };

/**
 * The store's id parse error. Orgs and enterprises wrap it as `invalid request`; repositories leak uuid.Parse's own text
 * (observed against GARM v0.2.1 by test/e2e/conformance).
 */
function parseIdError(kind: EntityKind, id: string): string {
  if (kind !== "repository") return "error parsing id: invalid request";
  return `error parsing id: ${[36, 32, 38, 41, 45].includes(id.length) ? "invalid UUID format" : `invalid UUID length: ${id.length}`}`;
}

/**
 * Which request looks the entity up; GARM wraps the same store error differently per handler (conformance-tested):
 * get → `error fetching organization: error fetching org: ...`; scaleset-create → `error getting entity: error failed to
 * get entity from db: error fetching org: ...`; scaleset-list → `error fetching scale sets: error fetching scale sets: ...`.
 */
export type EntityLookup = "get" | "scaleset-create" | "scaleset-list";

/** An entity by path id: 400 for a non-UUID, 404 for an unknown one (§2.4). */
export function lookupEntity(store: Store, kind: EntityKind, id: string, via: EntityLookup = "get"): EntityRecord {
  const inner = `error fetching ${STORE_WORD[kind]}`;
  if (!isUuid(id)) {
    if (via === "scaleset-list") throw badRequest("error fetching scale sets: error fetching scale sets: error parsing id: invalid request");
    const prefix = via === "get" ? `error fetching ${kind}: ${inner}` : `error getting entity: error failed to get entity from db: ${inner}`;
    throw badRequest(`${prefix}: ${parseIdError(kind, id)}`);
  }
  const e = store.entities.get(id.toLowerCase());
  if (e === undefined || e.kind !== kind) {
    if (via === "scaleset-list") {
      throw notFound("error fetching scale sets: error fetching scale sets: error checking entity existence: error entity not found: not found");
    }
    const prefix = via === "get" ? `error fetching ${kind}: ${inner}` : `error getting entity: error failed to get entity from db: ${inner}`;
    throw notFound(`${prefix}: not found`);
  }
  return e;
}

/** An entity by path id for the routes whose error wraps the store's error once more with `prefix` (delete, webhook). */
export function lookupEntityFor(store: Store, kind: EntityKind, id: string, prefix: string): EntityRecord {
  const inner = `error fetching ${STORE_WORD[kind]}`;
  if (!isUuid(id)) throw badRequest(`${prefix}: ${inner}: ${parseIdError(kind, id)}`);
  const e = store.entities.get(id.toLowerCase());
  if (e === undefined || e.kind !== kind) throw notFound(`${prefix}: ${inner}: not found`);
  return e;
}

export function kindOfPlural(plural: string): EntityKind {
  const k = KINDS.find((x) => x.plural === plural);
  if (k === undefined) throw new Error(`unknown entity path ${plural}`);
  return k.kind;
}

/** A missing webhook secret is a MissingSecretError: 500 in v0.2.1, 400 at HEAD (§1.7, Appendix A). */
function missingSecret(store: Store): ApiError {
  return store.behaviour === "head" ? badRequest("missing secret") : serverError();
}

/**
 * The credentials an entity create names (runner/organizations.go L40-54, runner/common.go L12-31): by forge when
 * forge_type says, else on both forges, and a name both hold is "not defined" (the runner replaces the ambiguity error).
 * Enterprises look at GitHub only (runner/enterprises.go L41). Names match ignoring case (models.go L483, L510).
 */
function resolveCredentials(store: Store, kind: EntityKind, name: string, forgeType: string): CredentialsRecord | undefined {
  const on = (forge: "github" | "gitea") => store.credentials.find((c) => (c.forge ?? "github") === forge && sameName(c.name, name));
  if (kind === "enterprise" || forgeType === "github") return on("github");
  if (forgeType === "gitea") return on("gitea");
  const github = on("github");
  const gitea = on("gitea");
  return github && gitea ? undefined : (github ?? gitea);
}

function create(info: KindInfo, ctx: RequestContext): Reply {
  const store = ctx.store;
  const b = parseBody(ctx.rawBody);
  const owner = optString(b, "owner") ?? "";
  const name = optString(b, "name") ?? "";
  const credentialsName = optString(b, "credentials_name") ?? "";
  const secret = optString(b, "webhook_secret") ?? "";
  const balancer = optString(b, "pool_balancer_type") ?? "";
  const agentMode = optBool(b, "agent_mode") ?? false;
  // CreateEnterpriseParams has no forge_type: the key is ignored (params/requests.go L121-127).
  const forgeType = info.kind === "enterprise" ? "" : (optString(b, "forge_type") ?? "");
  // Validate() errors reach the answer wrapped by the runner (runner/organizations.go L36-38, conformance-tested).
  const invalid = (what: string) => badRequest(`error validating params: ${what}`);
  if (info.kind === "repository" && owner === "") throw invalid("missing owner");
  if (name === "") throw invalid(`missing ${STORE_WORD[info.kind]} name`);
  if (credentialsName === "") throw invalid("missing credentials name");
  if (secret === "") throw missingSecret(store);
  if (!["", "github", "gitea"].includes(forgeType)) throw invalid("invalid forge type");
  if (!["", "roundrobin", "pack"].includes(balancer)) throw invalid("invalid pool balancer type");
  const creds = resolveCredentials(store, info.kind, credentialsName, forgeType);
  if (creds === undefined) throw badRequest(`credentials ${credentialsName} not defined`);
  // GetOrganization & co. match names ignoring case (database/sql/organizations.go L285, COLLATE NOCASE).
  const same = sameName;
  for (const e of store.entities.values()) {
    if (e.kind === info.kind && same(e.name, name) && same(e.owner, owner) && same(e.endpoint, creds.endpoint)) {
      throw conflict(`${info.kind} ${info.kind === "repository" ? `${owner}/${name}` : name} already exists`);
    }
  }
  const e = store.addEntity({
    kind: info.kind,
    name,
    owner: info.kind === "repository" ? owner : "",
    // GARM answers with the credentials' own spelling of the name (database/sql/util.go L156-167).
    credentialsName: creds.name,
    endpoint: creds.endpoint,
    webhookSecret: secret,
    poolBalancerType: balancer,
    agentMode,
  });
  store.log(`created ${info.kind} ${e.id}`);
  return { status: 200, body: entityView(store, e, "create") };
}

function list(info: KindInfo, ctx: RequestContext): Reply {
  const q = ctx.query;
  const matches = [...ctx.store.entities.values()].filter(
    (e) =>
      e.kind === info.kind &&
      (!q.get("name") || e.name === q.get("name")) &&
      (info.kind !== "repository" || !q.get("owner") || e.owner === q.get("owner")) &&
      // name and owner compare exactly (`name = ?`, organizations.go L103-109); endpoint_name takes the type of the
      // endpoint's key, collate nocase (gorm gives a foreign key its referenced column's type; models.go L283, L464).
      (!q.get("endpoint") || sameName(e.endpoint, q.get("endpoint")!)),
  );
  return { status: 200, body: matches.map((e) => entityView(ctx.store, e)) };
}

function remove(info: KindInfo, ctx: RequestContext): Reply {
  const store = ctx.store;
  const e = lookupEntityFor(store, info.kind, ctx.params["id"]!, `error fetching ${STORE_WORD[info.kind]}`);
  // Pools are checked before scale sets (runner/organizations.go L138-159).
  const pools = [...store.pools.values()].filter((p) => p.entityId === e.id).map((p) => p.id);
  if (pools.length > 0) throw badRequest(`${info.word} has pools defined (${pools.join(", ")})`);
  if ([...store.scaleSets.values()].some((s) => s.entityId === e.id)) {
    throw badRequest(`${info.word} has scale sets defined; delete them first`);
  }
  if (!parseBool(ctx.query.get("keepWebhook")) && info.kind !== "enterprise") removeControllerHook(store, e);
  store.entities.delete(e.id);
  return { status: 200 };
}

export function registerEntityRoutes(router: Router): void {
  for (const info of KINDS) {
    router.add("GET", `/${info.plural}`, "api", (ctx) => list(info, ctx));
    router.add("POST", `/${info.plural}`, "api", (ctx) => create(info, ctx));
    router.add("GET", `/${info.plural}/{id}`, "api", (ctx) => ({
      status: 200,
      body: entityView(ctx.store, lookupEntity(ctx.store, info.kind, ctx.params["id"]!), "get"),
    }));
    router.add("DELETE", `/${info.plural}/{id}`, "api", (ctx) => remove(info, ctx));
    registerEntityWriteRoutes(router, info.kind, info.plural, info.word);
  }
}
