// The GARM REST client the resources use: typed requests through openapi-fetch over GarmTransport, answers
// normalised through the zod views in schemas.ts, and HTTP failures thrown as GarmApiError.
import createClient from "openapi-fetch";
import { z } from "zod";
import type { components, paths } from "./generated/garm-api";
import { emptyAnswer, parsedAnswer } from "./answer";
import {
  type EntityKind,
  type EntityView,
  controllerSchema,
  entitySchema,
  instanceSchema,
  jobSchema,
  poolSchema,
  providerSchema,
  scaleSetSchema,
  templateDetailSchema,
  templateSchema,
} from "./views";
import { sameEndpointName, sameEntityName } from "./names";
import { GarmTransport, type TransportOptions } from "./transport";

export type CreateScaleSetParams = components["schemas"]["CreateScaleSetParams"];
/** `state` and `extended_state` are left out on purpose: GARM stores them verbatim and nothing reads them (§4.1). */
export type UpdateScaleSetParams = Omit<components["schemas"]["UpdateScaleSetParams"], "state" | "extended_state">;
/** What a template create or update sends; `data` is the body as base64, which the spec wrongly types as a number array. */
export interface TemplateWrite {
  name?: string;
  description?: string;
  os_type?: string;
  forge_type?: string;
  /** base64 of the body: GARM's `Data []byte` (params/requests.go L877-884, L910-914). */
  data?: string;
}
export type { TemplateView, TemplateDetailView } from "./views";
export type CreatePoolParams = components["schemas"]["CreatePoolParams"];
export type UpdatePoolParams = components["schemas"]["UpdatePoolParams"];
export type { ScaleSetView, InstanceView, JobView, ProviderView, PoolView, EntityView, EntityKind } from "./views";

/** Where a scale set lives: a GARM entity by its id. */
export interface EntityRef {
  readonly kind: EntityKind;
  readonly id: string;
}

const ENTITY_COLLECTION: Record<EntityKind, "organizations" | "repositories" | "enterprises"> = {
  organization: "organizations",
  repository: "repositories",
  enterprise: "enterprises",
};

export class GarmClient {
  readonly transport: GarmTransport;
  private readonly api: ReturnType<typeof createClient<paths>>;

  constructor(options: TransportOptions) {
    this.transport = new GarmTransport(options);
    this.api = createClient<paths>(this.transport.fetchOptions);
  }

  /** The spec has no GET /controller, so this reads the legacy alias, which answers the same struct (§1.6). */
  controllerInfo() {
    return parsedAnswer("GET /controller-info", this.api.GET("/controller-info"), controllerSchema);
  }

  listProviders() {
    return parsedAnswer("GET /providers", this.api.GET("/providers"), z.array(providerSchema).nullable().transform((l) => l ?? []));
  }

  /** All scale sets of all entities. List answers omit extra_specs and instances (§2.1): use getScaleSet for reads. */
  listScaleSets() {
    return parsedAnswer("GET /scalesets", this.api.GET("/scalesets"), z.array(scaleSetSchema).nullable().transform((l) => l ?? []));
  }

  listEntityScaleSets(entity: EntityRef) {
    const request = `GET /${ENTITY_COLLECTION[entity.kind]}/${entity.id}/scalesets`;
    const list = z.array(scaleSetSchema).nullable().transform((l) => l ?? []);
    switch (entity.kind) {
      case "organization":
        return parsedAnswer(request, this.api.GET("/organizations/{orgID}/scalesets", { params: { path: { orgID: entity.id } } }), list);
      case "repository":
        return parsedAnswer(request, this.api.GET("/repositories/{repoID}/scalesets", { params: { path: { repoID: entity.id } } }), list);
      case "enterprise":
        return parsedAnswer(
          request,
          this.api.GET("/enterprises/{enterpriseID}/scalesets", { params: { path: { enterpriseID: entity.id } } }),
          list,
        );
    }
  }

  getScaleSet(id: number) {
    return parsedAnswer(
      `GET /scalesets/${id}`,
      this.api.GET("/scalesets/{scalesetID}", { params: { path: { scalesetID: String(id) } } }),
      scaleSetSchema,
    );
  }

  createScaleSet(entity: EntityRef, body: CreateScaleSetParams) {
    const request = `POST /${ENTITY_COLLECTION[entity.kind]}/${entity.id}/scalesets`;
    switch (entity.kind) {
      case "organization":
        return parsedAnswer(request, this.api.POST("/organizations/{orgID}/scalesets", { params: { path: { orgID: entity.id } }, body }), scaleSetSchema);
      case "repository":
        return parsedAnswer(request, this.api.POST("/repositories/{repoID}/scalesets", { params: { path: { repoID: entity.id } }, body }), scaleSetSchema);
      case "enterprise":
        return parsedAnswer(
          request,
          this.api.POST("/enterprises/{enterpriseID}/scalesets", { params: { path: { enterpriseID: entity.id } }, body }),
          scaleSetSchema,
        );
    }
  }

  updateScaleSet(id: number, body: UpdateScaleSetParams) {
    return parsedAnswer(
      `PUT /scalesets/${id}`,
      this.api.PUT("/scalesets/{scalesetID}", { params: { path: { scalesetID: String(id) } }, body }),
      scaleSetSchema,
    );
  }

  /** A 200 does not mean it is gone: GARM answers 200 and keeps the scale set when its GitHub call fails (§5). */
  deleteScaleSet(id: number) {
    return emptyAnswer(`DELETE /scalesets/${id}`, this.api.DELETE("/scalesets/{scalesetID}", { params: { path: { scalesetID: String(id) } } }));
  }

  listScaleSetInstances(id: number) {
    return parsedAnswer(
      `GET /scalesets/${id}/instances`,
      this.api.GET("/scalesets/{scalesetID}/instances", { params: { path: { scalesetID: String(id) } } }),
      z.array(instanceSchema).nullable().transform((l) => l ?? []),
    );
  }

  getInstance(name: string) {
    return parsedAnswer(
      `GET /instances/${name}`,
      this.api.GET("/instances/{instanceName}", { params: { path: { instanceName: name } } }),
      instanceSchema,
    );
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

  /** Templates, without their data; GARM filters by exact OS and forge type, and by a name part (§2.6). */
  listTemplates(osType?: string, forgeType?: string, partialName?: string) {
    return parsedAnswer(
      "GET /templates",
      this.api.GET("/templates", { params: { query: { osType, forgeType, partialName } } }),
      z.array(templateSchema).nullable().transform((l) => l ?? []),
    );
  }

  /** One template with its body (templates.go L44-53); 404 when GARM has no template of that id. */
  getTemplate(id: number) {
    return parsedAnswer(
      `GET /templates/${id}`,
      this.api.GET("/templates/{templateID}", { params: { path: { templateID: id } } }),
      templateDetailSchema,
    );
  }

  createTemplate(body: TemplateWrite) {
    return parsedAnswer("POST /templates", this.api.POST("/templates", { body: body as never }), templateDetailSchema);
  }

  /** Only name, description and data can change (params/requests.go L910-914); an empty data leaves the body as it is. */
  updateTemplate(id: number, body: Pick<TemplateWrite, "name" | "description" | "data">) {
    return parsedAnswer(
      `PUT /templates/${id}`,
      this.api.PUT("/templates/{templateID}", { params: { path: { templateID: id } }, body: body as never }),
      templateDetailSchema,
    );
  }

  /** A missing template answers 200 too (runner/templates.go L182-193). */
  deleteTemplate(id: number) {
    return emptyAnswer(`DELETE /templates/${id}`, this.api.DELETE("/templates/{templateID}", { params: { path: { templateID: id } } }));
  }

  /** GARM's jobs table is a short-lived view, not a history (§7.7). */
  listJobs() {
    return parsedAnswer("GET /jobs", this.api.GET("/jobs"), z.array(jobSchema).nullable().transform((l) => l ?? []));
  }

  /** Tags are the pool's labels; runner_prefix, not a name (params/requests.go L204-225). */
  createPool(entity: EntityRef, body: CreatePoolParams) {
    const request = `POST /${ENTITY_COLLECTION[entity.kind]}/${entity.id}/pools`;
    switch (entity.kind) {
      case "organization":
        return parsedAnswer(request, this.api.POST("/organizations/{orgID}/pools", { params: { path: { orgID: entity.id } }, body }), poolSchema);
      case "repository":
        return parsedAnswer(request, this.api.POST("/repositories/{repoID}/pools", { params: { path: { repoID: entity.id } }, body }), poolSchema);
      case "enterprise":
        return parsedAnswer(
          request,
          this.api.POST("/enterprises/{enterpriseID}/pools", { params: { path: { enterpriseID: entity.id } }, body }),
          poolSchema,
        );
    }
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
    return parsedAnswer(
      `GET /pools/${id}/instances`,
      this.api.GET("/pools/{poolID}/instances", { params: { path: { poolID: id } } }),
      z.array(instanceSchema).nullable().transform((l) => l ?? []),
    );
  }

  listPools() {
    return parsedAnswer("GET /pools", this.api.GET("/pools"), z.array(poolSchema).nullable().transform((l) => l ?? []));
  }

  /**
   * Entities GARM holds under this name, optionally under one endpoint (§2.4); repository names are owner/name. Names
   * compare as GARM's own look-up does, ignoring case (garm/names.ts); its `?name=` filter is exact, so it is not used.
   */
  async findEntities(kind: EntityKind, name: string, endpoint?: string): Promise<EntityView[]> {
    const list = z.array(entitySchema).nullable().transform((l) => l ?? []);
    const query = { params: { query: endpoint === undefined ? {} : { endpoint } } };
    const all =
      kind === "organization"
        ? await parsedAnswer("GET /organizations", this.api.GET("/organizations", query), list)
        : kind === "enterprise"
          ? await parsedAnswer("GET /enterprises", this.api.GET("/enterprises", query), list)
          : await parsedAnswer("GET /repositories", this.api.GET("/repositories", query), list);
    return all.filter((e) => sameEntityName(e.name, name) && (endpoint === undefined || sameEndpointName(e.endpoint, endpoint)));
  }

  getEntity(kind: EntityKind, id: string) {
    switch (kind) {
      case "organization":
        return parsedAnswer(`GET /organizations/${id}`, this.api.GET("/organizations/{orgID}", { params: { path: { orgID: id } } }), entitySchema);
      case "repository":
        return parsedAnswer(`GET /repositories/${id}`, this.api.GET("/repositories/{repoID}", { params: { path: { repoID: id } } }), entitySchema);
      case "enterprise":
        return parsedAnswer(
          `GET /enterprises/${id}`,
          this.api.GET("/enterprises/{enterpriseID}", { params: { path: { enterpriseID: id } } }),
          entitySchema,
        );
    }
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

