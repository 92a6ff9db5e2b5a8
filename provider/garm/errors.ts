// Typed failures of GARM API calls, classified by HTTP status and GARM's `error` label (garm-behaviour.md §1.5, §1.7).

/** Closed vocabulary of what went wrong talking to GARM. */
export type GarmErrorKind =
  | "not-found" // 404 from GARM's handleError: the resource does not exist (§1.7)
  | "unknown-route" // the request reached no GARM route: a 404 in any other shape, or a login that met no login handler
  | "bad-request" // 400, GARM's details say why
  | "conflict" // 409 Conflict (duplicate entity)
  | "auth-failed" // 401 Authentication failed, or a login GARM refused
  | "github-unauthorized" // 401 Not Authorized on a scale-set or runner call: GitHub refused GARM's credentials (§1.5)
  | "init-required" // 409 init_required: GARM has no admin user yet (§1.2)
  | "urls-required" // 409 urls_required: controller URLs not set (§1.6)
  | "server-error" // 5xx
  | "connection" // no HTTP answer (refused, reset, DNS)
  | "timeout" // no answer within the request timeout
  | "unexpected"; // a status or body GARM does not send

/** What a user should do about each kind; kept beside the vocabulary so every message carries its remedy. */
const REMEDY: Record<GarmErrorKind, string> = {
  "not-found": "",
  "unknown-route":
    "the answer did not come from GARM's API: garm:url must be GARM's base URL without /api/v1 (e.g. https://garm.example.com:9997), " +
    "and a proxy in front of GARM must pass /api/v1/ through unchanged; fix it with `pulumi config set garm:url <url>`",
  "bad-request": "",
  conflict: "",
  "auth-failed": "check garm:username and garm:password (pulumi config set garm:username ...; pulumi config set --secret garm:password ...)",
  "github-unauthorized":
    "GitHub refused GARM's credentials for this entity; fix the GitHub credentials in GARM (garm-cli github credentials update) and run again",
  "init-required": "GARM has no admin user yet; run `garm-cli init` against it first",
  "urls-required": "GARM's controller URLs are not set; run `garm-cli controller update --metadata-url ... --callback-url ...`",
  "server-error": "see GARM's log for the cause",
  connection: "check that GARM is running and garm:url is right, then run again",
  timeout: "GARM did not answer in time; check its load and log; the next run retries",
  unexpected: "",
};

/** A failed GARM API call. `message` names the request and carries GARM's details; it never holds a secret. */
export class GarmApiError extends Error {
  override readonly name = "GarmApiError";
  constructor(
    readonly kind: GarmErrorKind,
    /** e.g. "DELETE /scalesets/12" */
    readonly request: string,
    readonly status: number | undefined,
    /** GARM's `error` label, e.g. "Bad Request" */
    readonly label: string,
    /** GARM's `details`, e.g. "scale set has runners" */
    readonly details: string,
    /** True when a non-idempotent request may have been carried out although no answer came back. */
    readonly outcomeUnknown = false,
  ) {
    super(describe(kind, request, status, label, details));
  }
}

function describe(kind: GarmErrorKind, request: string, status: number | undefined, label: string, details: string): string {
  const answer = status === undefined ? label : `${status} ${label}`.trim();
  const said = details ? `: ${details}` : "";
  const remedy = REMEDY[kind] ? ` (${REMEDY[kind]})` : "";
  return `GARM ${request} failed with ${answer}${said}${remedy}`;
}

/** Classifies an HTTP error answer; `body` is GARM's `{"error","details"}` when it sent one. */
export function errorFromResponse(request: string, status: number, body: unknown): GarmApiError {
  const { label, details } = parseErrorBody(body);
  return new GarmApiError(kindOf(status, label, isGarmErrorBody(body)), request, status, label, details);
}

/**
 * GARM's handleError writes `{"error":"Not Found","details":...}` for a missing resource (§1.7). Its catch-all for
 * an unknown route says "Not found" (§1.1), and a proxy or virtual host writes a page of its own: neither says
 * anything about the resource.
 */
function kindOf(status: number, label: string, fromGarm: boolean): GarmErrorKind {
  if (status === 404) return fromGarm && label === "Not Found" ? "not-found" : "unknown-route";
  if (status === 400) return "bad-request";
  if (status === 409) {
    if (label === "init_required") return "init-required";
    if (label === "urls_required") return "urls-required";
    return "conflict";
  }
  if (status === 401) {
    // GARM's own token problems say "Authentication failed"; "Not Authorized" is a failed login or an upstream
    // GitHub 401/403 passed through with its details stripped (§1.5). The login call maps its own 401 below.
    return label === "Not Authorized" ? "github-unauthorized" : "auth-failed";
  }
  if (status >= 500) return "server-error";
  return "unexpected";
}

/** GARM's APIErrorResponse always carries both keys as strings (§1.7). */
function isGarmErrorBody(body: unknown): boolean {
  if (!body || typeof body !== "object") return false;
  const { error, details } = body as { error?: unknown; details?: unknown };
  return typeof error === "string" && typeof details === "string";
}

/** Bodies that are not GARM's JSON (a proxy's HTML page) are cut to one short line. */
function parseErrorBody(body: unknown): { label: string; details: string } {
  if (body && typeof body === "object") {
    const { error, details } = body as { error?: unknown; details?: unknown };
    return { label: typeof error === "string" ? error : "", details: typeof details === "string" ? details : "" };
  }
  if (typeof body === "string") return { label: oneLine(body, 120), details: "" };
  return { label: "", details: "" };
}

/** No answer, or GARM failing on its side: the same request may well succeed later. */
export function isTransient(err: unknown): err is GarmApiError {
  return err instanceof GarmApiError && (err.kind === "connection" || err.kind === "timeout" || err.kind === "server-error");
}

/** True when the error is a GARM answer with this kind. */
export function isGarmError(err: unknown, kind?: GarmErrorKind): err is GarmApiError {
  return err instanceof GarmApiError && (kind === undefined || err.kind === kind);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
