// GARM's forge endpoint and credentials routes, for GitHub and Gitea, over the client's transport (garm-behaviour.md §2.5;
// routers.go L505-600 of v0.2.1). Answers are normalised through zod; secrets are only ever sent, never read back.
import createClient from "openapi-fetch";
import { z } from "zod";
import type { GarmClient } from "./client";
import { emptyAnswer, parsedAnswer } from "./answer";
import type { paths } from "./generated/garm-api";

export type Forge = "github" | "gitea";

const text = z.string().optional().transform((s) => s ?? "");

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
    caCertBundle: e.ca_cert_bundle ? Buffer.from(e.ca_cert_bundle, "base64").toString("utf8") : "",
    forge: (e.endpoint_type || "github") as Forge,
  }));
export type EndpointView = z.output<typeof endpointSchema>;

const entityRef = z
  .object({ id: z.string(), name: text, owner: z.string().optional() })
  .transform((e) => ({ id: e.id, name: e.owner ? `${e.owner}/${e.name}` : e.name }));

/** `ForgeCredentials` (params.go L1109-1131); GET by id preloads the entities using it (database/sql/github.go L341-372). */
export const credentialsSchema = z
  .object({
    id: z.number().int(),
    name: text,
    description: text,
    "auth-type": text,
    forge_type: text,
    endpoint: z.object({ name: text }).partial().optional(),
    repositories: z.array(entityRef).nullable().optional(),
    organizations: z.array(entityRef).nullable().optional(),
    enterprises: z.array(entityRef).nullable().optional(),
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

export interface EndpointBody {
  name?: string;
  description?: string;
  api_base_url?: string;
  upload_base_url?: string;
  base_url?: string;
  /** base64 of the PEM text */
  ca_cert_bundle?: string;
}

export interface CredentialsBody {
  name?: string;
  description?: string;
  endpoint?: string;
  auth_type?: "pat" | "app";
  pat?: { oauth2_token: string };
  /** `private_key_bytes` is base64 of the PEM text */
  app?: { app_id: number; installation_id: number; private_key_bytes: string };
}

export type EntityKindPlural = "organizations" | "repositories" | "enterprises";

const list = <S extends z.ZodType>(item: S) => z.array(item).nullable().transform((l) => l ?? []);

/** The forge routes of one GARM client. Request labels name the route, never a body. */
export class ForgeApi {
  private readonly api: ReturnType<typeof createClient<paths>>;

  constructor(client: GarmClient) {
    this.api = createClient<paths>(client.transport.fetchOptions);
  }

  listEndpoints(forge: Forge) {
    const request = `GET /${forge}/endpoints`;
    const path = forge === "github" ? "/github/endpoints" : "/gitea/endpoints";
    return parsedAnswer(request, this.api.GET(path), list(endpointSchema));
  }

  getEndpoint(forge: Forge, name: string) {
    const request = `GET /${forge}/endpoints/${name}`;
    const params = { params: { path: { name } } };
    const pending = forge === "github" ? this.api.GET("/github/endpoints/{name}", params) : this.api.GET("/gitea/endpoints/{name}", params);
    return parsedAnswer(request, pending, endpointSchema);
  }

  createEndpoint(forge: Forge, body: EndpointBody) {
    const request = `POST /${forge}/endpoints`;
    // []byte is base64 text on the wire; the generated type says number[].
    const wire = body as never;
    const pending = forge === "github" ? this.api.POST("/github/endpoints", { body: wire }) : this.api.POST("/gitea/endpoints", { body: wire });
    return parsedAnswer(request, pending, endpointSchema);
  }

  updateEndpoint(forge: Forge, name: string, body: EndpointBody) {
    const request = `PUT /${forge}/endpoints/${name}`;
    const init = { params: { path: { name } }, body: body as never };
    const pending = forge === "github" ? this.api.PUT("/github/endpoints/{name}", init) : this.api.PUT("/gitea/endpoints/{name}", init);
    return parsedAnswer(request, pending, endpointSchema);
  }

  /** GARM answers 204 also when the endpoint does not exist (database/sql/github.go L183-186). */
  deleteEndpoint(forge: Forge, name: string) {
    const request = `DELETE /${forge}/endpoints/${name}`;
    const params = { params: { path: { name } } };
    const pending =
      forge === "github" ? this.api.DELETE("/github/endpoints/{name}", params) : this.api.DELETE("/gitea/endpoints/{name}", params);
    return emptyAnswer(request, pending);
  }

  listCredentials(forge: Forge) {
    const request = `GET /${forge}/credentials`;
    const path = forge === "github" ? "/github/credentials" : "/gitea/credentials";
    return parsedAnswer(request, this.api.GET(path), list(credentialsSchema));
  }

  /** With the repositories, organizations and enterprises that use them (a detailed read). */
  getCredentials(forge: Forge, id: number) {
    const request = `GET /${forge}/credentials/${id}`;
    const params = { params: { path: { id } } };
    const pending = forge === "github" ? this.api.GET("/github/credentials/{id}", params) : this.api.GET("/gitea/credentials/{id}", params);
    return parsedAnswer(request, pending, credentialsSchema);
  }

  createCredentials(forge: Forge, body: CredentialsBody) {
    const request = `POST /${forge}/credentials`;
    const wire = body as never;
    const pending = forge === "github" ? this.api.POST("/github/credentials", { body: wire }) : this.api.POST("/gitea/credentials", { body: wire });
    return parsedAnswer(request, pending, credentialsSchema);
  }

  updateCredentials(forge: Forge, id: number, body: CredentialsBody) {
    const request = `PUT /${forge}/credentials/${id}`;
    const init = { params: { path: { id } }, body: body as never };
    const pending = forge === "github" ? this.api.PUT("/github/credentials/{id}", init) : this.api.PUT("/gitea/credentials/{id}", init);
    return parsedAnswer(request, pending, credentialsSchema);
  }

  /** GARM answers 204 also when the credentials do not exist (database/sql/github.go L508-512). */
  deleteCredentials(forge: Forge, id: number) {
    const request = `DELETE /${forge}/credentials/${id}`;
    const params = { params: { path: { id } } };
    const pending =
      forge === "github" ? this.api.DELETE("/github/credentials/{id}", params) : this.api.DELETE("/gitea/credentials/{id}", params);
    return emptyAnswer(request, pending);
  }

  /** Entities of one kind under an endpoint (the list's exact-match `endpoint` filter, §2.4). */
  entitiesOnEndpoint(kind: EntityKindPlural, endpoint: string) {
    const request = `GET /${kind}?endpoint=${endpoint}`;
    const query = { params: { query: { endpoint } } };
    const pending =
      kind === "organizations"
        ? this.api.GET("/organizations", query)
        : kind === "repositories"
          ? this.api.GET("/repositories", query)
          : this.api.GET("/enterprises", query);
    return parsedAnswer(request, pending, list(entityRef));
  }
}

const byClient = new WeakMap<GarmClient, ForgeApi>();

/** The forge routes over this client's connection. */
export function forgeApi(client: GarmClient): ForgeApi {
  let api = byClient.get(client);
  if (!api) {
    api = new ForgeApi(client);
    byClient.set(client, api);
  }
  return api;
}
