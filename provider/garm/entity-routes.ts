// GARM's organization, repository and enterprise routes, one typed call a row: the three kinds differ only in their
// paths (and in which filters and options a route reads), so the client's entity methods serve all three through this.
import type { ApiResult } from "./answer";
import type { GarmApi, GarmSchemas } from "./spec";
import type { EntityKind } from "./views";

/**
 * What a create sends; `owner` is read for repositories only (params/requests.go L43-51). GARM refuses a create without
 * a name, credentials or webhook secret (L53-67), so those are required here though the swagger marks nothing required.
 */
export type EntityCreate = GarmSchemas["CreateRepoParams"] &
  Required<Pick<GarmSchemas["CreateRepoParams"], "name" | "credentials_name" | "webhook_secret">>;
/** params.UpdateEntityParams (params/requests.go L300-306): empty strings and absent keys leave a field as it is. */
export type EntityUpdate = GarmSchemas["UpdateEntityParams"];
export type CreateScaleSetParams = GarmSchemas["CreateScaleSetParams"];
export type CreatePoolParams = GarmSchemas["CreatePoolParams"];

/** The list filters GARM matches exactly; `owner` is a repository's only. */
export interface EntityFilter {
  readonly owner?: string;
  readonly name?: string;
  readonly endpoint?: string;
}

type Call = Promise<ApiResult>;

interface WebhookRoutes {
  install(api: GarmApi, id: string, body: GarmSchemas["InstallWebhookParams"]): Call;
  uninstall(api: GarmApi, id: string): Call;
  info(api: GarmApi, id: string): Call;
}

export interface EntityRoutes {
  /** The path segment, which request labels name. */
  readonly collection: "organizations" | "repositories" | "enterprises";
  list(api: GarmApi, filter: EntityFilter): Call;
  get(api: GarmApi, id: string): Call;
  create(api: GarmApi, body: EntityCreate): Call;
  update(api: GarmApi, id: string, body: EntityUpdate): Call;
  /**
   * `keepWebhook` is read for organizations and repositories only (apiserver/controllers/organizations.go L184,
   * apiserver/controllers/repositories.go L191).
   */
  delete(api: GarmApi, id: string, keepWebhook: boolean): Call;
  scaleSets(api: GarmApi, id: string): Call;
  createScaleSet(api: GarmApi, id: string, body: CreateScaleSetParams): Call;
  createPool(api: GarmApi, id: string, body: CreatePoolParams): Call;
  /** Absent for enterprises: GARM has webhook routes for organizations and repositories only (routers.go L384-394, L442-452). */
  readonly webhook?: WebhookRoutes;
}

const organization: EntityRoutes = {
  collection: "organizations",
  list: (api, f) => api.GET("/organizations", { params: { query: { name: f.name, endpoint: f.endpoint } } }),
  get: (api, orgID) => api.GET("/organizations/{orgID}", { params: { path: { orgID } } }),
  create: (api, body) => api.POST("/organizations", { body }),
  update: (api, orgID, body) => api.PUT("/organizations/{orgID}", { params: { path: { orgID } }, body }),
  delete: (api, orgID, keepWebhook) => api.DELETE("/organizations/{orgID}", { params: { path: { orgID }, query: { keepWebhook } } }),
  scaleSets: (api, orgID) => api.GET("/organizations/{orgID}/scalesets", { params: { path: { orgID } } }),
  createScaleSet: (api, orgID, body) => api.POST("/organizations/{orgID}/scalesets", { params: { path: { orgID } }, body }),
  createPool: (api, orgID, body) => api.POST("/organizations/{orgID}/pools", { params: { path: { orgID } }, body }),
  webhook: {
    install: (api, orgID, body) => api.POST("/organizations/{orgID}/webhook", { params: { path: { orgID } }, body }),
    uninstall: (api, orgID) => api.DELETE("/organizations/{orgID}/webhook", { params: { path: { orgID } } }),
    info: (api, orgID) => api.GET("/organizations/{orgID}/webhook", { params: { path: { orgID } } }),
  },
};

const repository: EntityRoutes = {
  collection: "repositories",
  list: (api, f) => api.GET("/repositories", { params: { query: { owner: f.owner, name: f.name, endpoint: f.endpoint } } }),
  get: (api, repoID) => api.GET("/repositories/{repoID}", { params: { path: { repoID } } }),
  create: (api, body) => api.POST("/repositories", { body }),
  update: (api, repoID, body) => api.PUT("/repositories/{repoID}", { params: { path: { repoID } }, body }),
  delete: (api, repoID, keepWebhook) => api.DELETE("/repositories/{repoID}", { params: { path: { repoID }, query: { keepWebhook } } }),
  scaleSets: (api, repoID) => api.GET("/repositories/{repoID}/scalesets", { params: { path: { repoID } } }),
  createScaleSet: (api, repoID, body) => api.POST("/repositories/{repoID}/scalesets", { params: { path: { repoID } }, body }),
  createPool: (api, repoID, body) => api.POST("/repositories/{repoID}/pools", { params: { path: { repoID } }, body }),
  webhook: {
    install: (api, repoID, body) => api.POST("/repositories/{repoID}/webhook", { params: { path: { repoID } }, body }),
    uninstall: (api, repoID) => api.DELETE("/repositories/{repoID}/webhook", { params: { path: { repoID } } }),
    info: (api, repoID) => api.GET("/repositories/{repoID}/webhook", { params: { path: { repoID } } }),
  },
};

const enterprise: EntityRoutes = {
  collection: "enterprises",
  list: (api, f) => api.GET("/enterprises", { params: { query: { name: f.name, endpoint: f.endpoint } } }),
  get: (api, enterpriseID) => api.GET("/enterprises/{enterpriseID}", { params: { path: { enterpriseID } } }),
  create: (api, body) => api.POST("/enterprises", { body }),
  update: (api, enterpriseID, body) => api.PUT("/enterprises/{enterpriseID}", { params: { path: { enterpriseID } }, body }),
  delete: (api, enterpriseID) => api.DELETE("/enterprises/{enterpriseID}", { params: { path: { enterpriseID } } }),
  scaleSets: (api, enterpriseID) => api.GET("/enterprises/{enterpriseID}/scalesets", { params: { path: { enterpriseID } } }),
  createScaleSet: (api, enterpriseID, body) => api.POST("/enterprises/{enterpriseID}/scalesets", { params: { path: { enterpriseID } }, body }),
  createPool: (api, enterpriseID, body) => api.POST("/enterprises/{enterpriseID}/pools", { params: { path: { enterpriseID } }, body }),
};

export const ENTITY_ROUTES: Record<EntityKind, EntityRoutes> = { organization, repository, enterprise };
