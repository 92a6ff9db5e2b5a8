// The GARM REST client: every call pulumi-garm asks GARM, typed by the served spec (spec.ts) through openapi-fetch over
// GarmTransport, answers parsed by the views in views.ts, HTTP failures thrown as GarmApiError naming the request.
import createClient from "openapi-fetch";
import { emptyAnswer, parsedAnswer } from "./answer";
import { type CreatePoolParams, type CreateScaleSetParams, ENTITY_ROUTES, type EntityCreate, type EntityFilter, type EntityUpdate } from "./entity-routes";
import { GarmApiError } from "./errors";
import { type CredentialsCreate, type CredentialsUpdate, type EndpointCreate, type EndpointUpdate, FORGE_ROUTES } from "./forge-routes";
import type { GarmApi, GarmPaths, GarmSchemas } from "./spec";
import { GarmTransport, type TransportOptions, WireRequest } from "./transport";
import {
  type EntityKind,
  type EntityView,
  type Forge,
  controllerSchema,
  credentialsSchema,
  endpointSchema,
  entitySchema,
  hookInfoSchema,
  instanceSchema,
  jobSchema,
  listOf,
  poolSchema,
  providerSchema,
  scaleSetSchema,
  templateDetailSchema,
  templateSchema,
} from "./views";
import { sameEndpointName, sameEntityName } from "./names";

/** `state` and `extended_state` are left out on purpose: GARM stores them verbatim and nothing reads them (§4.1). */
export type UpdateScaleSetParams = Omit<GarmSchemas["UpdateScaleSetParams"], "state" | "extended_state">;
/** What a template create or update sends; `data` is the body as base64 (params/requests.go L877-884, L910-914). */
export type TemplateWrite = GarmSchemas["CreateTemplateParams"];
export type UpdatePoolParams = GarmSchemas["UpdatePoolParams"];
export type UpdateControllerParams = GarmSchemas["UpdateControllerParams"];
export type { CreatePoolParams, CreateScaleSetParams, EntityCreate, EntityFilter, EntityUpdate } from "./entity-routes";
export type { CredentialsCreate, CredentialsUpdate, EndpointCreate, EndpointUpdate } from "./forge-routes";
export type {
  ControllerView,
  CredentialsView,
  EndpointView,
  EntityKind,
  EntityView,
  Forge,
  HookInfo,
  InstanceView,
  JobView,
  PoolView,
  ProviderView,
  ScaleSetView,
  TemplateDetailView,
  TemplateView,
} from "./views";

/** Where a scale set or pool lives: a GARM entity by its id. */
export interface EntityRef {
  readonly kind: EntityKind;
  readonly id: string;
}

export class GarmClient {
  readonly transport: GarmTransport;
  private readonly api: GarmApi;

  /** Where the URL was given (`garm:url`, or a resource's `garm.url`), for messages that tell the user what to change. */
  readonly urlSetting: string;

  constructor(options: TransportOptions & { readonly urlSetting?: string }) {
    this.transport = new GarmTransport(options);
    this.api = createClient<GarmPaths>(this.transport.fetchOptions);
    this.urlSetting = options.urlSetting ?? "garm:url";
  }

  /** For tests: a client whose requests `fetch` answers in process, through the same typed calls and views. */
  static inProcess(wire: { baseUrl: string; fetch: (request: WireRequest) => Promise<Response> }): GarmClient {
    const client = Object.create(GarmClient.prototype) as GarmClient;
    const fetch = wire.fetch as unknown as (input: Request) => Promise<Response>;
    const api = createClient<GarmPaths>({ baseUrl: wire.baseUrl, Request: WireRequest as unknown as typeof Request, fetch });
    return Object.assign(client, { transport: wire as unknown as GarmTransport, api, urlSetting: "garm:url" });
  }

  /** The GARM URL this client reaches, as garm:url gives it (without /api/v1): for messages. */
  get garmUrl(): string {
    return this.transport.baseUrl.replace(/\/api\/v1$/, "");
  }

  // Controller

  /** GET /controller, not the swagger's /controller-info: it answers before the controller's URLs are set (spec.ts). */
  getController() {
    return parsedAnswer("GET /controller", this.api.GET("/controller"), controllerSchema);
  }

  /** Absent keys leave a setting as it is (params/requests.go L548-558). */
  updateController(body: UpdateControllerParams) {
    return parsedAnswer("PUT /controller", this.api.PUT("/controller", { body }), controllerSchema);
  }

  listProviders() {
    return parsedAnswer("GET /providers", this.api.GET("/providers"), listOf(providerSchema));
  }

  // Scale sets

  /** All scale sets of all entities. List answers omit extra_specs and instances (§2.1): use getScaleSet for reads. */
  listScaleSets() {
    return parsedAnswer("GET /scalesets", this.api.GET("/scalesets"), listOf(scaleSetSchema));
  }

  listEntityScaleSets(entity: EntityRef) {
    const routes = ENTITY_ROUTES[entity.kind];
    return parsedAnswer(`GET /${routes.collection}/${entity.id}/scalesets`, routes.scaleSets(this.api, entity.id), listOf(scaleSetSchema));
  }

  getScaleSet(id: number) {
    const scalesetID = String(id);
    return parsedAnswer(`GET /scalesets/${id}`, this.api.GET("/scalesets/{scalesetID}", { params: { path: { scalesetID } } }), scaleSetSchema);
  }

  createScaleSet(entity: EntityRef, body: CreateScaleSetParams) {
    const routes = ENTITY_ROUTES[entity.kind];
    return parsedAnswer(`POST /${routes.collection}/${entity.id}/scalesets`, routes.createScaleSet(this.api, entity.id, body), scaleSetSchema);
  }

  updateScaleSet(id: number, body: UpdateScaleSetParams) {
    const path = { scalesetID: String(id) };
    return parsedAnswer(`PUT /scalesets/${id}`, this.api.PUT("/scalesets/{scalesetID}", { params: { path }, body }), scaleSetSchema);
  }

  /** A 200 does not mean it is gone: GARM answers 200 and keeps the scale set when its GitHub call fails (§5). */
  deleteScaleSet(id: number) {
    return emptyAnswer(`DELETE /scalesets/${id}`, this.api.DELETE("/scalesets/{scalesetID}", { params: { path: { scalesetID: String(id) } } }));
  }

  listScaleSetInstances(id: number) {
    const path = { scalesetID: String(id) };
    return parsedAnswer(`GET /scalesets/${id}/instances`, this.api.GET("/scalesets/{scalesetID}/instances", { params: { path } }), listOf(instanceSchema));
  }

  // Runners and jobs

  getInstance(name: string) {
    return parsedAnswer(`GET /instances/${name}`, this.api.GET("/instances/{instanceName}", { params: { path: { instanceName: name } } }), instanceSchema);
  }

  /** Query names are camelCase (§2.2). Removal is asynchronous: the runner goes pending_delete first (§6). */
  deleteInstance(name: string, options: { forceRemove?: boolean; bypassGHUnauthorized?: boolean } = {}) {
    const query: { forceRemove?: boolean; bypassGHUnauthorized?: boolean } = {};
    if (options.forceRemove) query.forceRemove = true;
    if (options.bypassGHUnauthorized) query.bypassGHUnauthorized = true;
    const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return emptyAnswer(
      `DELETE /instances/${name}${search ? `?${search}` : ""}`,
      this.api.DELETE("/instances/{instanceName}", { params: { path: { instanceName: name }, query } }),
    );
  }

  /** GARM's jobs table is a short-lived view, not a history (§7.7). */
  listJobs() {
    return parsedAnswer("GET /jobs", this.api.GET("/jobs"), listOf(jobSchema));
  }

  // Templates

  /** Templates, without their data; GARM filters by exact OS and forge type, and by a name part (§2.6). */
  listTemplates(osType?: string, forgeType?: string, partialName?: string) {
    return parsedAnswer("GET /templates", this.api.GET("/templates", { params: { query: { osType, forgeType, partialName } } }), listOf(templateSchema));
  }

  /** One template with its body (templates.go L44-53); 404 when GARM has no template of that id. */
  getTemplate(id: number) {
    return parsedAnswer(`GET /templates/${id}`, this.api.GET("/templates/{templateID}", { params: { path: { templateID: id } } }), templateDetailSchema);
  }

  createTemplate(body: TemplateWrite) {
    return parsedAnswer("POST /templates", this.api.POST("/templates", { body }), templateDetailSchema);
  }

  /** Only name, description and data can change (params/requests.go L910-914); an empty data leaves the body as it is. */
  updateTemplate(id: number, body: GarmSchemas["UpdateTemplateParams"]) {
    const path = { templateID: id };
    return parsedAnswer(`PUT /templates/${id}`, this.api.PUT("/templates/{templateID}", { params: { path }, body }), templateDetailSchema);
  }

  /** A missing template answers 200 too (runner/templates.go L182-193). */
  deleteTemplate(id: number) {
    return emptyAnswer(`DELETE /templates/${id}`, this.api.DELETE("/templates/{templateID}", { params: { path: { templateID: id } } }));
  }

  // Pools

  /** Tags are the pool's labels; runner_prefix, not a name (params/requests.go L204-225). */
  createPool(entity: EntityRef, body: CreatePoolParams) {
    const routes = ENTITY_ROUTES[entity.kind];
    return parsedAnswer(`POST /${routes.collection}/${entity.id}/pools`, routes.createPool(this.api, entity.id, body), poolSchema);
  }

  getPool(id: string) {
    return parsedAnswer(`GET /pools/${id}`, this.api.GET("/pools/{poolID}", { params: { path: { poolID: id } } }), poolSchema);
  }

  /** Empty strings, absent pointers and an empty tag list leave a field as it is (database/sql/util.go L580-677). */
  updatePool(id: string, body: UpdatePoolParams) {
    return parsedAnswer(`PUT /pools/${id}`, this.api.PUT("/pools/{poolID}", { params: { path: { poolID: id } }, body }), poolSchema);
  }

  /** A missing pool answers 200; one with runners 400 `pool has runners` (runner/pools.go L51-72). */
  deletePool(id: string) {
    return emptyAnswer(`DELETE /pools/${id}`, this.api.DELETE("/pools/{poolID}", { params: { path: { poolID: id } } }));
  }

  listPoolInstances(id: string) {
    return parsedAnswer(`GET /pools/${id}/instances`, this.api.GET("/pools/{poolID}/instances", { params: { path: { poolID: id } } }), listOf(instanceSchema));
  }

  listPools() {
    return parsedAnswer("GET /pools", this.api.GET("/pools"), listOf(poolSchema));
  }

  /** The entity's pools, read from GET /pools: each pool names the entity owning it (params/params.go L468-522). */
  async listEntityPools(entity: EntityRef) {
    const id = entity.id.toLowerCase();
    return (await this.listPools()).filter((p) => p.entity?.kind === entity.kind && p.entity.id.toLowerCase() === id);
  }

  // Organizations, repositories and enterprises

  /** Entities matching every filter given exactly (§2.4); an empty filter is not sent, GARM reads it as none. */
  listEntities(kind: EntityKind, filter: EntityFilter = {}) {
    const routes = ENTITY_ROUTES[kind];
    const given = { owner: filter.owner || undefined, name: filter.name || undefined, endpoint: filter.endpoint || undefined };
    return parsedAnswer(`GET /${routes.collection}`, routes.list(this.api, given), listOf(entitySchema));
  }

  /**
   * Entities GARM holds under this name, optionally under one endpoint (§2.4); repository names are owner/name. Names
   * compare as GARM's own look-up does, ignoring case (garm/names.ts); its `?name=` filter is exact, so it is not used.
   */
  async findEntities(kind: EntityKind, name: string, endpoint?: string): Promise<EntityView[]> {
    const all = await this.listEntities(kind, { endpoint });
    return all.filter((e) => sameEntityName(e.name, name) && (endpoint === undefined || sameEndpointName(e.endpoint, endpoint)));
  }

  getEntity(kind: EntityKind, id: string) {
    const routes = ENTITY_ROUTES[kind];
    return parsedAnswer(`GET /${routes.collection}/${id}`, routes.get(this.api, id), entitySchema);
  }

  createEntity(kind: EntityKind, body: EntityCreate) {
    const routes = ENTITY_ROUTES[kind];
    return parsedAnswer(`POST /${routes.collection}`, routes.create(this.api, body), entitySchema);
  }

  updateEntity(kind: EntityKind, id: string, body: EntityUpdate) {
    const routes = ENTITY_ROUTES[kind];
    return parsedAnswer(`PUT /${routes.collection}/${id}`, routes.update(this.api, id, body), entitySchema);
  }

  /** `keepWebhook` leaves the entity's GitHub webhook in place; enterprises have none (routers.go L384-394, L442-452). */
  deleteEntity(kind: EntityKind, id: string, keepWebhook: boolean) {
    const routes = ENTITY_ROUTES[kind];
    return emptyAnswer(`DELETE /${routes.collection}/${id}`, routes.delete(this.api, id, keepWebhook));
  }

  /** Installs GARM's webhook in GitHub, delivering to GARM directly (params.WebhookEndpointDirect, params/params.go L97). */
  installWebhook(kind: EntityKind, id: string) {
    const request = `POST /${ENTITY_ROUTES[kind].collection}/${id}/webhook`;
    return parsedAnswer(request, this.webhookRoutes(kind, request).install(this.api, id, { webhook_endpoint_type: "direct" }), hookInfoSchema);
  }

  uninstallWebhook(kind: EntityKind, id: string) {
    const request = `DELETE /${ENTITY_ROUTES[kind].collection}/${id}/webhook`;
    return emptyAnswer(request, this.webhookRoutes(kind, request).uninstall(this.api, id));
  }

  getWebhook(kind: EntityKind, id: string) {
    const request = `GET /${ENTITY_ROUTES[kind].collection}/${id}/webhook`;
    return parsedAnswer(request, this.webhookRoutes(kind, request).info(this.api, id), hookInfoSchema);
  }

  private webhookRoutes(kind: EntityKind, request: string) {
    const routes = ENTITY_ROUTES[kind].webhook;
    // What GARM's catch-all would answer; check refuses webhooks for an enterprise before anything asks.
    if (routes === undefined) throw new GarmApiError("unknown-route", request, undefined, "no such route", `GARM has no webhook routes for ${kind}s`);
    return routes;
  }

  // Forge endpoints and credentials

  listEndpoints(forge: Forge) {
    return parsedAnswer(`GET /${forge}/endpoints`, FORGE_ROUTES[forge].listEndpoints(this.api), listOf(endpointSchema));
  }

  getEndpoint(forge: Forge, name: string) {
    return parsedAnswer(`GET /${forge}/endpoints/${name}`, FORGE_ROUTES[forge].getEndpoint(this.api, name), endpointSchema);
  }

  createEndpoint(forge: Forge, body: EndpointCreate) {
    return parsedAnswer(`POST /${forge}/endpoints`, FORGE_ROUTES[forge].createEndpoint(this.api, body), endpointSchema);
  }

  updateEndpoint(forge: Forge, name: string, body: EndpointUpdate) {
    return parsedAnswer(`PUT /${forge}/endpoints/${name}`, FORGE_ROUTES[forge].updateEndpoint(this.api, name, body), endpointSchema);
  }

  /** GARM answers 204 also when the endpoint does not exist (database/sql/github.go L183-186). */
  deleteEndpoint(forge: Forge, name: string) {
    return emptyAnswer(`DELETE /${forge}/endpoints/${name}`, FORGE_ROUTES[forge].deleteEndpoint(this.api, name));
  }

  /** Secrets are only ever sent: GARM never answers with a token or key. */
  listCredentials(forge: Forge) {
    return parsedAnswer(`GET /${forge}/credentials`, FORGE_ROUTES[forge].listCredentials(this.api), listOf(credentialsSchema));
  }

  /** With the repositories, organizations and enterprises that use them (a detailed read). */
  getCredentials(forge: Forge, id: number) {
    return parsedAnswer(`GET /${forge}/credentials/${id}`, FORGE_ROUTES[forge].getCredentials(this.api, id), credentialsSchema);
  }

  createCredentials(forge: Forge, body: CredentialsCreate) {
    return parsedAnswer(`POST /${forge}/credentials`, FORGE_ROUTES[forge].createCredentials(this.api, body), credentialsSchema);
  }

  updateCredentials(forge: Forge, id: number, body: CredentialsUpdate) {
    return parsedAnswer(`PUT /${forge}/credentials/${id}`, FORGE_ROUTES[forge].updateCredentials(this.api, id, body), credentialsSchema);
  }

  /** GARM answers 204 also when the credentials do not exist (database/sql/github.go L508-512). */
  deleteCredentials(forge: Forge, id: number) {
    return emptyAnswer(`DELETE /${forge}/credentials/${id}`, FORGE_ROUTES[forge].deleteCredentials(this.api, id));
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

// The parts of the client each area of the provider uses, so a kind's dependencies say what it asks GARM.

export type ControllerCalls = Pick<GarmClient, "getController" | "updateController">;

export type EntityCalls = Pick<
  GarmClient,
  | "listEntities"
  | "getEntity"
  | "createEntity"
  | "updateEntity"
  | "deleteEntity"
  | "installWebhook"
  | "uninstallWebhook"
  | "getWebhook"
  | "listEntityScaleSets"
  | "listEntityPools"
  | "listCredentials"
>;

export type ForgeCalls = Pick<
  GarmClient,
  | "listEndpoints"
  | "getEndpoint"
  | "createEndpoint"
  | "updateEndpoint"
  | "deleteEndpoint"
  | "listCredentials"
  | "getCredentials"
  | "createCredentials"
  | "updateCredentials"
  | "deleteCredentials"
  | "listEntities"
>;
