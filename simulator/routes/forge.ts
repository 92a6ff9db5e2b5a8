// GitHub and Gitea endpoints and credentials (garm-behaviour.md §2.5; GARM v0.2.1 apiserver/routers/routers.go L505-600,
// runner/{github,gitea}_{endpoints,credentials}.go, database/sql/{github,gitea}.go, params/requests.go L315-545, L700-880).
// Error details are the full wrapped Go error texts (apiserver/controllers/controllers.go L103-133).
import { createHash, X509Certificate, createPrivateKey } from "node:crypto";
import { type Body, optString, parseBody } from "../body";
import { badRequest, conflict, invalidRequest, notFound, serverError } from "../errors";
import type { Reply, RequestContext, Router } from "../router";
import { sameName } from "../names";
import type { Store } from "../state";
import type { CredentialsRecord, EndpointRecord } from "../types";
import { credentialsView, endpointView, entityView } from "../views";

type Forge = "github" | "gitea";

/** The wrapping each forge's runner and store put around an error (the two files differ in their prefixes). */
const TEXT = {
  github: {
    validateEndpointCreate: "error failed to validate github endpoint params",
    validateEndpointUpdate: "failed to validate github endpoint params",
    endpointDuplicate: "failed to create github endpoint: error creating github endpoint: error github endpoint already exists: duplicate",
    endpointGetMissing: (_n: string) => "failed to get github endpoint: github endpoint not found: not found",
    endpointUpdateMissing: (_n: string) => "failed to update github endpoint: error updating github endpoint: error github endpoint not found: not found",
    endpointUrlsLocked: "failed to update github endpoint: error updating github endpoint: cannot update endpoint URLs with existing credentials: invalid request",
    endpointInUse: "failed to delete github endpoint: error deleting github endpoint: cannot delete endpoint with associated entities: invalid request",
    validateCreds: "failed to validate github credentials params",
    credsEndpointMissing: (_n: string) => "failed to create github credentials: error creating github credentials: github endpoint not found: not found",
    credsDuplicate: "failed to create github credentials: error creating github credentials: github credentials already exists: duplicate",
    credsGetMissing: "failed to get github credentials: github credentials not found: not found",
    credsUpdateMissing: "failed to update github credentials: error updating github credentials: github credentials not found: not found",
    credsWrongSecret: (stored: string) =>
      `failed to update github credentials: error updating github credentials: ${stored === "pat" ? "cannot update app credentials for PAT" : "cannot update PAT credentials for app"}: invalid request`,
    credsInUse: (what: string) => `failed to delete github credentials: error deleting github credentials: cannot delete credentials with ${what}: invalid request`,
  },
  gitea: {
    validateEndpointCreate: "failed to validate gitea endpoint params",
    validateEndpointUpdate: "failed to validate gitea endpoint params",
    endpointDuplicate: "failed to create gitea endpoint: error creating gitea endpoint: gitea endpoint already exists: duplicate",
    endpointGetMissing: (n: string) => `failed to get gitea endpoint: gitea endpoint "${n}" not found`,
    endpointUpdateMissing: (n: string) => `failed to update gitea endpoint: error updating gitea endpoint: gitea endpoint "${n}" not found`,
    endpointUrlsLocked: "failed to update gitea endpoint: error updating gitea endpoint: cannot update endpoint URLs with existing credentials",
    endpointInUse: "failed to delete gitea endpoint: error deleting gitea endpoint: cannot delete endpoint with associated entities",
    validateCreds: "error failed to validate gitea credentials params",
    credsEndpointMissing: (n: string) => `error failed to create gitea credentials: error creating gitea credentials: gitea endpoint "${n}" not found`,
    credsDuplicate: "error failed to create gitea credentials: error creating gitea credentials: gitea credentials already exists: duplicate",
    credsGetMissing: "error failed to get gitea credentials: gitea credentials not found",
    credsUpdateMissing: "error failed to update gitea credentials: error updating gitea credentials: gitea credentials not found",
    credsWrongSecret: (_stored: string) => "",
    credsInUse: (what: string) => `error failed to delete gitea credentials: error deleting gitea credentials: cannot delete credentials with ${what}`,
  },
} as const;

const same = sameName; // collate nocase (models.go L464, L483)
const typeOf = (ep: EndpointRecord): Forge => ep.endpointType ?? "github";
const forgeOf = (c: CredentialsRecord): Forge => c.forge ?? "github";

function findEndpoint(store: Store, forge: Forge | undefined, name: string): EndpointRecord | undefined {
  return [...store.endpoints.values()].find((ep) => same(ep.name, name) && (forge === undefined || typeOf(ep) === forge));
}

// ---- validation (params/requests.go) -----------------------------------------------------------------------------

/** url.Parse, then scheme http/https and a host; GARM names api_base_url for every scheme error (L336-372). */
function checkUrl(value: string, key: string, prefix: string): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw badRequest(`${prefix}: invalid ${key}`);
  }
  // Go's url.Parse finds no host in "https:///x", where WHATWG URL does.
  if (u.host === "" || !/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]/.test(value)) throw badRequest(`${prefix}: invalid ${key}`);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw badRequest(`${prefix}: invalid api_base_url`);
}

/** []byte from JSON: base64 text, or 400 invalid request when it is not (encoding/json). */
function bytesField(b: Body, key: string): Buffer | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) throw invalidRequest();
  return Buffer.from(v, "base64");
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** util.SanitizeCABundle (garm-provider-common v0.1.9 util.go L334-359): dedups; a non-certificate block is a plain error. */
function sanitizeCaBundle(bundle: Buffer): Buffer | undefined {
  const seen = new Set<string>();
  let out = "";
  for (const m of bundle.toString("latin1").matchAll(PEM_BLOCK)) {
    const der = Buffer.from(m[2]!.replace(/[^A-Za-z0-9+/=]/g, ""), "base64");
    try {
      new X509Certificate(der);
    } catch {
      throw serverError();
    }
    const b64 = der.toString("base64");
    if (seen.has(b64)) continue;
    seen.add(b64);
    out += `-----BEGIN ${m[1]}-----\n${(b64.match(/.{1,64}/g) ?? []).join("\n")}\n-----END ${m[1]}-----\n`;
  }
  return out === "" ? undefined : Buffer.from(out, "latin1");
}

/** The bundle as GARM keeps it; `empty` when the key was sent with no bytes, which Validate refuses. */
function readCa(b: Body): { bundle?: Buffer; empty: boolean } {
  const raw = bytesField(b, "ca_cert_bundle");
  if (raw === undefined) return { empty: false };
  // Sanitized only when non-empty (runner/github_endpoints.go L33, L90); Validate then refuses a non-nil empty slice,
  // which is what "" decodes to (params/requests.go L369-377, L428-435, L752, L800).
  if (raw.length === 0) return { empty: true };
  const bundle = sanitizeCaBundle(raw);
  return bundle ? { bundle, empty: false } : { empty: false };
}

/**
 * A Gitea endpoint's tools settings (params/requests.go L706-707, L740-750): the URL http(s) with a host when given.
 * Absent keys leave them as they are; an empty URL means GARM's default.
 */
function toolsFields(b: Body, prefix: string): Pick<EndpointRecord, "toolsMetadataUrl" | "useInternalToolsMetadata"> {
  const url = optString(b, "tools_metadata_url") ?? "";
  if (url !== "") {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.host === "" || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      throw badRequest(`${prefix}: invalid tools_metadata_url`);
    }
  }
  const internal = b["use_internal_tools_metadata"];
  return {
    ...(url !== "" ? { toolsMetadataUrl: url } : {}),
    ...(typeof internal === "boolean" ? { useInternalToolsMetadata: internal } : {}),
  };
}

// ---- endpoints -----------------------------------------------------------------------------------------------------

function createEndpoint(forge: Forge, ctx: RequestContext): Reply {
  const b = parseBody(ctx.rawBody);
  const t = TEXT[forge];
  const name = optString(b, "name") ?? "";
  const api = optString(b, "api_base_url") ?? "";
  const upload = forge === "github" ? (optString(b, "upload_base_url") ?? "") : "";
  const base = optString(b, "base_url") ?? "";
  const ca = readCa(b);
  const prefix = t.validateEndpointCreate;
  if (api === "") throw badRequest(`${prefix}: missing api_base_url`);
  checkUrl(api, "api_base_url", prefix);
  if (forge === "github") {
    if (upload === "") throw badRequest(`${prefix}: missing upload_base_url`);
    checkUrl(upload, "upload_base_url", prefix);
  }
  if (base === "") throw badRequest(`${prefix}: missing base_url`);
  checkUrl(base, "base_url", prefix);
  const tools = forge === "gitea" ? toolsFields(b, prefix) : {};
  if (ca.empty) throw badRequest(`${prefix}: invalid ca_cert_bundle`);
  // The duplicate check ignores the endpoint type (database/sql/github.go L38, gitea.go L42).
  if (findEndpoint(ctx.store, undefined, name)) throw conflict(t.endpointDuplicate);
  const now = ctx.store.now();
  const rec: EndpointRecord = {
    name,
    description: optString(b, "description") ?? "",
    apiBaseUrl: api,
    uploadBaseUrl: upload,
    baseUrl: base,
    createdAt: now,
    updatedAt: now,
    endpointType: forge,
    ...(ca.bundle ? { caCertBundle: ca.bundle.toString("base64") } : {}),
    ...tools,
  };
  ctx.store.endpoints.set(name, rec);
  return { status: 200, body: endpointView(rec) };
}

function updateEndpoint(forge: Forge, ctx: RequestContext): Reply {
  const b = parseBody(ctx.rawBody);
  const t = TEXT[forge];
  const name = ctx.params["name"]!;
  const ca = readCa(b);
  const api = optString(b, "api_base_url");
  const upload = forge === "github" ? optString(b, "upload_base_url") : undefined;
  const base = optString(b, "base_url");
  const description = optString(b, "description");
  const prefix = t.validateEndpointUpdate;
  if (api !== undefined) checkUrl(api, "api_base_url", prefix);
  if (upload !== undefined) checkUrl(upload, "upload_base_url", prefix);
  if (base !== undefined) checkUrl(base, "base_url", prefix);
  const tools = forge === "gitea" ? toolsFields(b, prefix) : {};
  if (ca.empty) throw badRequest(`${prefix}: invalid ca_cert_bundle`);
  const ep = findEndpoint(ctx.store, forge, name);
  if (ep === undefined) throw notFound(t.endpointUpdateMissing(name));
  const urlsChange =
    (api !== undefined && api !== ep.apiBaseUrl) || (upload !== undefined && upload !== ep.uploadBaseUrl) || (base !== undefined && base !== ep.baseUrl);
  if (urlsChange && ctx.store.credentials.some((c) => forgeOf(c) === forge && same(c.endpoint, ep.name))) {
    throw badRequest(t.endpointUrlsLocked);
  }
  const caText = ca.bundle?.toString("base64");
  const changed =
    urlsChange || (description !== undefined && description !== ep.description) || (caText !== undefined && caText !== ep.caCertBundle);
  if (api !== undefined) ep.apiBaseUrl = api;
  if (upload !== undefined) ep.uploadBaseUrl = upload;
  if (base !== undefined) ep.baseUrl = base;
  if (description !== undefined) ep.description = description;
  if (caText !== undefined) ep.caCertBundle = caText;
  const toolsChange =
    (tools.toolsMetadataUrl !== undefined && tools.toolsMetadataUrl !== ep.toolsMetadataUrl) ||
    (tools.useInternalToolsMetadata !== undefined && tools.useInternalToolsMetadata !== (ep.useInternalToolsMetadata ?? false));
  if (tools.toolsMetadataUrl !== undefined) ep.toolsMetadataUrl = tools.toolsMetadataUrl;
  if (tools.useInternalToolsMetadata !== undefined) ep.useInternalToolsMetadata = tools.useInternalToolsMetadata;
  if (changed || toolsChange) ep.updatedAt = ctx.store.now();
  return { status: 200, body: endpointView(ep) };
}

function deleteEndpoint(forge: Forge, ctx: RequestContext): Reply {
  const ep = findEndpoint(ctx.store, forge, ctx.params["name"]!);
  // A missing endpoint is success (database/sql/github.go L183-186).
  if (ep === undefined) return { status: 204 };
  const used =
    ctx.store.credentials.some((c) => forgeOf(c) === forge && same(c.endpoint, ep.name)) ||
    [...ctx.store.entities.values()].some((e) => same(e.endpoint, ep.name) && (forge === "github" || e.kind !== "enterprise"));
  if (used) throw badRequest(TEXT[forge].endpointInUse);
  ctx.store.endpoints.delete(ep.name);
  return { status: 204 };
}

// ---- credentials ---------------------------------------------------------------------------------------------------

/** GithubApp.Validate (params/requests.go L453-477); a key that is not PKCS#1 is a plain error: 500. */
function validateApp(app: Body, prefix: string): void {
  const appId = app["app_id"];
  const installationId = app["installation_id"];
  if (typeof appId !== "number" || appId === 0) throw badRequest(`${prefix}: invalid app: missing app_id`);
  if (typeof installationId !== "number" || installationId === 0) throw badRequest(`${prefix}: invalid app: missing installation_id`);
  const key = bytesField(app, "private_key_bytes");
  if (key === undefined || key.length === 0) throw badRequest(`${prefix}: invalid app: missing private_key_bytes`);
  const first = [...key.toString("latin1").matchAll(PEM_BLOCK)][0];
  if (first === undefined) throw badRequest(`${prefix}: invalid app: invalid private_key_bytes`);
  // x509.ParsePKCS1PrivateKey refuses a PKCS#8 structure, which OpenSSL's pkcs1 decoder would accept.
  const der = Buffer.from(first[2]!.replace(/[^A-Za-z0-9+/=]/g, ""), "base64");
  const secondIsInteger = (() => {
    if (der[0] !== 0x30) return false;
    let at = der[1]! & 0x80 ? 2 + (der[1]! & 0x7f) : 2;
    if (der[at] !== 0x02) return false;
    at += 2 + der[at + 1]!;
    return der[at] === 0x02;
  })();
  try {
    createPrivateKey({ key: der, format: "der", type: "pkcs1" });
  } catch {
    throw serverError();
  }
  if (!secondIsInteger) throw serverError();
}

function objectField(b: Body, key: string): Body | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw invalidRequest();
  return v as Body;
}

const digest = (payload: unknown) => createHash("sha256").update(JSON.stringify(payload)).digest("hex");

function createCredentials(forge: Forge, ctx: RequestContext): Reply {
  const b = parseBody(ctx.rawBody);
  const t = TEXT[forge];
  const name = optString(b, "name") ?? "";
  const endpoint = optString(b, "endpoint") ?? "";
  const authType = optString(b, "auth_type") ?? "";
  const pat = objectField(b, "pat") ?? {};
  const app = objectField(b, "app") ?? {};
  const prefix = t.validateCreds;
  if (name === "") throw badRequest(`${prefix}: missing name`);
  if (endpoint === "") throw badRequest(`${prefix}: missing endpoint`);
  if (forge === "gitea" && authType !== "pat") throw badRequest(`${prefix}: invalid auth_type: ${authType}`);
  if (authType !== "pat" && authType !== "app") throw badRequest(`${prefix}: invalid auth_type`);
  if (authType === "pat" && (optString(pat, "oauth2_token") ?? "") === "") throw badRequest(`${prefix}: missing oauth2_token`);
  if (authType === "app") validateApp(app, prefix);
  const ep = findEndpoint(ctx.store, forge, endpoint);
  if (ep === undefined) throw notFound(t.credsEndpointMissing(endpoint));
  if (ctx.store.credentials.some((c) => forgeOf(c) === forge && same(c.name, name))) throw conflict(t.credsDuplicate);
  const c = ctx.store.addCredentials(name, ep.name, optString(b, "description") ?? "", forge);
  c.authType = authType;
  c.secretDigest = digest(authType === "pat" ? pat : app);
  return { status: 200, body: credentialsView(ctx.store, c) };
}

/** strconv.ParseUint(id, 10, 64), else 400 invalid request (apiserver/controllers/github_credentials.go L111-115). */
function credentialsById(forge: Forge, ctx: RequestContext, missing: string): CredentialsRecord {
  const raw = ctx.params["id"]!;
  if (!/^[0-9]+$/.test(raw)) throw invalidRequest();
  const c = ctx.store.credentials.find((x) => x.id === Number(raw) && forgeOf(x) === forge);
  if (c === undefined) throw notFound(missing);
  return c;
}

/** A detailed read preloads the entities that use the credentials (database/sql/github.go L341-372). */
function detailedView(store: Store, c: CredentialsRecord) {
  const o = credentialsView(store, c);
  const users = [...store.entities.values()].filter((e) => e.credentialsName === c.name && same(e.endpoint, c.endpoint));
  // Entities as sqlToCommonRepository(repo, false) converts them: with their credentials and agent_mode.
  const brief = (e: (typeof users)[number]) => ({ agent_mode: false, ...(entityView(store, e) as Record<string, unknown>) });
  const put = (key: string, kind: string) => {
    const list = users.filter((e) => e.kind === kind).map(brief);
    if (list.length > 0) o[key] = list;
  };
  put("repositories", "repository");
  put("organizations", "organization");
  put("enterprises", "enterprise");
  return o;
}

function updateCredentials(forge: Forge, ctx: RequestContext): Reply {
  const raw = ctx.params["id"]!;
  if (!/^[0-9]+$/.test(raw)) throw invalidRequest();
  const b = parseBody(ctx.rawBody);
  const t = TEXT[forge];
  const prefix = forge === "github" ? "failed to validate github credentials params" : "error failed to validate gitea credentials params";
  const pat = objectField(b, "pat");
  const app = forge === "github" ? objectField(b, "app") : undefined;
  if (pat !== undefined && app !== undefined) throw badRequest(`${prefix}: cannot update both PAT and App`);
  if (pat !== undefined && (optString(pat, "oauth2_token") ?? "") === "") throw badRequest(`${prefix}: missing oauth2_token`);
  if (app !== undefined) validateApp(app, prefix);
  const c = credentialsById(forge, ctx, t.credsUpdateMissing);
  if (forge === "github" && ((c.authType === "pat" && app !== undefined) || (c.authType === "app" && pat !== undefined))) {
    throw badRequest(t.credsWrongSecret(c.authType));
  }
  const name = optString(b, "name");
  const description = optString(b, "description");
  if (name !== undefined && name !== c.name) {
    // The unique name index (collate nocase, database/sql/models.go L483, L510) fails the UPDATE: a plain error, 500
    // (database/sql/github.go L470-474).
    if (ctx.store.credentials.some((x) => x !== c && forgeOf(x) === forge && sameName(x.name, name))) throw serverError();
    // Entities hold the credentials by id in GARM; the simulator keys them by name, so they follow the rename.
    for (const e of ctx.store.entities.values()) if (e.credentialsName === c.name && same(e.endpoint, c.endpoint)) e.credentialsName = name;
    c.name = name;
  }
  if (description !== undefined) c.description = description;
  if (pat !== undefined) c.secretDigest = digest(pat);
  if (app !== undefined) c.secretDigest = digest(app);
  c.updatedAt = ctx.store.now();
  return { status: 200, body: credentialsView(ctx.store, c) };
}

function deleteCredentials(forge: Forge, ctx: RequestContext): Reply {
  const raw = ctx.params["id"]!;
  if (!/^[0-9]+$/.test(raw)) throw invalidRequest();
  const idx = ctx.store.credentials.findIndex((x) => x.id === Number(raw) && forgeOf(x) === forge);
  if (idx < 0) return { status: 204 };
  const c = ctx.store.credentials[idx]!;
  const users = [...ctx.store.entities.values()].filter((e) => e.credentialsName === c.name && same(e.endpoint, c.endpoint));
  // Checked in this order (database/sql/github.go L517-525).
  for (const [kind, what] of [["repository", "repositories"], ["organization", "organizations"], ["enterprise", "enterprises"]] as const) {
    if (users.some((e) => e.kind === kind)) throw badRequest(TEXT[forge].credsInUse(what));
  }
  ctx.store.credentials.splice(idx, 1);
  return { status: 204 };
}

export function registerForgeRoutes(router: Router): void {
  for (const forge of ["github", "gitea"] as const) {
    const t = TEXT[forge];
    router.add("GET", `/${forge}/endpoints`, "api", (ctx) => ({
      status: 200,
      body: [...ctx.store.endpoints.values()].filter((ep) => typeOf(ep) === forge).map((ep) => endpointView(ep)),
    }));
    router.add("POST", `/${forge}/endpoints`, "api", (ctx) => createEndpoint(forge, ctx));
    router.add("GET", `/${forge}/endpoints/{name}`, "api", (ctx) => {
      const ep = findEndpoint(ctx.store, forge, ctx.params["name"]!);
      if (ep === undefined) throw notFound(t.endpointGetMissing(ctx.params["name"]!));
      return { status: 200, body: endpointView(ep) };
    });
    router.add("PUT", `/${forge}/endpoints/{name}`, "api", (ctx) => updateEndpoint(forge, ctx));
    router.add("DELETE", `/${forge}/endpoints/{name}`, "api", (ctx) => deleteEndpoint(forge, ctx));

    const list = (ctx: RequestContext): Reply => {
      const views = ctx.store.credentials.filter((c) => forgeOf(c) === forge).map((c) => credentialsView(ctx.store, c));
      // None: GARM encodes its nil slice as null (database/sql/github.go L390-398, gitea.go L387-395).
      return { status: 200, body: views.length > 0 ? views : null };
    };
    router.add("GET", `/${forge}/credentials`, "api", list);
    if (forge === "github") router.add("GET", "/credentials", "api", list);
    router.add("POST", `/${forge}/credentials`, "api", (ctx) => createCredentials(forge, ctx));
    router.add("GET", `/${forge}/credentials/{id}`, "api", (ctx) => ({
      status: 200,
      body: detailedView(ctx.store, credentialsById(forge, ctx, t.credsGetMissing)),
    }));
    router.add("PUT", `/${forge}/credentials/{id}`, "api", (ctx) => updateCredentials(forge, ctx));
    router.add("DELETE", `/${forge}/credentials/{id}`, "api", (ctx) => deleteCredentials(forge, ctx));
  }
}

