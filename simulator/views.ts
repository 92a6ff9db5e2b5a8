// Wire shapes of GARM's JSON responses, with Go's omitempty rules applied key by key (garm-behaviour.md §3).
import { RawJson } from "./json";
import { ZERO_TIME, ZERO_UUID, type Store } from "./state";
import type {
  CredentialsRecord,
  EndpointRecord,
  EntityRecord,
  InstanceRecord,
  JobRecord,
  PoolRecord,
  ScaleSetRecord,
} from "./types";

type Json = Record<string, unknown>;

export const GITEA_RUNNER_RELEASES_URL = "https://gitea.com/api/v1/repos/gitea/runner/releases";

/** Sets `key` only when `value` is not Go's zero value (omitempty). */
function put(o: Json, key: string, value: string | number | boolean | unknown[] | undefined): void {
  if (value === undefined || value === "" || value === 0 || value === false) return;
  if (Array.isArray(value) && value.length === 0) return;
  o[key] = value;
}

/**
 * A scale set's or pool's tags as GARM v0.2.1 answers them (Preload("Tags"), database/sql/pools.go L41,
 * database/sql/scalesets.go L41): in the order the tag rows were first created, not as sent, so a tag another pool
 * made earlier comes first and the order varies from one GARM to another (test/e2e/conformance).
 */
function tagsView(store: Store, tagIds: readonly string[]): Json[] {
  const created = (id: string) => store.tags.findIndex((t) => t.id === id);
  return [...tagIds].sort((a, b) => created(a) - created(b)).map((id) => ({ id, name: store.tags.find((t) => t.id === id)?.name ?? "" }));
}

/** `ForgeEndpoint`; entity lists of scale sets do not preload it, so they carry a zero struct (§2.1). */
export function endpointView(ep: EndpointRecord | undefined): Json {
  // The zero struct: its strings are omitempty, its times are not (GARM v0.2.1, test/e2e/conformance).
  if (ep === undefined) return { created_at: ZERO_TIME, updated_at: ZERO_TIME };
  const o: Json = {};
  put(o, "name", ep.name);
  put(o, "description", ep.description);
  put(o, "api_base_url", ep.apiBaseUrl);
  put(o, "upload_base_url", ep.uploadBaseUrl);
  put(o, "base_url", ep.baseUrl);
  put(o, "ca_cert_bundle", ep.caCertBundle);
  o["created_at"] = ep.createdAt;
  o["updated_at"] = ep.updatedAt;
  if (ep.endpointType === "gitea") {
    // Gitea endpoints carry the tools settings, the URL defaulted (database/sql/util.go L1094-1101).
    o["tools_metadata_url"] = ep.toolsMetadataUrl || GITEA_RUNNER_RELEASES_URL;
    o["use_internal_tools_metadata"] = ep.useInternalToolsMetadata ?? false;
  }
  o["endpoint_type"] = ep.endpointType ?? "github";
  return o;
}

export function credentialsView(store: Store, c: CredentialsRecord): Json {
  const ep = store.endpoints.get(c.endpoint);
  const o: Json = { id: c.id };
  put(o, "name", c.name);
  put(o, "description", c.description);
  put(o, "api_base_url", ep?.apiBaseUrl);
  put(o, "upload_base_url", ep?.uploadBaseUrl);
  put(o, "base_url", ep?.baseUrl);
  put(o, "ca_bundle", ep?.caCertBundle);
  // The response key is `auth-type`, the request key `auth_type` (§2.5).
  o["auth-type"] = c.authType;
  o["forge_type"] = ep?.endpointType ?? "github";
  o["endpoint"] = endpointView(ep);
  o["created_at"] = c.createdAt;
  o["updated_at"] = c.updatedAt;
  return o;
}

/** The endpoint whose forge the simulated GitHub serves; an entity elsewhere has a pool manager that never gets going. */
const REACHABLE_ENDPOINT = "github.com";

/**
 * How an entity is read: "create" answers with the row as stored before its pool manager started, with an empty
 * status; "get" preloads its pools and events (database/sql/organizations.go L236-256); lists and updates do neither.
 */
export type EntityViewMode = "create" | "get" | "list";

/**
 * The pool manager's status as stored (runner/pool/pool.go L1020-1031): it sets "pool manager is starting up" at start
 * (L1847) and running once it reaches the forge, which on an unreachable one never happens.
 */
function poolManagerStatus(e: EntityRecord, mode: EntityViewMode): Json {
  if (mode === "create") return {};
  return e.endpoint === REACHABLE_ENDPOINT ? { running: true } : { failure_reason: "pool manager is starting up" };
}

/** The status event the pool manager records when it cannot fetch the runner tools (the text's head is GARM's). */
function toolsFailureEvent(store: Store, e: EntityRecord): Json {
  const gitea = store.endpoints.get(e.endpoint)?.endpointType === "gitea";
  const message = gitea
    ? `failed to update gitea tools: "failed to get tools: failed to fetch URL ${store.endpoints.get(e.endpoint)?.toolsMetadataUrl ?? GITEA_RUNNER_RELEASES_URL}: unreachable"`
    : `failed to update tools: "error fetching tools: error fetching runner tools: unreachable"`;
  return { id: 1, created_at: e.createdAt, event_type: "status", event_level: "error", message };
}

export function entityView(store: Store, e: EntityRecord, mode: EntityViewMode = "list"): Json {
  const cred = store.credentialsOf(e);
  const o: Json = { id: e.id };
  if (e.kind === "repository") o["owner"] = e.owner;
  o["name"] = e.name;
  o["credentials_name"] = e.credentialsName;
  if (cred !== undefined) {
    o["credentials_id"] = cred.id;
    o["credentials"] = credentialsView(store, cred);
  }
  o["endpoint"] = endpointView(store.endpoints.get(e.endpoint));
  o["pool_manager_status"] = poolManagerStatus(e, mode);
  // "" (none asked for) reads back as roundrobin (database/sql/util.go L215, L284, L532); agent_mode has no omitempty.
  o["pool_balancing_type"] = e.poolBalancerType || "roundrobin";
  o["agent_mode"] = e.agentMode ?? false;
  o["created_at"] = e.createdAt;
  o["updated_at"] = e.updatedAt;
  if (mode === "get") {
    // Both omitempty (params/params.go L844, L856).
    const pools = [...store.pools.values()].filter((p) => p.entityId === e.id);
    if (pools.length > 0) o["pool"] = pools.map((p) => poolView(store, p, "list"));
    if (e.endpoint !== REACHABLE_ENDPOINT) o["events"] = [toolsFailureEvent(store, e)];
  }
  return o;
}

/** The entity id/name keys; exactly one group is set (§3.1). */
function putEntity(store: Store, o: Json, entityId: string): void {
  const e = store.entities.get(entityId);
  if (e === undefined) return;
  if (e.kind === "repository") {
    o["repo_id"] = e.id;
    o["repo_name"] = `${e.owner}/${e.name}`;
  } else if (e.kind === "organization") {
    o["org_id"] = e.id;
    o["org_name"] = e.name;
  } else {
    o["enterprise_id"] = e.id;
    o["enterprise_name"] = e.name;
  }
}

export function jobView(store: Store, j: JobRecord): Json {
  const o: Json = {};
  put(o, "id", j.id);
  put(o, "scaleset_job_id", j.scalesetJobId);
  put(o, "run_id", j.runId);
  put(o, "action", j.action);
  put(o, "conclusion", j.conclusion);
  put(o, "status", j.status);
  put(o, "name", j.name);
  // runner_name comes only from the instance relation (§7.7).
  put(o, "runner_name", store.instances.get(j.instanceId)?.name);
  put(o, "repository_name", j.repositoryName);
  put(o, "repository_owner", j.repositoryOwner);
  put(o, "labels", j.labels);
  const e = store.entities.get(j.entityId);
  if (e !== undefined) put(o, e.kind === "repository" ? "repo_id" : e.kind === "organization" ? "org_id" : "enterprise_id", e.id);
  o["started_at"] = j.startedAt;
  o["completed_at"] = j.completedAt;
  o["created_at"] = j.createdAt;
  o["updated_at"] = j.updatedAt;
  o["locked_by"] = ZERO_UUID;
  return o;
}

export interface InstanceViewOptions {
  /** `""` for instances nested in GET /scalesets/{id}, where the scale set is not preloaded (§3.2). */
  providerName: string;
  withJob: boolean;
}

export function instanceView(store: Store, i: InstanceRecord, opts: InstanceViewOptions): Json {
  const o: Json = {};
  put(o, "id", i.id);
  put(o, "provider_id", i.providerId);
  put(o, "agent_id", i.agentId);
  put(o, "name", i.name);
  put(o, "os_type", i.osType);
  put(o, "os_name", i.osName);
  put(o, "os_version", i.osVersion);
  put(o, "os_arch", i.osArch);
  put(o, "status", i.status);
  put(o, "runner_status", i.runnerStatus);
  put(o, "scale_set_id", i.scaleSetId);
  put(o, "pool_id", i.poolId);
  // []byte is base64 on the wire (§3.2, §6.2).
  put(o, "provider_fault", i.providerFault === "" ? "" : Buffer.from(i.providerFault).toString("base64"));
  put(o, "github-runner-group", i.runnerGroup);
  o["provider_name"] = opts.providerName;
  o["created_at"] = i.createdAt;
  o["updated_at"] = i.updatedAt;
  o["heartbeat"] = ZERO_TIME;
  o["capabilities"] = { has_shell: false };
  // Scale-set runners always have generation 0 (§3.2).
  o["generation"] = 0;
  const job = opts.withJob ? store.jobOf(i.id) : undefined;
  if (job !== undefined) o["job"] = jobView(store, job);
  return o;
}

export type ScaleSetViewMode = "get" | "list-all" | "list-entity";

/**
 * `params.ScaleSet`. "get" fills the default bootstrap timeout and carries instances and template_name; lists omit
 * them, and the entity list also lacks the endpoint (§2.1, §3.1). Extra specs are in every answer.
 */
export function scaleSetView(store: Store, ss: ScaleSetRecord, mode: ScaleSetViewMode): Json {
  const full = mode === "get";
  const entity = store.entities.get(ss.entityId);
  const o: Json = {};
  put(o, "runner_prefix", ss.runnerPrefix);
  o["created_at"] = ss.createdAt;
  o["updated_at"] = ss.updatedAt;
  put(o, "id", ss.id);
  put(o, "scale_set_id", ss.githubScaleSetId);
  put(o, "name", ss.name);
  o["disable_update"] = ss.disableUpdate;
  o["state"] = ss.state;
  put(o, "extended_state", ss.extendedState);
  put(o, "provider_name", ss.providerName);
  put(o, "max_runners", ss.maxRunners);
  put(o, "min_idle_runners", ss.minIdleRunners);
  put(o, "image", ss.image);
  put(o, "flavor", ss.flavor);
  put(o, "os_type", ss.osType);
  put(o, "os_arch", ss.osArch);
  put(o, "enabled", ss.enabled);
  if (full) {
    put(
      o,
      "instances",
      store.instancesOf(ss.id).map((i) => instanceView(store, i, { providerName: "", withJob: false })),
    );
  }
  put(o, "desired_runner_count", ss.desiredRunnerCount);
  o["enable_shell"] = ss.enableShell;
  o["generation"] = ss.generation;
  o["endpoint"] = endpointView(mode === "list-entity" ? undefined : store.endpoints.get(entity?.endpoint ?? ""));
  put(o, "runner_bootstrap_timeout", full && ss.runnerBootstrapTimeout === 0 ? 20 : ss.runnerBootstrapTimeout);
  // Every answer carries them, lists too: ListAllScaleSets' second Omit replaces its first (gorm's Omit sets the list,
  // database/sql/scalesets.go L42-43), and the entity list omits nothing (L196-210).
  if (ss.extraSpecs !== undefined && ss.extraSpecs !== "") o["extra_specs"] = new RawJson(ss.extraSpecs);
  put(o, "github-runner-group", ss.runnerGroup);
  put(o, "tags", tagsView(store, ss.tagIds));
  o["status_messages"] = null;
  putEntity(store, o, ss.entityId);
  put(o, "template_id", ss.templateId);
  if (full) put(o, "template_name", store.templates.find((t) => t.id === ss.templateId)?.name);
  return o;
}

/** params.Pool. "get" fills the default bootstrap timeout (apiserver/controllers/pools.go L89); lists carry no template name nor extra specs. */
export function poolView(store: Store, p: PoolRecord, mode: "get" | "list" | "write" = "get"): Json {
  const o: Json = { id: p.id, provider_name: p.providerName };
  put(o, "max_runners", p.maxRunners);
  put(o, "min_idle_runners", p.minIdleRunners);
  put(o, "image", p.image);
  put(o, "flavor", p.flavor);
  put(o, "os_type", p.osType);
  put(o, "os_arch", p.osArch);
  put(o, "tags", tagsView(store, p.tagIds ?? []));
  put(o, "enabled", p.enabled);
  put(o, "instances", store.poolInstances(p.id).map((i) => instanceView(store, i, { providerName: p.providerName, withJob: false })));
  o["enable_shell"] = p.enableShell ?? false;
  o["runner_prefix"] = p.runnerPrefix ?? "garm";
  o["generation"] = p.generation ?? 0;
  put(o, "runner_bootstrap_timeout", mode === "get" && !p.runnerBootstrapTimeout ? 20 : p.runnerBootstrapTimeout);
  o["created_at"] = p.createdAt;
  o["updated_at"] = p.updatedAt;
  putEntity(store, o, p.entityId);
  o["endpoint"] = endpointView(store.endpoints.get(store.entities.get(p.entityId)?.endpoint ?? ""));
  // GET /pools leaves them out (ListAllPools' Omit("extra_specs"), database/sql/pools.go L48).
  if (mode !== "list" && p.extraSpecs !== undefined && p.extraSpecs !== "") o["extra_specs"] = new RawJson(p.extraSpecs);
  put(o, "github-runner-group", p.runnerGroup);
  put(o, "priority", p.priority);
  put(o, "template_id", p.templateId);
  if (mode !== "list") put(o, "template_name", store.templates.find((t) => t.id === p.templateId)?.name);
  return o;
}
