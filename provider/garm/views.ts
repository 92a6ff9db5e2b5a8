// Normalised views of what GARM sends back: the one place its answers are parsed. GARM drops `omitempty` keys, so an
// absent `enabled`, `min_idle_runners` or `max_runners` means false/0 (garm-behaviour.md §3, §3.7); `provider_fault` is
// base64 (§3.2); labels come back as `tags`.
import { z } from "zod";

const text = z.string().optional().transform((s) => s ?? "");
const count = z.number().int().nonnegative().optional().transform((n) => n ?? 0);
const flag = z.boolean().optional().transform((b) => b ?? false);
/** Go's zero time means "never set" (§3). */
const time = z
  .string()
  .optional()
  .transform((s) => (s && !s.startsWith("0001-01-01") ? s : undefined));

export const jobSchema = z
  .object({
    id: z.number().optional(),
    scaleset_job_id: z.string().optional(),
    workflow_job_id: z.number().optional(),
    name: text,
    status: text,
    runner_name: text,
    repository_name: text,
    repository_owner: text,
    started_at: time,
    created_at: time,
    updated_at: time,
  })
  .transform((j) => ({
    // GARM's own job id, the one `garm-cli job list --format json` shows; scale-set jobs have no workflow_job_id (§7.3).
    id: j.id,
    name: j.name,
    status: j.status,
    runnerName: j.runner_name,
    repository: j.repository_owner && j.repository_name ? `${j.repository_owner}/${j.repository_name}` : j.repository_name,
    startedAt: j.started_at,
    createdAt: j.created_at,
    updatedAt: j.updated_at,
  }));
export type JobView = z.output<typeof jobSchema>;

function decodeBase64(value: string | undefined): string {
  if (!value) return "";
  return Buffer.from(value, "base64").toString("utf8");
}

export const instanceSchema = z
  .object({
    id: z.string().optional(),
    name: text,
    provider_id: text,
    agent_id: z.number().optional(),
    status: text,
    runner_status: text,
    provider_name: text,
    scale_set_id: z.number().optional(),
    pool_id: z.string().optional(),
    provider_fault: z.string().optional(),
    job: jobSchema.optional(),
    created_at: time,
    updated_at: time,
  })
  .transform((i) => ({
    id: i.id ?? "",
    name: i.name,
    status: i.status,
    runnerStatus: i.runner_status,
    providerName: i.provider_name,
    scaleSetId: i.scale_set_id ?? 0,
    providerFault: decodeBase64(i.provider_fault),
    job: i.job,
    createdAt: i.created_at,
    updatedAt: i.updated_at,
  }));
export type InstanceView = z.output<typeof instanceSchema>;

export type EntityKind = "organization" | "repository" | "enterprise";

export const scaleSetSchema = z
  .object({
    id: z.number().int().positive(),
    name: text,
    enabled: flag,
    min_idle_runners: count,
    max_runners: count,
    desired_runner_count: count,
    image: text,
    flavor: text,
    os_type: text,
    os_arch: text,
    provider_name: text,
    runner_prefix: text,
    "github-runner-group": text,
    runner_bootstrap_timeout: count,
    extra_specs: z.unknown().optional(),
    enable_shell: flag,
    template_id: z.number().optional(),
    /** Only GET by id fills it (§2.1). */
    template_name: z.string().optional(),
    scale_set_id: z.number().optional(),
    tags: z.array(z.object({ name: z.string() })).nullish(),
    instances: z.array(instanceSchema).nullish(),
    repo_id: z.string().optional(),
    repo_name: z.string().optional(),
    org_id: z.string().optional(),
    org_name: z.string().optional(),
    enterprise_id: z.string().optional(),
    enterprise_name: z.string().optional(),
    endpoint: z.object({ name: z.string().optional(), endpoint_type: z.string().optional() }).partial().optional(),
  })
  .transform((s) => ({
    id: s.id,
    name: s.name,
    enabled: s.enabled,
    minIdleRunners: s.min_idle_runners,
    maxRunners: s.max_runners,
    desiredRunnerCount: s.desired_runner_count,
    image: s.image,
    flavor: s.flavor,
    osType: s.os_type,
    osArch: s.os_arch,
    providerName: s.provider_name,
    runnerPrefix: s.runner_prefix,
    runnerGroup: s["github-runner-group"],
    runnerBootstrapTimeout: s.runner_bootstrap_timeout,
    /** Parsed JSON, or undefined when none were set (every scale-set answer carries them, lists too). */
    extraSpecs: s.extra_specs,
    enableShell: s.enable_shell,
    templateId: s.template_id,
    templateName: s.template_name,
    githubScaleSetId: s.scale_set_id ?? 0,
    labels: (s.tags ?? []).map((t) => t.name),
    instances: s.instances ?? [],
    entity: entityOf(s),
    endpoint: s.endpoint?.name ?? "",
    /** "github" or "gitea": the forge of the entity's endpoint; "" in entity lists, which leave the endpoint out (§2.1). */
    forgeType: s.endpoint?.endpoint_type ?? "",
  }));
export type ScaleSetView = z.output<typeof scaleSetSchema>;

function entityOf(s: {
  repo_id?: string;
  repo_name?: string;
  org_id?: string;
  org_name?: string;
  enterprise_id?: string;
  enterprise_name?: string;
}): { kind: EntityKind; id: string; name: string } | undefined {
  if (s.org_id) return { kind: "organization", id: s.org_id, name: s.org_name ?? "" };
  if (s.repo_id) return { kind: "repository", id: s.repo_id, name: s.repo_name ?? "" };
  if (s.enterprise_id) return { kind: "enterprise", id: s.enterprise_id, name: s.enterprise_name ?? "" };
  return undefined;
}

/** A runner install template, without its data (§2.6); `owner` is "system" for GARM's own. */
export const templateSchema = z
  .object({ id: z.number().int().positive(), name: text, os_type: text, forge_type: text, owner_id: text })
  .transform((t) => ({ id: t.id, name: t.name, osType: t.os_type, forgeType: t.forge_type, owner: t.owner_id }));
export type TemplateView = z.output<typeof templateSchema>;

/**
 * One template as GET by id answers it, with its body: Go marshals the `[]byte` data as base64 (params/params.go
 * L1483-1494), and lists omit it (database/sql/templates.go L34), so only a GET by id carries it.
 */
export const templateDetailSchema = z
  .object({
    id: z.number().int().positive(),
    name: text,
    description: text,
    os_type: text,
    forge_type: text,
    owner_id: text,
    data: z.string().nullish(),
    /** When GARM made it (params/params.go L1485): an id a database restore handed on has another. */
    created_at: z.string().optional(),
  })
  .transform((t) => ({
    id: t.id,
    createdAt: t.created_at && !t.created_at.startsWith("0001-01-01") ? t.created_at : undefined,
    name: t.name,
    description: t.description,
    osType: t.os_type,
    forgeType: t.forge_type,
    owner: t.owner_id,
    body: Buffer.from(t.data ?? "", "base64").toString("utf8"),
  }));
export type TemplateDetailView = z.output<typeof templateDetailSchema>;

export const providerSchema = z
  .object({ name: text, type: text, description: text })
  .transform((p) => ({ name: p.name, type: p.type, description: p.description }));
export type ProviderView = z.output<typeof providerSchema>;

/** A classic pool (params/params.go L468-522); lists and GET by id answer the same keys, all omitempty but enable_shell. */
export const poolSchema = z
  .object({
    id: text,
    provider_name: text,
    max_runners: count,
    min_idle_runners: count,
    image: text,
    flavor: text,
    os_type: text,
    os_arch: text,
    tags: z.array(z.object({ name: z.string() })).nullish(),
    enabled: flag,
    instances: z.array(instanceSchema).nullish(),
    enable_shell: flag,
    runner_prefix: text,
    runner_bootstrap_timeout: count,
    extra_specs: z.unknown().optional(),
    "github-runner-group": text,
    priority: count,
    repo_id: z.string().optional(),
    repo_name: z.string().optional(),
    org_id: z.string().optional(),
    org_name: z.string().optional(),
    enterprise_id: z.string().optional(),
    enterprise_name: z.string().optional(),
    /** omitempty (params/params.go L520): absent only for a pool that never had one. */
    template_id: z.number().optional(),
    template_name: z.string().optional(),
    endpoint: z.object({ endpoint_type: z.string().optional() }).partial().optional(),
  })
  .transform((p) => ({
    id: p.id,
    providerName: p.provider_name,
    entityName: p.org_name ?? p.repo_name ?? p.enterprise_name ?? "",
    entity: entityOf(p),
    maxRunners: p.max_runners,
    minIdleRunners: p.min_idle_runners,
    image: p.image,
    flavor: p.flavor,
    osType: p.os_type,
    osArch: p.os_arch,
    labels: (p.tags ?? []).map((t) => t.name),
    enabled: p.enabled,
    instances: p.instances ?? [],
    enableShell: p.enable_shell,
    runnerPrefix: p.runner_prefix,
    runnerBootstrapTimeout: p.runner_bootstrap_timeout,
    extraSpecs: p.extra_specs,
    runnerGroup: p["github-runner-group"],
    priority: p.priority,
    templateId: p.template_id,
    templateName: p.template_name,
    /** "github" or "gitea": the forge of the entity's endpoint, whose system templates GARM gives the pool. */
    forgeType: p.endpoint?.endpoint_type ?? "",
  }));
export type PoolView = z.output<typeof poolSchema>;

/**
 * An organization, repository or enterprise (params/params.go L760-900); lists and GET by id answer the same keys.
 * `webhook_secret` is never sent back (json:"-").
 */
export const entitySchema = z
  .object({
    id: z.string(),
    name: text,
    owner: z.string().optional(),
    credentials_name: text,
    credentials: z.object({ name: z.string().optional() }).partial().optional(),
    endpoint: z.object({ name: z.string().optional() }).partial().optional(),
    // The answer's key is pool_balancing_type, the request's pool_balancer_type (params.go L778, requests.go L48).
    pool_balancing_type: text,
    agent_mode: z.boolean().optional(),
  })
  .transform((e) => ({
    id: e.id,
    // Repositories have owner and name (§2.4); present them as owner/name like users write them.
    name: e.owner ? `${e.owner}/${e.name}` : e.name,
    credentials: e.credentials_name || e.credentials?.name || "",
    endpoint: e.endpoint?.name ?? "",
    // GARM stores "" when none was asked for and balances round-robin then (params.go L892-897).
    poolBalancerType: e.pool_balancing_type || "roundrobin",
    agentMode: e.agent_mode ?? false,
  }));
export type EntityView = z.output<typeof entitySchema>;

/** params.HookInfo (params/params.go L1342-1348): the entity's webhook as GARM sees it in GitHub. */
export const hookInfoSchema = z
  .object({ id: z.number().optional(), url: text, active: z.boolean().optional(), insecure_ssl: z.boolean().optional() })
  .transform((h) => ({ id: h.id ?? 0, url: h.url, active: h.active ?? false }));
export type HookInfo = z.output<typeof hookInfoSchema>;

/** params.ControllerInfo (params/params.go); every key is omitempty. */
export const controllerSchema = z
  .object({
    controller_id: z.string().optional(),
    metadata_url: z.string().optional(),
    callback_url: z.string().optional(),
    webhook_url: z.string().optional(),
    controller_webhook_url: z.string().optional(),
    minimum_job_age_backoff: z.number().optional(),
    version: z.string().optional(),
  })
  .transform((c) => ({
    controllerId: c.controller_id ?? "",
    metadataUrl: c.metadata_url ?? "",
    callbackUrl: c.callback_url ?? "",
    webhookUrl: c.webhook_url ?? "",
    controllerWebhookUrl: c.controller_webhook_url ?? "",
    minimumJobAgeBackoff: c.minimum_job_age_backoff ?? 0,
    version: c.version ?? "",
  }));
export type ControllerView = z.output<typeof controllerSchema>;

export type Forge = "github" | "gitea";

/** `ForgeEndpoint` (params.go L1451-1464): string keys are omitempty, `ca_cert_bundle` is base64 of the PEM text. */
export const endpointSchema = z
  .object({
    name: text,
    description: text,
    api_base_url: text,
    upload_base_url: text,
    base_url: text,
    ca_cert_bundle: text,
    endpoint_type: text,
    tools_metadata_url: text,
    use_internal_tools_metadata: z.boolean().optional(),
  })
  .transform((e) => ({
    name: e.name,
    description: e.description,
    apiBaseUrl: e.api_base_url,
    uploadBaseUrl: e.upload_base_url,
    baseUrl: e.base_url,
    caCertBundle: decodeBase64(e.ca_cert_bundle),
    forge: (e.endpoint_type || "github") as Forge,
  }));
export type EndpointView = z.output<typeof endpointSchema>;

/** `ForgeCredentials` (params.go L1109-1131); GET by id preloads the entities using it (database/sql/github.go L341-372). */
export const credentialsSchema = z
  .object({
    id: z.number().int(),
    name: text,
    description: text,
    "auth-type": text,
    forge_type: text,
    endpoint: z.object({ name: text }).partial().optional(),
    repositories: z.array(entitySchema).nullable().optional(),
    organizations: z.array(entitySchema).nullable().optional(),
    enterprises: z.array(entitySchema).nullable().optional(),
  })
  .transform((c) => ({
    id: c.id,
    name: c.name,
    description: c.description,
    authType: c["auth-type"],
    forge: (c.forge_type || "github") as Forge,
    endpoint: c.endpoint?.name ?? "",
    repositories: c.repositories ?? [],
    organizations: c.organizations ?? [],
    enterprises: c.enterprises ?? [],
  }));
export type CredentialsView = z.output<typeof credentialsSchema>;

/** A list answer: GARM sends `null` for an empty list. */
export function listOf<S extends z.ZodType>(item: S) {
  return z.array(item).nullable().transform((l): z.output<S>[] => l ?? []);
}
