// GARM's events socket (GET /api/v1/ws/events): one connection per provider process, shared by every wait. Events
// only wake waits early, which then re-read GARM over REST; a refused, dropped or silent socket makes them poll.
//
// The protocol, from cloudbase/garm v0.2.1:
// - Route behind the same middlewares as REST (init, URLs, JWT, admin): apiserver/routers/routers.go:229-234, 613-614.
//   The token goes in `Authorization: Bearer` or the `garm_token` cookie, never the query (auth/jwt.go:100-115); a
//   bad token answers 401 {"error":"Authentication failed"} before any upgrade (auth/jwt.go:89-97), a non-admin 403.
// - After the upgrade GARM sends nothing until the client sends a filter: the consumer starts with WithNone
//   (workers/websocket/events/events.go:43-46). A filter is {"send-everything": bool, "filters": [{"entity-type",
//   "operations"}]} (workers/websocket/events/params.go:20-23, 46-49); filters OR together, operations within one
//   OR together, no operations means all (events.go:136-164); each filter message replaces the last (events.go:191-192).
// - Validation (params.go:25-63): entity types repository, organization, enterprise, pool, user, instance, job,
//   controller, github_credentials, gitea_credentials, scaleset, github_endpoint, template, file_object; operations
//   create, update, delete. An empty filter list is ignored without a reply (events.go:180-184). For an invalid
//   filter GARM queues the text "invalid filter" ("failed to unmarshal filter" for bad JSON) and stops the client
//   (events.go:172-177, 185-188), but Stop writes the close frame and closes the connection itself (websocket/
//   client.go:104-118) before the writer sends the queued text: v0.2.1 closes with 1000 and no text
//   (test/e2e/events-conformance.test.ts). So a socket that closes before its filter took effect was likely refused.
// - Each event is one JSON text frame {"entity-type", "operation", "payload"} (database/common/watcher.go:48-52,
//   events.go:91-98). The payload is the row as the REST API shows it, except deletes: an instance delete carries
//   only id, name, provider_id, agent_id and pool_id or scale_set_id (database/sql/instances.go:179-199, 222-241), a
//   pool delete only the id (database/sql/pools.go:92); scale set and job deletes carry the whole row
//   (database/sql/scalesets.go:428-433, jobs.go:151).
// - GARM pings every 54 s and, once it has seen a pong, drops a peer silent for 60 s (websocket/client.go:39-43,
//   171-176, 247-252); it answers pings with pongs (gorilla's default handler). It closes the socket when the JWT
//   expires (client.go:216-221, 256-259) or the user is disabled or changes password (client.go:293-309).
// - Events can be lost: GARM drops one its consumer does not take within 1 s (database/watcher/consumer.go:86-96),
//   and drops frames when the 1024-frame send buffer is full (websocket/client.go:156-161).
import WebSocket from "ws";
import type { GarmClient } from "./client";
import { perClient } from "./per-client";


/** Where the socket says it lost or regained GARM's events: the caller's user-facing lines. */
export interface Logger {
  info(line: string): void;
  warn(line: string): void;
}

export interface GarmEvent {
  readonly entityType: string;
  readonly operation: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** What the waits listen to: runner rows, scale set rows, and job rows (which name their runner). */
export const EVENTS_FILTER = {
  "send-everything": false,
  filters: ["instance", "scaleset", "job"].map((type) => ({ "entity-type": type, operations: ["create", "update", "delete"] })),
};

export interface EventListener {
  /** A GARM event; the listener decides whether it concerns it. */
  onEvent(event: GarmEvent): void;
  /** The socket closed: events may have been missed since the last one. */
  onLost(): void;
}

export interface EventsOptions {
  /** GARM base URL without /api/v1. */
  readonly url: string;
  /** The REST session's token (renewed when `refused` is given) and TLS trust. */
  readonly login: (refused?: string) => Promise<{ token: string; caCert?: string }>;
  readonly log: Logger;
  /** A socket this long without a frame or pong is dead. @default 45000 (GARM pings every 54 s; we ping at half this) */
  readonly silenceMs?: number;
  /** Close the socket when nothing has listened for this long. @default 5000 */
  readonly idleMs?: number;
  readonly random?: () => number;
  /** @default EVENTS_FILTER */
  readonly filter?: unknown;
}

type State =
  | { kind: "idle" }
  | { kind: "connecting" }
  | { kind: "open"; socket: WebSocket; filtering?: number }
  | { kind: "waiting"; timer: NodeJS.Timeout }
  | { kind: "refused" };

const RECONNECT_MAX_MS = 30_000;
/** Sockets in a row that closed before their filter took effect, after which the filter counts as refused. */
const EARLY_CLOSES_REFUSED = 3;

export class GarmEvents {
  private state: State = { kind: "idle" };
  private readonly listeners = new Set<EventListener>();
  private failures = 0;
  private earlyCloses = 0;
  /** Numbers connection attempts: callbacks of a superseded attempt change nothing. */
  private attempts = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Frames received, for tests and benchmarks. */
  received = 0;

  constructor(private readonly options: EventsOptions) {}

  /** True while a socket is open and GARM has applied its filter. */
  get live(): boolean {
    return this.liveSince !== undefined;
  }

  /**
   * Since when (Date.now() time) GARM has been sending this socket's events, or undefined while it is not; a new value
   * is a new live period. A listener subscribed in one live period hears every event from then on while it lasts, so a
   * wait may poll slowly only when it listened in the same live period since before the reads it follows began.
   */
  get liveSince(): number | undefined {
    return this.state.kind === "open" ? this.state.filtering : undefined;
  }

  /** Whether GARM (or a proxy) refused the socket or its filter: waits poll for the rest of the process. */
  get refused(): boolean {
    return this.state.kind === "refused";
  }

  /**
   * Starts listening, connecting when needed unless `connect` is false (then `open` connects); the returned function
   * stops. A listener keeps an open socket open either way.
   */
  subscribe(listener: EventListener, options: { connect?: boolean } = {}): () => void {
    this.listeners.add(listener);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (options.connect !== false) this.open();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.scheduleIdleClose();
    };
  }

  /** Connects when no socket is open or on its way and someone listens. */
  open(): void {
    if (this.state.kind === "idle" && !this.closed && this.listeners.size > 0) void this.connect();
  }

  /** Closes the socket and stops reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.shut();
  }

  private scheduleIdleClose(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.listeners.size === 0) void this.shut();
    }, this.options.idleMs ?? 5000);
    this.idleTimer.unref();
  }

  private async shut(): Promise<void> {
    const state = this.state;
    if (state.kind === "refused") return;
    this.state = { kind: "idle" };
    if (state.kind === "waiting") clearTimeout(state.timer);
    if (state.kind === "open") {
      await new Promise<void>((resolve) => {
        state.socket.once("close", () => resolve());
        state.socket.close(1000);
        setTimeout(() => state.socket.terminate(), 1000).unref();
      });
    }
  }

  private eventsUrl(): string {
    return `${this.options.url.replace(/\/+$/, "").replace(/^http/, "ws")}/api/v1/ws/events`;
  }

  private async connect(refusedToken?: string): Promise<void> {
    const attempt = ++this.attempts;
    const current = () => attempt === this.attempts && this.state.kind !== "idle" && this.state.kind !== "refused";
    this.state = { kind: "connecting" };
    let login: { token: string; caCert?: string };
    try {
      login = await this.options.login(refusedToken);
    } catch {
      // The REST calls of the same wait meet the same login failure and report it; here it only means "not now".
      this.retryLater();
      return;
    }
    if (!current()) return; // closed meanwhile
    const socket = new WebSocket(this.eventsUrl(), {
      headers: { Authorization: `Bearer ${login.token}` },
      ca: login.caCert,
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    let settled = false;
    const fail = (outcome: "retry" | "relogin" | { refused: string }) => {
      if (settled) return;
      settled = true;
      socket.removeAllListeners();
      socket.on("error", () => {});
      socket.terminate();
      if (!current()) return;
      const wasOpen = this.state.kind === "open";
      if (outcome === "relogin") {
        void this.connect(login.token);
      } else if (outcome === "retry") {
        this.retryLater();
      } else {
        this.state = { kind: "refused" };
        this.options.log.warn(
          `GARM at ${this.options.url} ${outcome.refused}; drains and readiness waits poll GARM every drain.pollSeconds instead of waiting for its events`,
        );
      }
      if (wasOpen) for (const l of [...this.listeners]) l.onLost();
    };
    socket.on("unexpected-response", (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 401 && refusedToken === undefined) fail("relogin");
      // 5xx: GARM restarting or a proxy's upstream down; anything else is a refusal that will not change.
      else if (status === 401 || status >= 500) fail("retry");
      else fail({ refused: `refused its events socket (HTTP ${status})` });
    });
    socket.on("error", () => fail("retry"));
    socket.on("open", () => {
      if (!current()) {
        fail("retry"); // closed while the handshake ran
        return;
      }
      const state: State = { kind: "open", socket };
      this.state = state;
      this.failures = 0;
      socket.send(JSON.stringify(this.options.filter ?? EVENTS_FILTER));
      // GARM's one reader goroutine applies the filter before it reads the next frame (websocket/client.go:177-190,
      // events.go:191-192), and answers a ping while reading: the pong to a ping sent after the filter says it is set.
      socket.once("pong", () => {
        state.filtering = Date.now();
        this.earlyCloses = 0;
      });
      socket.ping();
      this.watchSilence(socket, () => fail("retry"));
    });
    socket.on("message", (data, isBinary) => {
      const event = isBinary ? undefined : parseEvent(data.toString());
      if (event === undefined) {
        // GARM's only non-event frames are its filter rejections (events.go:175, 186), should they get through.
        fail({ refused: `rejected the events filter ("${truncate(data.toString())}")` });
        return;
      }
      this.received++;
      for (const l of [...this.listeners]) l.onEvent(event);
    });
    socket.on("close", () => {
      const early = this.state.kind === "open" && this.state.socket === socket && this.state.filtering === undefined;
      if (early && ++this.earlyCloses >= EARLY_CLOSES_REFUSED) {
        fail({ refused: `closed its events socket ${this.earlyCloses} times as soon as it got the events filter` });
      } else fail("retry");
    });
  }

  /** Pings at half the silence bound; a socket that answered nothing since the last ping is dead. */
  private watchSilence(socket: WebSocket, dead: () => void): void {
    let heard = true;
    const hear = () => {
      heard = true;
    };
    socket.on("pong", hear);
    socket.on("ping", hear);
    socket.on("message", hear);
    const timer = setInterval(() => {
      if (!heard) {
        clearInterval(timer);
        dead();
        return;
      }
      heard = false;
      socket.ping();
    }, (this.options.silenceMs ?? 45_000) / 2);
    timer.unref();
    socket.once("close", () => clearInterval(timer));
  }

  private retryLater(): void {
    if (this.closed || this.listeners.size === 0) {
      this.state = { kind: "idle" };
      return;
    }
    const ceiling = Math.min(RECONNECT_MAX_MS, 500 * 2 ** this.failures++);
    const delay = Math.round(ceiling * (0.5 + (this.options.random ?? Math.random)() / 2));
    const timer = setTimeout(() => {
      if (this.state.kind === "waiting" && this.state.timer === timer) void this.connect();
    }, delay);
    timer.unref();
    this.state = { kind: "waiting", timer };
  }
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

/** A frame in GARM's ChangePayload shape, else undefined. */
export function parseEvent(text: string): GarmEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const o = value as Record<string, unknown>;
  if (typeof o["entity-type"] !== "string" || typeof o["operation"] !== "string") return undefined;
  const payload = typeof o["payload"] === "object" && o["payload"] !== null ? (o["payload"] as Record<string, unknown>) : {};
  return { entityType: o["entity-type"], operation: o["operation"], payload };
}

/** `PULUMI_GARM_EVENTS=off` turns the socket off: every wait polls at drain.pollSeconds, as before events existed. */
export function eventsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(off|false|0|no)$/i.test(env["PULUMI_GARM_EVENTS"] ?? "");
}

/** This client's GARM events socket, one per client: the same base URL and login as its REST calls. */
export const eventsSocketOf = perClient(
  (client: Pick<GarmClient, "transport">, log: Logger) =>
    new GarmEvents({ url: client.transport.baseUrl.replace(/\/api\/v1$/, ""), login: (refused) => client.transport.socketLogin(refused), log }),
);
