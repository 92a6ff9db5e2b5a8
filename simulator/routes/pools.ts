// Classic pools: create under an entity, get, update, delete, list, and their runners, with GARM v0.2.1's rules and
// error texts (runner/organizations.go L208-238, runner/pools.go L51-112, runner/runner.go L903-923,
// database/sql/pools.go L271-330, database/sql/util.go L580-689). The pool manager is ../pool-manager.ts.
import { randomUUID } from "node:crypto";
import { isUuid, optBool, optString, optStringArray, optUint, parseBody } from "../body";
import { badRequest, notFound } from "../errors";
import type { Reply, RequestContext, Router } from "../router";
import type { Store } from "../state";
import type { EntityKind, PoolRecord, TemplateRecord } from "../types";
import { instanceView, poolView } from "../views";
import { kindOfPlural, lookupEntity } from "./entities";
import { checkRunnerLimits, rawExtraSpecs, runnerFieldUpdates } from "./runner-fields";
import { entityForge, findTemplate } from "./scalesets";

const OS_TYPES = ["linux", "windows"];
const OS_ARCHES = ["386", "amd64", "arm", "arm64"];

/** A template by id, for a pool update (which checks neither its OS nor its forge); unknown ids fail as a create's do. */
function templateById(store: Store, id: number): TemplateRecord {
  const t = store.templates.find((x) => x.id === id);
  if (t === undefined) throw notFound("failed to find suitable template: failed to get template: failed to get template: not found");
  return t;
}

function getPool(store: Store, id: string, prefix: string): PoolRecord {
  if (!isUuid(id)) throw badRequest(`${prefix}: error parsing id: invalid request`);
  const p = store.pools.get(id.toLowerCase());
  if (p === undefined) throw notFound(`${prefix}: not found`);
  return p;
}

function tagIdsOf(store: Store, labels: string[]): string[] {
  const ids: string[] = [];
  for (const l of labels) {
    const tag = store.getOrCreateTag(l);
    if (!ids.includes(tag.id)) ids.push(tag.id);
  }
  return ids;
}

function create(kind: EntityKind, ctx: RequestContext): Reply {
  const store = ctx.store;
  const b = parseBody(ctx.rawBody);
  const p = {
    providerName: optString(b, "provider_name") ?? "",
    maxRunners: optUint(b, "max_runners") ?? 0,
    minIdle: optUint(b, "min_idle_runners") ?? 0,
    image: optString(b, "image") ?? "",
    flavor: optString(b, "flavor") ?? "",
    osType: optString(b, "os_type") ?? "",
    osArch: optString(b, "os_arch") ?? "",
    tags: optStringArray(b, "tags") ?? [],
    enabled: optBool(b, "enabled") ?? false,
    bootstrapTimeout: optUint(b, "runner_bootstrap_timeout") ?? 0,
    extraSpecs: rawExtraSpecs(ctx.rawBody, b),
    enableShell: optBool(b, "enable_shell") ?? false,
    runnerGroup: optString(b, "github-runner-group") ?? "",
    priority: optUint(b, "priority") ?? 0,
    templateId: optUint(b, "template_id"),
    runnerPrefix: optString(b, "runner_prefix") ?? "",
  };
  // CreatePoolParams.Validate, in its order (params/requests.go L227-253), then OS, arch and provider (runner.go L903-923).
  const invalid = (why: string) => badRequest(`error fetching pool params: failed to validate params (${JSON.stringify(why)}): invalid request`);
  if (p.providerName === "") throw invalid("missing provider");
  if (p.minIdle > p.maxRunners) throw invalid("min_idle_runners cannot be larger than max_runners");
  if (p.maxRunners === 0) throw invalid("max_runners cannot be 0");
  if (p.tags.length === 0) throw invalid("missing tags");
  if (p.flavor === "") throw invalid("missing flavor");
  if (p.image === "") throw invalid("missing image");
  if (!OS_TYPES.includes(p.osType)) throw badRequest(`error fetching pool params: invalid OS type ${p.osType}`);
  if (!OS_ARCHES.includes(p.osArch)) throw badRequest(`error fetching pool params: invalid OS architecture ${p.osArch}`);
  if (!store.providers.has(p.providerName)) throw badRequest(`error fetching pool params: no such provider ${p.providerName}`);
  const entity = lookupEntity(store, kind, ctx.params["id"]!, "scaleset-create");
  const template = findTemplate(store, p.osType, p.templateId, entityForge(store, entity));
  const now = store.now();
  const pool: PoolRecord = {
    id: randomUUID(),
    providerName: p.providerName,
    entityId: entity.id,
    image: p.image,
    flavor: p.flavor,
    osType: p.osType,
    osArch: p.osArch,
    maxRunners: p.maxRunners,
    minIdleRunners: p.minIdle,
    enabled: p.enabled,
    templateId: template.id,
    runnerPrefix: p.runnerPrefix === "" ? "garm" : p.runnerPrefix,
    tagIds: tagIdsOf(store, p.tags),
    // The runner sets its default on a copy it no longer uses (runner/organizations.go L213-220): 0 is stored, and only
    // GET by id shows the default (apiserver/controllers/pools.go L89).
    runnerBootstrapTimeout: p.bootstrapTimeout,
    extraSpecs: p.extraSpecs,
    enableShell: p.enableShell,
    runnerGroup: p.runnerGroup,
    priority: p.priority,
    generation: 0,
    createdAt: now,
    updatedAt: now,
  };
  store.pools.set(pool.id, pool);
  store.log(`created pool ${pool.id}`);
  return { status: 200, body: poolView(store, pool, "write") };
}

function update(ctx: RequestContext): Reply {
  const store = ctx.store;
  const pool = getPool(store, ctx.params["id"]!, "error fetching pool: error fetching pool by ID");
  const b = parseBody(ctx.rawBody);
  const u = { ...runnerFieldUpdates(ctx.rawBody, b, "github-runner-group"), tags: optStringArray(b, "tags") ?? [], priority: optUint(b, "priority") };
  // runner/pools.go L84-100.
  checkRunnerLimits(u, pool);
  // GARM's pool update stores template_id without findTemplate's OS and forge checks (runner/pools.go L74-112).
  const template = u.templateId ? templateById(store, u.templateId) : undefined;
  // database/sql/util.go L580-677: empty strings and absent pointers leave a field as it is; some changes bump the generation.
  let bump = false;
  const set = <K extends keyof PoolRecord>(key: K, value: PoolRecord[K] | undefined, generation = false) => {
    if (value === undefined || value === "" || value === pool[key]) return;
    pool[key] = value;
    bump ||= generation;
  };
  set("enabled", u.enabled);
  set("flavor", u.flavor, true);
  set("enableShell", u.enableShell, true);
  set("image", u.image, true);
  set("runnerPrefix", u.runnerPrefix);
  set("maxRunners", u.maxRunners);
  set("templateId", template?.id);
  set("minIdleRunners", u.minIdle);
  set("osArch", u.osArch, true);
  set("osType", u.osType, true);
  set("extraSpecs", u.extraSpecs, true);
  set("runnerBootstrapTimeout", u.bootstrapTimeout);
  if (u.runnerGroup !== undefined && u.runnerGroup !== (pool.runnerGroup ?? "")) {
    pool.runnerGroup = u.runnerGroup;
    bump = true;
  }
  set("priority", u.priority);
  if (bump) pool.generation = (pool.generation ?? 0) + 1;
  // An empty tag list leaves the tags as they are (util.go L660-677).
  if (u.tags.length > 0) pool.tagIds = tagIdsOf(store, u.tags);
  pool.updatedAt = store.now();
  return { status: 200, body: poolView(store, pool, "write") };
}

function remove(ctx: RequestContext): Reply {
  const store = ctx.store;
  const id = ctx.params["id"]!;
  // A pool GARM does not have is success (runner/pools.go L56-62).
  if (!isUuid(id)) throw badRequest("error fetching pool: error fetching pool by ID: error parsing id: invalid request");
  const pool = store.pools.get(id.toLowerCase());
  if (pool === undefined) return { status: 200 };
  if (store.poolInstances(pool.id).length > 0) throw badRequest("pool has runners");
  store.pools.delete(pool.id);
  store.log(`deleted pool ${pool.id}`);
  return { status: 200 };
}

export function registerPoolRoutes(router: Router): void {
  for (const plural of ["organizations", "repositories", "enterprises"]) {
    const kind = kindOfPlural(plural);
    router.add("POST", `/${plural}/{id}/pools`, "api", (ctx) => create(kind, ctx));
  }
  router.add("GET", "/pools", "api", (ctx) => ({
    status: 200,
    body: [...ctx.store.pools.values()].map((p) => poolView(ctx.store, p, "list")),
  }));
  router.add("GET", "/pools/{id}", "api", (ctx) => ({
    status: 200,
    body: poolView(ctx.store, getPool(ctx.store, ctx.params["id"]!, "error fetching pool: error fetching pool by ID")),
  }));
  router.add("PUT", "/pools/{id}", "api", update);
  router.add("DELETE", "/pools/{id}", "api", remove);
  // An unknown pool lists no runners (database/sql/instances.go L526-543).
  router.add("GET", "/pools/{id}/instances", "api", (ctx) => {
    const id = ctx.params["id"]!;
    if (!isUuid(id)) throw badRequest("error fetching instances: error parsing id: invalid request");
    const pool = ctx.store.pools.get(id.toLowerCase());
    return {
      status: 200,
      body: ctx.store.poolInstances(id.toLowerCase()).map((i) => instanceView(ctx.store, i, { providerName: pool?.providerName ?? "", withJob: true })),
    };
  });
}
