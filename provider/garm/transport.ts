// The wire under the GARM client: one bounded pool of in-flight requests per process, a timeout on every attempt,
// jittered exponential backoff for idempotent requests, and the GARM session (login, one re-login on expiry).
import { setTimeout as delay } from "node:timers/promises";
import { GarmApiError, errorFromResponse, isTransient } from "./errors";
import { HttpExchange, type IncomingHeaders } from "./http-exchange";
import { type RestartWindow, type RestartWindows, restartWindowsFor } from "./restart-window";
import { GarmSession } from "./session";

export interface TransportOptions {
  /** GARM base URL without /api/v1, e.g. https://garm.example:9997 */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** PEM text of a CA bundle to trust for GARM's TLS certificate. */
  readonly caCert?: string;
  /** Per-attempt timeout. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Attempts for one idempotent request, the first included. @default 4 */
  readonly maxAttempts?: number;
  /** Bound on the whole retry run of one request, delays included. @default 30000 */
  readonly maxRetryMs?: number;
  /** Requests in flight at once toward GARM. @default 8 */
  readonly concurrency?: number;
  /** The restarts of this GARM this process started or was told of. @default restartWindowsFor(url) */
  readonly restarts?: RestartWindows;
  /**
   * The provider instance's cancellation (common/cancel.ts): once it aborts no request is sent, a read in flight and a
   * wait between retries end, and they throw its reason. A write in flight is let finish, so its outcome is known.
   */
  readonly cancel?: AbortSignal;
  /** Test seams. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  readonly now?: () => number;
}

/** Delay before retry number `retry` (1-based): exponential from 250 ms, capped at 4 s, with 50-100% jitter. */
export function backoffDelay(retry: number, random: () => number): number {
  const ceiling = Math.min(4000, 250 * 2 ** (retry - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** GET, PUT and DELETE may be repeated; a POST may have created something. */
export function isIdempotent(method: string): boolean {
  return method === "GET" || method === "PUT" || method === "DELETE";
}

/** Which failures may be retried: only idempotent requests, except that a refused connection never reached GARM. */
export function isRetryable(idempotent: boolean, failure: GarmApiError): boolean {
  if (failure.kind === "connection" && failure.label === "ECONNREFUSED") return true;
  return idempotent && isTransient(failure);
}

/** How often a request waiting out a GARM restart tries again, at most. */
const RESTART_POLL_MAX_MS = 1000;

/**
 * What a request meets while GARM restarts: a refused connection (never sent, so safe for any request) or, for
 * requests that may be repeated, a connection GARM closed as it stopped.
 */
export function isRestartSymptom(idempotent: boolean, failure: GarmApiError): boolean {
  if (failure.kind !== "connection") return false;
  if (failure.label === "ECONNREFUSED") return true;
  return idempotent && (failure.label === "ECONNRESET" || failure.label === "EPIPE" || failure.label === "UND_ERR_SOCKET");
}

function notBackAfterRestart(failure: GarmApiError, window: RestartWindow): GarmApiError {
  const seconds = Math.round(window.allowedMs / 100) / 10;
  return new GarmApiError(
    "connection",
    failure.request,
    undefined,
    failure.label,
    `GARM did not come back within ${seconds}s after the restart ${window.startedBy} started; check that the GarmProvider's restartCommand starts GARM again, and GARM's log`,
    failure.outcomeUnknown,
  );
}

interface WireAnswer {
  readonly status: number;
  readonly headers: IncomingHeaders;
  readonly body: ArrayBuffer;
}

/** Request headers by lower-case name. */
type OutgoingHeaders = Record<string, string>;

/** What Headers is built from (the DOM's HeadersInit, which Node's types do not name). */
type HeaderSource = ConstructorParameters<typeof Headers>[0];

function plainHeaders(init: HeaderSource | undefined): OutgoingHeaders {
  const out: OutgoingHeaders = {};
  if (init !== undefined) (init instanceof Headers ? init : new Headers(init)).forEach((value, name) => (out[name] = value));
  return out;
}

/**
 * A GARM request as openapi-fetch builds it (its `Request` option): method, URL, headers and a JSON text body. GARM
 * calls need nothing more, and WHATWG's Request (body streams, a second copy of the headers) cost more CPU than the call
 * itself in a 100-scale-set run.
 */
export class WireRequest {
  readonly method: string;
  readonly headers: HeaderSource | undefined;
  readonly body: string | undefined;

  constructor(
    readonly url: string,
    init: RequestInit = {},
  ) {
    this.method = init.method ?? "GET";
    this.headers = init.headers;
    if (init.body !== undefined && init.body !== null && typeof init.body !== "string") {
      throw new TypeError(`GARM requests carry JSON text; ${this.method} ${url} was given a ${Object.prototype.toString.call(init.body)} body`);
    }
    this.body = init.body ?? undefined;
  }
}

/** GARM's answer with the part of Response's interface openapi-fetch and the client read: status, headers, body. */
export class WireResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  private readonly bytes: ArrayBuffer;

  constructor(answer: WireAnswer) {
    this.status = answer.status;
    this.bytes = answer.body;
    const raw = answer.headers;
    this.headers = {
      get: (name) => {
        const value = raw[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    };
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(this.bytes);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.bytes;
  }
}

/** Counting semaphore; FIFO so a burst of Pulumi operations is served in order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

const API_PREFIX = "/api/v1";

export class GarmTransport {
  private readonly exchange: HttpExchange;
  private readonly slots: Slots;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly maxRetryMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly restarts: RestartWindows;
  private readonly session = new GarmSession(() => this.login());
  /** Counts requests sent on the wire, for benchmarks and tests. */
  requestsSent = 0;

  constructor(private readonly options: TransportOptions) {
    this.exchange = new HttpExchange(options.caCert);
    this.slots = new Slots(options.concurrency ?? 8);
    this.timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 4;
    this.maxRetryMs = options.maxRetryMs ?? 30_000;
    const cancel = options.cancel;
    const sleep = options.sleep ?? ((ms) => delay(ms, undefined, { signal: cancel }).then(() => undefined, () => undefined));
    this.sleep = cancel ? async (ms) => (cancel.throwIfAborted(), await sleep(ms), cancel.throwIfAborted()) : sleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.restarts = options.restarts ?? restartWindowsFor(options.url);
  }

  /**
   * What openapi-fetch's createClient takes to send through this transport. Its options are typed with WHATWG's Request
   * and Response; it only constructs the request class and reads status, headers and body from the answer, which
   * WireRequest and WireResponse provide.
   */
  get fetchOptions(): { baseUrl: string; Request: typeof Request; fetch: (input: Request) => Promise<Response> } {
    return {
      baseUrl: this.baseUrl,
      Request: WireRequest as unknown as typeof Request,
      fetch: this.fetch as unknown as (input: Request) => Promise<Response>,
    };
  }

  get baseUrl(): string {
    return this.options.url.replace(/\/+$/, "") + API_PREFIX;
  }

  /** The session token and TLS trust for GARM's events socket, which authenticates as REST does (events.ts). */
  async socketLogin(refused?: string): Promise<{ token: string; caCert?: string }> {
    const token = refused === undefined ? await this.session.token() : await this.session.renew(refused);
    return { token, caCert: this.options.caCert };
  }

  /**
   * The `fetch` handed to openapi-fetch, which builds its requests as WireRequest (client.ts): authenticated, bounded,
   * retried where safe. Throws GarmApiError when no answer came.
   */
  readonly fetch = async (input: WireRequest): Promise<WireResponse> => {
    const headers = plainHeaders(input.headers);
    const body = input.body === undefined ? undefined : new TextEncoder().encode(input.body);
    const answer = await this.slots.run(() => this.authenticated(input.method, input.url, headers, body));
    return new WireResponse(answer);
  };

  /** Sends with the session token; on 401 `Authentication failed` resends once with the renewed token (§1.5). */
  private async authenticated(method: string, url: string, headers: OutgoingHeaders, body: Uint8Array | undefined): Promise<WireAnswer> {
    const token = await this.session.token();
    headers["authorization"] = `Bearer ${token}`;
    const first = await this.withRetries(method, url, headers, body);
    if (first.status !== 401 || labelOf(first.body) !== "Authentication failed") return first;
    headers["authorization"] = `Bearer ${await this.session.renew(token)}`;
    return this.withRetries(method, url, headers, body);
  }

  private async login(): Promise<string> {
    const url = `${this.baseUrl}/auth/login`;
    const headers: OutgoingHeaders = { "content-type": "application/json" };
    const body = new TextEncoder().encode(JSON.stringify({ username: this.options.username, password: this.options.password }));
    // Login has no side effect on GARM, so it is retried like an idempotent call.
    const answer = await this.withRetries("POST", url, headers, body, "POST /auth/login", true);
    if (answer.status === 200) {
      const token = (parseJson(answer.body) as { token?: unknown } | undefined)?.token;
      if (typeof token === "string" && token) return token;
      throw notTheLoginRoute(url, answer.status, "no token in the answer");
    }
    const failure = errorFromResponse("POST /auth/login", answer.status, parseJson(answer.body));
    if (answer.status === 401 && failure.label === "Not Authorized") {
      // GARM's login handler refuses a bad username or password this way (§1.3); it is not a GitHub problem here.
      throw new GarmApiError("auth-failed", failure.request, 401, "GARM refused the login for this username and password", "");
    }
    // GARM's login route never answers 404, and any other 401 comes from a route behind the token check: the request
    // went past GARM's login route, e.g. to /api/v1/api/v1/auth/login (§1.1, §1.5).
    if (answer.status === 404 || answer.status === 401) throw notTheLoginRoute(url, answer.status, failure.label);
    throw failure;
  }

  /** Sends until a non-retryable answer, bounded by attempts and total time. Returns HTTP answers, including errors. */
  private async withRetries(
    method: string,
    url: string,
    headers: OutgoingHeaders,
    body: Uint8Array | undefined,
    requestName = describeRequest(method, url),
    idempotent = isIdempotent(method),
  ): Promise<WireAnswer> {
    let started = this.now();
    let restart: RestartWindow | undefined;
    let restartWaits = 0;
    for (let attempt = 1; ; attempt++) {
      let failure: GarmApiError;
      try {
        const answer = await this.send(method, url, headers, body, requestName);
        if (answer.status < 500) return answer;
        failure = errorFromResponse(requestName, answer.status, parseJson(answer.body));
        if (!isRetryable(idempotent, failure) || !this.mayRetry(attempt, started)) return answer;
      } catch (err) {
        if (!(err instanceof GarmApiError)) throw err;
        failure = err;
        if (isRestartSymptom(idempotent, failure)) {
          // Another writer's announced restart is looked up once per request, when no restart of this process is open.
          const window = restart?.state === "open" ? restart : (this.restarts.current() ?? (restart ? undefined : await this.restarts.announced()));
          if (window) {
            // GARM is down for a restart this process started or another writer announced: wait for it. Those waits
            // leave the ordinary retry budget whole for after the restart.
            restart = window;
            attempt = 0;
            started = this.now();
            await this.sleep(Math.min(backoffDelay(++restartWaits, this.random), RESTART_POLL_MAX_MS, window.remainingMs()));
            continue;
          }
          if (restart?.state === "expired") throw notBackAfterRestart(failure, restart);
        }
        if (!isRetryable(idempotent, failure) || !this.mayRetry(attempt, started)) throw failure;
      }
      const delay = backoffDelay(attempt, this.random);
      await this.sleep(Math.max(0, Math.min(delay, this.maxRetryMs - (this.now() - started))));
    }
  }

  private mayRetry(attempt: number, started: number): boolean {
    return attempt < this.maxAttempts && this.now() - started < this.maxRetryMs;
  }

  /**
   * One attempt: a plain HTTP exchange (http-exchange.ts), no WHATWG Request or Response machinery, which cost more CPU
   * than the call itself in a 100-scale-set run. It follows no redirects and asks for no compression.
   */
  private async send(method: string, url: string, headers: OutgoingHeaders, body: Uint8Array | undefined, requestName: string): Promise<WireAnswer> {
    const cancel = this.options.cancel;
    cancel?.throwIfAborted();
    this.requestsSent++;
    const sentAt = this.restarts.sending();
    try {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const answer = await this.exchange.send({ method, url, headers, body, signal: cancel && method === "GET" ? AbortSignal.any([timeout, cancel]) : timeout });
      this.restarts.answered(sentAt);
      return answer;
    } catch (err) {
      // Only a read carries the cancellation; a write that failed keeps its own error, which says whether it may have landed.
      if (method === "GET") cancel?.throwIfAborted();
      throw wireFailure(err, method, requestName, this.timeoutMs);
    }
  }

  async close(): Promise<void> {
    this.exchange.close();
  }
}

/** Maps a thrown request failure to a typed error; a POST that may have reached GARM is flagged outcomeUnknown. */
function wireFailure(err: unknown, method: string, requestName: string, timeoutMs: number): GarmApiError {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string; message?: string } };
  const code = e.cause?.code ?? e.code ?? "";
  const timedOut = e.name === "TimeoutError" || e.cause?.name === "TimeoutError";
  const notSent = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";
  const outcomeUnknown = method !== "GET" && !notSent;
  if (timedOut) return new GarmApiError("timeout", requestName, undefined, `no answer within ${timeoutMs} ms`, "", outcomeUnknown);
  return new GarmApiError("connection", requestName, undefined, code || "connection failed", e.cause?.message ?? "", outcomeUnknown);
}

/** A login answer that GARM's login handler does not give: garm:url (or a proxy) sends it somewhere else. */
function notTheLoginRoute(url: string, status: number, label: string): GarmApiError {
  return new GarmApiError("unknown-route", "POST /auth/login", status, label, `${url} is not GARM's login route`);
}

function describeRequest(method: string, url: string): string {
  const u = new URL(url);
  const path = u.pathname.startsWith(API_PREFIX) ? u.pathname.slice(API_PREFIX.length) : u.pathname;
  return `${method} ${path}${u.search}`;
}

function parseJson(body: ArrayBuffer): unknown {
  const text = new TextDecoder().decode(body);
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function labelOf(body: ArrayBuffer): string {
  const parsed = parseJson(body) as { error?: unknown } | undefined;
  return parsed && typeof parsed === "object" && typeof parsed.error === "string" ? parsed.error : "";
}

export { describeRequest };
