// Scale-set create, read, update, delete and instance listing (garm-behaviour.md §2.1, §4, §5).
import { optBool, optString, optStringArray, optUint, parseBody, parseUintId, parseBool, type Body } from "../body";
import { badRequest, invalidRequest, notFound, serverError } from "../errors";
import { GitHubError } from "../github";
import type { Reply, RequestContext, Router } from "../router";
import type { Store } from "../state";
import type { EntityKind, EntityRecord, ScaleSetRecord, TemplateRecord } from "../types";
import { instanceView, scaleSetView } from "../views";
import { kindOfPlural, lookupEntity } from "./entities";
import { githubFailure } from "./github-errors";
import { checkRunnerLimits, rawExtraSpecs, runnerFieldUpdates } from "./runner-fields";

/** The forge of an entity's credentials, which GARM's findTemplate matches: its endpoint's type. */
export function entityForge(store: Store, entity: EntityRecord): "github" | "gitea" {
  return store.endpoints.get(entity.endpoint)?.endpointType ?? "github";
}

/**
 * Picks the template as findTemplate does (runner/repositories.go L208-246), for the forge of the entity's credentials;
 * os_type is effectively required (§4.4 step 3).
 */
export function findTemplate(store: Store, osType: string, templateId: number | undefined, forge: "github" | "gitea"): TemplateRecord {
  if (templateId !== undefined && templateId !== 0) {
    const t = store.templates.find((x) => x.id === templateId);
    // Texts as GARM v0.2.1 answers them (test/e2e/conformance); the OS check comes before the forge check.
    if (t === undefined) throw notFound("failed to find suitable template: failed to get template: failed to get template: not found");
    if (t.osType !== osType) {
      throw badRequest(`failed to find suitable template: selected template OS type (${t.osType}) and pool OS type (${osType}) do not match`);
    }
    if (t.forgeType !== forge) {
      throw badRequest(`failed to find suitable template: selected template forge type (${t.forgeType}) and pool forge type (${forge}) do not match`);
    }
    return t;
  }
  const t = store.templates.find((x) => x.forgeType === forge && x.osType === osType && x.owner === undefined);
  if (t === undefined) throw badRequest("failed to find suitable template: no template ID supplied and no default template can be found");
  return t;
}

function getScaleSet(store: Store, idText: string): ScaleSetRecord {
  const ss = store.scaleSets.get(parseUintId(idText));
  if (ss === undefined) throw notFound("error fetching scale set: error fetching scale set by ID: not found");
  return ss;
}

/** CreateScaleSetParams.Validate, run only after GitHub was called (§4.4 step 6). */
function createValidationError(p: {
  providerName: string;
  minIdle: number;
  maxRunners: number;
  flavor: string;
  image: string;
  name: string;
}): string | undefined {
  if (p.providerName === "") return "missing provider";
  if (p.minIdle > p.maxRunners) return "min_idle_runners cannot be larger than max_runners";
  if (p.maxRunners === 0) return "max_runners cannot be 0";
  if (p.flavor === "") return "missing flavor";
  if (p.image === "") return "missing image";
  if (p.name === "") return "missing scale set name";
  return undefined;
}

function create(kind: EntityKind, ctx: RequestContext): Reply {
  const store = ctx.store;
  const b = parseBody(ctx.rawBody);
  const p = {
    runnerPrefix: optString(b, "runner_prefix") ?? "",
    name: optString(b, "name") ?? "",
    disableUpdate: optBool(b, "disable_update") ?? false,
    providerName: optString(b, "provider_name") ?? "",
    maxRunners: optUint(b, "max_runners") ?? 0,
    minIdle: optUint(b, "min_idle_runners") ?? 0,
    image: optString(b, "image") ?? "",
    flavor: optString(b, "flavor") ?? "",
    osType: optString(b, "os_type") ?? "",
    osArch: optString(b, "os_arch") ?? "",
    enabled: optBool(b, "enabled") ?? false,
    bootstrapTimeout: optUint(b, "runner_bootstrap_timeout") ?? 0,
    extraSpecs: rawExtraSpecs(ctx.rawBody, b),
    enableShell: optBool(b, "enable_shell") ?? false,
    runnerGroup: optString(b, "github-runner-group") ?? "",
    templateId: optUint(b, "template_id"),
    labels: optStringArray(b, "labels") ?? [],
  };
  optUint(b, "scale_set_id"); // decoded, then overwritten with GitHub's id (§3.5)
  // 1. defaults
  if (p.bootstrapTimeout === 0) p.bootstrapTimeout = 20;
  if (p.runnerGroup === "") p.runnerGroup = "Default";
  // 2. entity, 3. template
  const entity = lookupEntity(store, kind, ctx.params["id"]!, "scaleset-create");
  // GARM v0.2.1 makes scale sets for GitHub entities only (runner/scalesets.go L227-229).
  if (entityForge(store, entity) !== "github") throw badRequest("scale sets are only supported for github entities");
  const template = findTemplate(store, p.osType, p.templateId, entityForge(store, entity));
  // 5. GitHub first
  let githubId: number;
  try {
    githubId = store.github.createScaleSet(entity.id, p.runnerGroup, p.name);
  } catch (e) {
    throw githubFailure(e, "error creating runner scale set: failed to create runner scale set");
  }
  // 6. only then validation, as a plain error: 500 with empty details; the GitHub scale set is removed again.
  const invalid = createValidationError(p);
  if (invalid !== undefined) {
    store.github.forgetScaleSet(githubId);
    store.log(`create scale set ${p.name}: ${invalid}`);
    throw serverError();
  }
  const tagIds: string[] = [];
  for (const l of p.labels) {
    const tag = store.getOrCreateTag(l);
    if (!tagIds.includes(tag.id)) tagIds.push(tag.id);
  }
  const now = store.now();
  const ss: ScaleSetRecord = {
    id: store.newScaleSetId(),
    githubScaleSetId: githubId,
    name: p.name,
    entityId: entity.id,
    runnerPrefix: p.runnerPrefix === "" ? "garm" : p.runnerPrefix,
    disableUpdate: p.disableUpdate,
    state: "pending_create",
    extendedState: "",
    providerName: p.providerName,
    maxRunners: p.maxRunners,
    minIdleRunners: p.minIdle,
    image: p.image,
    flavor: p.flavor,
    osType: p.osType,
    osArch: p.osArch,
    enabled: p.enabled,
    desiredRunnerCount: 0,
    enableShell: p.enableShell,
    generation: 0,
    runnerBootstrapTimeout: p.bootstrapTimeout,
    extraSpecs: p.extraSpecs,
    runnerGroup: p.runnerGroup,
    tagIds,
    templateId: template.id,
    createdAt: now,
    updatedAt: now,
  };
  store.scaleSets.set(ss.id, ss);
  store.log(`created scale set ${ss.id} ${ss.name} (github id ${githubId})`);
  return { status: 200, body: scaleSetView(store, ss, "get") };
}

/** A pointer field of UpdateScaleSetParams that is stored verbatim (`state`, `extended_state`, §4.1). */
function optVerbatim(b: Body, key: string): string | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalidRequest();
  return v;
}

function update(ctx: RequestContext): Reply {
  const store = ctx.store;
  const ss = getScaleSet(store, ctx.params["id"]!);
  const b = parseBody(ctx.rawBody);
  const head = store.behaviour === "head";
  const u = {
    ...runnerFieldUpdates(ctx.rawBody, b, "runner_group"),
    name: optString(b, "name") ?? "",
    // disable_update exists on update at HEAD only (Appendix A); v0.2.1 ignores the key.
    disableUpdate: head ? optBool(b, "disable_update") : undefined,
    state: optVerbatim(b, "state"),
    extendedState: optVerbatim(b, "extended_state"),
  };
  checkRunnerLimits(u, ss);
  // A template cannot be cleared (§4.1): 0 is "no change".
  const entity = store.entities.get(ss.entityId);
  const template = u.templateId ? findTemplate(store, u.osType || ss.osType, u.templateId, entity ? entityForge(store, entity) : "github") : undefined;

  // GitHub is called only for name, runner group and (HEAD) disable_update; a failure rolls everything back (§4.1).
  const patch: { name?: string; runnerGroup?: string } = {};
  if (u.name !== "" && u.name !== ss.name) patch.name = u.name;
  if (u.runnerGroup !== undefined && u.runnerGroup !== "" && u.runnerGroup !== ss.runnerGroup) patch.runnerGroup = u.runnerGroup;
  const disableUpdateChanged = u.disableUpdate !== undefined && u.disableUpdate !== ss.disableUpdate;
  if (patch.name !== undefined || patch.runnerGroup !== undefined || disableUpdateChanged) {
    try {
      store.github.updateScaleSet(ss.githubScaleSetId, patch);
    } catch (e) {
      throw githubFailure(e, "error updating pool: error executing update callback: failed to update scaleset in github");
    }
  }

  let bump = false;
  const setBumping = <K extends keyof ScaleSetRecord>(key: K, value: ScaleSetRecord[K]) => {
    if (ss[key] !== value) {
      ss[key] = value;
      bump = true;
    }
  };
  if (u.enabled !== undefined) ss.enabled = u.enabled;
  if (u.maxRunners !== undefined) ss.maxRunners = u.maxRunners; // 0 is accepted on update (§4.1)
  if (u.minIdle !== undefined) ss.minIdleRunners = u.minIdle;
  if (u.bootstrapTimeout !== undefined) ss.runnerBootstrapTimeout = u.bootstrapTimeout;
  if (patch.name !== undefined) ss.name = patch.name;
  if (patch.runnerGroup !== undefined) setBumping("runnerGroup", patch.runnerGroup);
  if (u.disableUpdate !== undefined) ss.disableUpdate = u.disableUpdate;
  if (u.image !== "") setBumping("image", u.image);
  if (u.flavor !== "") setBumping("flavor", u.flavor);
  if (u.osType !== "") setBumping("osType", u.osType);
  if (u.osArch !== "") setBumping("osArch", u.osArch);
  // Raw bytes comparison: reformatted but equal JSON is a change (§3.7).
  if (u.extraSpecs !== undefined) setBumping("extraSpecs", u.extraSpecs);
  if (u.enableShell !== undefined) setBumping("enableShell", u.enableShell);
  if (u.runnerPrefix !== "") ss.runnerPrefix = u.runnerPrefix;
  if (template !== undefined) ss.templateId = template.id;
  if (u.state !== undefined) ss.state = u.state;
  if (u.extendedState !== undefined) ss.extendedState = u.extendedState;
  if (bump) ss.generation++;
  ss.updatedAt = store.now();
  store.log(`updated scale set ${ss.id} (enabled=${ss.enabled} min=${ss.minIdleRunners} max=${ss.maxRunners} generation=${ss.generation})`);
  return { status: 200, body: scaleSetView(store, ss, "get") };
}

function remove(ctx: RequestContext): Reply {
  const store = ctx.store;
  const id = parseUintId(ctx.params["id"]!);
  const ss = store.scaleSets.get(id);
  if (ss === undefined) return { status: 200 }; // idempotent (§5 step 1)
  // Any instance row counts, checked before `enabled` (§5 step 2).
  if (store.instancesOf(id).length > 0) throw badRequest("scale set has runners");
  if (ss.enabled) throw badRequest("scale set is enabled; disable it first");
  try {
    store.github.deleteScaleSet(ss.githubScaleSetId);
  } catch (e) {
    if (!(e instanceof GitHubError)) throw e;
    // Only a NotFound raised before the DELETE itself reaches the client (§5 step 6).
    if (e.op === "scaleset-delete-token" && e.status === 404) {
      throw notFound(`error deleting scale set from github: failed to update token: ${e.message}`); // §5 step 6
    }
    // The inverted check: every other GitHub failure answers 200 and keeps the row.
    store.log(`scale set not found: delete of scale set ${id} answered 200, row kept (${e.message})`);
    return { status: 200 };
  }
  store.scaleSets.delete(id);
  store.log(`deleted scale set ${id}`);
  return { status: 200 };
}

function listInstances(ctx: RequestContext): Reply {
  const store = ctx.store;
  const id = parseUintId(ctx.params["id"]!);
  const ss = store.scaleSets.get(id);
  let list = store.instancesOf(id); // unknown id → [] (§2.1)
  // Scale-set runners have generation 0, so outdatedOnly lists all of them once the scale set's generation ≥ 1 (§3.2).
  if (parseBool(ctx.query.get("outdatedOnly"))) list = list.filter(() => (ss?.generation ?? 0) > 0);
  return {
    status: 200,
    body: list.map((i) => instanceView(store, i, { providerName: ss?.providerName ?? "", withJob: true })),
  };
}

export function registerScaleSetRoutes(router: Router): void {
  for (const plural of ["organizations", "repositories", "enterprises"]) {
    const kind = kindOfPlural(plural);
    router.add("POST", `/${plural}/{id}/scalesets`, "api", (ctx) => create(kind, ctx));
    router.add("GET", `/${plural}/{id}/scalesets`, "api", (ctx) => {
      const e = lookupEntity(ctx.store, kind, ctx.params["id"]!, "scaleset-list");
      const list = [...ctx.store.scaleSets.values()].filter((s) => s.entityId === e.id);
      return { status: 200, body: list.map((s) => scaleSetView(ctx.store, s, "list-entity")) };
    });
  }
  router.add("GET", "/scalesets", "api", (ctx) => ({
    status: 200,
    body: [...ctx.store.scaleSets.values()].map((s) => scaleSetView(ctx.store, s, "list-all")),
  }));
  router.add("GET", "/scalesets/{id}", "api", (ctx) => ({
    status: 200,
    body: scaleSetView(ctx.store, getScaleSet(ctx.store, ctx.params["id"]!), "get"),
  }));
  router.add("PUT", "/scalesets/{id}", "api", update);
  router.add("DELETE", "/scalesets/{id}", "api", remove);
  router.add("GET", "/scalesets/{id}/instances", "api", listInstances);
}
