// GARM's organization, repository and enterprise routes (garm-behaviour.md §2.4) and their webhook routes, over the shared
// transport of a GarmClient: one set of calls for the three kinds, which differ only in their path segment.
import { z } from "zod";
import type { EntityKind, GarmClient } from "../../garm/client";
import type { Forge } from "../../common/forges";
import { garmCall } from "../../garm/raw-call";
import { sameCredentialsName } from "../../garm/names";

export const COLLECTION: Record<EntityKind, "organizations" | "repositories" | "enterprises"> = {
  organization: "organizations",
  repository: "repositories",
  enterprise: "enterprises",
};

const text = z.string().optional().transform((s) => s ?? "");

/** An entity as GARM answers it (params/params.go L760-900); `webhook_secret` is never sent back (json:"-"). */
export const entityDetailSchema = z
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
    name: e.owner ? `${e.owner}/${e.name}` : e.name,
    credentials: e.credentials_name || e.credentials?.name || "",
    endpoint: e.endpoint?.name ?? "",
    // GARM stores "" when none was asked for and balances round-robin then (params.go L892-897).
    poolBalancerType: e.pool_balancing_type || "roundrobin",
    agentMode: e.agent_mode ?? false,
  }));
export type EntityDetail = z.output<typeof entityDetailSchema>;

/** params.HookInfo (params/params.go L1342-1348). */
export const hookInfoSchema = z
  .object({ id: z.number().optional(), url: text, active: z.boolean().optional(), insecure_ssl: z.boolean().optional() })
  .transform((h) => ({ id: h.id ?? 0, url: h.url, active: h.active ?? false }));
export type HookInfo = z.output<typeof hookInfoSchema>;

const dependentSchema = z
  .object({ id: z.union([z.string(), z.number()]), name: z.string().optional(), provider_name: z.string().optional() })
  .transform((d) => ({ id: String(d.id), name: d.name ?? "", providerName: d.provider_name ?? "" }));
export type Dependent = z.output<typeof dependentSchema>;

const credentialsSchema = z.object({ name: z.string(), endpoint: z.object({ name: z.string().optional() }).partial().optional() });

const poolOwnerSchema = z.object({
  id: z.string(),
  provider_name: z.string().optional(),
  org_id: z.string().optional(),
  repo_id: z.string().optional(),
  enterprise_id: z.string().optional(),
});
const OWNER_KEY = { organization: "org_id", repository: "repo_id", enterprise: "enterprise_id" } as const;

/** Credentials as an entity's create resolves them. */
export interface ForgeCredentials {
  forge: Forge;
  /** GARM's spelling of the name. */
  name: string;
  endpoint: string;
}

export interface CreateEntityBody {
  name: string;
  owner?: string;
  credentials_name: string;
  /** Which forge's credentials; organizations and repositories only (params/requests.go L48, L91). */
  forge_type?: Forge;
  webhook_secret: string;
  pool_balancer_type?: string;
  agent_mode?: boolean;
}

/** params.UpdateEntityParams (params/requests.go L300-306): empty strings and absent keys leave a field as it is. */
export interface UpdateEntityBody {
  credentials_name?: string;
  webhook_secret?: string;
  pool_balancer_type?: string;
  agent_mode?: boolean;
}

type Client = Pick<GarmClient, "transport">;

/** The entity calls of one client. Every method throws GarmApiError for an HTTP error. */
export class EntityApi {
  constructor(private readonly client: Client) {}

  list(kind: EntityKind, query: Record<string, string>) {
    const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== "")).toString();
    const path = `/${COLLECTION[kind]}${search ? `?${search}` : ""}`;
    return this.call("GET", path, undefined, z.array(entityDetailSchema).nullable().transform((l) => l ?? []));
  }

  get(kind: EntityKind, id: string) {
    return this.call("GET", `/${COLLECTION[kind]}/${id}`, undefined, entityDetailSchema);
  }

  create(kind: EntityKind, body: CreateEntityBody) {
    return this.call("POST", `/${COLLECTION[kind]}`, body, entityDetailSchema);
  }

  update(kind: EntityKind, id: string, body: UpdateEntityBody) {
    return this.call("PUT", `/${COLLECTION[kind]}/${id}`, body, entityDetailSchema);
  }

  /** `keepWebhook` is read for organizations and repositories only (apiserver/controllers/organizations.go L184). */
  delete(kind: EntityKind, id: string, keepWebhook: boolean) {
    const query = kind === "enterprise" ? "" : `?keepWebhook=${keepWebhook}`;
    return this.call("DELETE", `/${COLLECTION[kind]}/${id}${query}`, undefined, undefined);
  }

  scaleSets(kind: EntityKind, id: string) {
    return this.call("GET", `/${COLLECTION[kind]}/${id}/scalesets`, undefined, z.array(dependentSchema).nullable().transform((l) => l ?? []));
  }

  /** The entity's pools, from GET /pools: its pools carry the owning entity's id (params.Pool, params/params.go). */
  async pools(kind: EntityKind, id: string) {
    const all = await this.call("GET", "/pools", undefined, z.array(poolOwnerSchema).nullable().transform((l) => l ?? []));
    const key = OWNER_KEY[kind];
    return all.filter((p) => p[key]?.toLowerCase() === id.toLowerCase()).map((p) => ({ id: p.id, name: "", providerName: p.provider_name ?? "" }));
  }

  installWebhook(kind: EntityKind, id: string) {
    return this.call("POST", `/${COLLECTION[kind]}/${id}/webhook`, { webhook_endpoint_type: "direct" }, hookInfoSchema);
  }

  uninstallWebhook(kind: EntityKind, id: string) {
    return this.call("DELETE", `/${COLLECTION[kind]}/${id}/webhook`, undefined, undefined);
  }

  webhookInfo(kind: EntityKind, id: string) {
    return this.call("GET", `/${COLLECTION[kind]}/${id}/webhook`, undefined, hookInfoSchema);
  }

  /**
   * The credentials of this name on each forge an entity of this kind can use: GitHub and Gitea for organizations and
   * repositories, GitHub only for enterprises (runner/enterprises.go L41). GARM looks names up ignoring case (the
   * credentials tables' name columns are collate nocase, database/sql/models.go L483, L510), and each forge's names
   * are unique on their own, so the answer holds at most one per forge.
   */
  async credentialsNamed(kind: EntityKind, name: string): Promise<ForgeCredentials[]> {
    const list = z.array(credentialsSchema).nullable().transform((l) => l ?? []);
    const forges: Forge[] = kind === "enterprise" ? ["github"] : ["github", "gitea"];
    const found: ForgeCredentials[] = [];
    for (const forge of forges) {
      const match = (await this.call("GET", `/${forge}/credentials`, undefined, list)).find((c) => sameCredentialsName(c.name, name));
      if (match) found.push({ forge, name: match.name, endpoint: match.endpoint?.name ?? "" });
    }
    return found;
  }

  private call<S extends z.ZodType>(method: string, path: string, body: unknown, schema: S): Promise<z.output<S>>;
  private call(method: string, path: string, body: unknown, schema: undefined): Promise<void>;
  private call(method: string, path: string, body: unknown, schema: z.ZodType | undefined): Promise<unknown> {
    return garmCall(this.client.transport, method, path, body, schema);
  }
}

const byClient = new WeakMap<object, EntityApi>();

/** The entity calls over this client's transport. */
export function entityApi(client: Client): EntityApi {
  let api = byClient.get(client);
  if (!api) {
    api = new EntityApi(client);
    byClient.set(client, api);
  }
  return api;
}
