// GARM's endpoint and credentials routes for GitHub and Gitea (apiserver/routers/routers.go L505-600), one typed call a
// row: the two forges differ only in their paths, so the client's forge methods serve both through this table.
import type { ApiResult } from "./answer";
import type { GarmApi, GarmSchemas } from "./spec";
import type { Forge } from "./views";

/**
 * What an endpoint create sends. GitHub's params have `upload_base_url`, Gitea's the tools metadata keys
 * (params/requests.go L315-322, L700-708); the caller sends only its forge's.
 */
export type EndpointCreate = GarmSchemas["CreateGithubEndpointParams"];
/** Only the keys given change (params/requests.go L383-389, L766-773). */
export type EndpointUpdate = GarmSchemas["UpdateGithubEndpointParams"];
export type CredentialsCreate = GarmSchemas["CreateGithubCredentialsParams"];
/** Gitea's update has no `app` (params/requests.go L860-864): Gitea credentials are tokens only. */
export type CredentialsUpdate = GarmSchemas["UpdateGithubCredentialsParams"];

type Call = Promise<ApiResult>;

export interface ForgeRoutes {
  listEndpoints(api: GarmApi): Call;
  getEndpoint(api: GarmApi, name: string): Call;
  createEndpoint(api: GarmApi, body: EndpointCreate): Call;
  updateEndpoint(api: GarmApi, name: string, body: EndpointUpdate): Call;
  deleteEndpoint(api: GarmApi, name: string): Call;
  listCredentials(api: GarmApi): Call;
  getCredentials(api: GarmApi, id: number): Call;
  createCredentials(api: GarmApi, body: CredentialsCreate): Call;
  updateCredentials(api: GarmApi, id: number, body: CredentialsUpdate): Call;
  deleteCredentials(api: GarmApi, id: number): Call;
}

const github: ForgeRoutes = {
  listEndpoints: (api) => api.GET("/github/endpoints"),
  getEndpoint: (api, name) => api.GET("/github/endpoints/{name}", { params: { path: { name } } }),
  createEndpoint: (api, body) => api.POST("/github/endpoints", { body }),
  updateEndpoint: (api, name, body) => api.PUT("/github/endpoints/{name}", { params: { path: { name } }, body }),
  deleteEndpoint: (api, name) => api.DELETE("/github/endpoints/{name}", { params: { path: { name } } }),
  listCredentials: (api) => api.GET("/github/credentials"),
  getCredentials: (api, id) => api.GET("/github/credentials/{id}", { params: { path: { id } } }),
  createCredentials: (api, body) => api.POST("/github/credentials", { body }),
  updateCredentials: (api, id, body) => api.PUT("/github/credentials/{id}", { params: { path: { id } }, body }),
  deleteCredentials: (api, id) => api.DELETE("/github/credentials/{id}", { params: { path: { id } } }),
};

const gitea: ForgeRoutes = {
  listEndpoints: (api) => api.GET("/gitea/endpoints"),
  getEndpoint: (api, name) => api.GET("/gitea/endpoints/{name}", { params: { path: { name } } }),
  createEndpoint: (api, body) => api.POST("/gitea/endpoints", { body }),
  updateEndpoint: (api, name, body) => api.PUT("/gitea/endpoints/{name}", { params: { path: { name } }, body }),
  deleteEndpoint: (api, name) => api.DELETE("/gitea/endpoints/{name}", { params: { path: { name } } }),
  listCredentials: (api) => api.GET("/gitea/credentials"),
  getCredentials: (api, id) => api.GET("/gitea/credentials/{id}", { params: { path: { id } } }),
  createCredentials: (api, body) => api.POST("/gitea/credentials", { body }),
  updateCredentials: (api, id, body) => api.PUT("/gitea/credentials/{id}", { params: { path: { id } }, body }),
  deleteCredentials: (api, id) => api.DELETE("/gitea/credentials/{id}", { params: { path: { id } } }),
};

export const FORGE_ROUTES: Record<Forge, ForgeRoutes> = { github, gitea };
