// GARM's events socket (GET /api/v1/ws/events) as v0.2.1 serves it, with switches to refuse it, drop it, or keep it
// open but silent. Protocol citations (cloudbase/garm v0.2.1) are in provider/garm/events.ts; the ones this file
// imitates are repeated where they apply.
//
// GARM sends an event per database write; the simulator has no write hook, so it compares its rows with the last
// snapshot every few milliseconds while a socket listens and sends one event per row that changed. Two writes to a
// row within one comparison come out as one update, which GARM would send as two.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { tokenFromRequest, verifyToken } from "./auth";
import { type ApiError, authFailed } from "./errors";
import { urlsConfigured } from "./routes/auth";
import type { Store } from "./state";
import { ZERO_TIME } from "./state";
import { instanceView, jobView, scaleSetView } from "./views";

type Json = Record<string, unknown>;

/** "accept": as GARM; "refuse": answer the upgrade 400, as GARM does without websocket headers and as a proxy that strips them leads to; "silent": accept, then send no event (lost events). */
export type EventsSocketMode = "accept" | "refuse" | "silent";

export interface SentEvent {
  readonly "entity-type": string;
  readonly operation: "create" | "update" | "delete";
  readonly payload: Json;
}

/** Entity types GARM's filter accepts (workers/websocket/events/params.go:25-34). */
const ENTITY_TYPES = new Set([
  "repository", "organization", "enterprise", "pool", "user", "instance", "job", "controller",
  "github_credentials", "gitea_credentials", "scaleset", "github_endpoint", "template", "file_object",
]);
const OPERATIONS = new Set(["create", "update", "delete"]);

type Filter = (event: SentEvent) => boolean;
const NONE: Filter = () => false;

/** GARM's Options → filter; a string is the text GARM sends before closing (events.go:166-193, params.go:51-63). */
function parseFilter(text: string): Filter | "ignore" | "failed to unmarshal filter" | "invalid filter" {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return "failed to unmarshal filter";
  }
  // Go's json.Unmarshal into a struct: a non-object is an error; wrong field types are too.
  if (typeof o !== "object" || o === null || Array.isArray(o)) return "failed to unmarshal filter";
  const opts = o as Record<string, unknown>;
  const everything = opts["send-everything"];
  if (everything !== undefined && everything !== null && typeof everything !== "boolean") return "failed to unmarshal filter";
  if (everything === true) return () => true;
  const filters = opts["filters"] ?? [];
  if (!Array.isArray(filters)) return "failed to unmarshal filter";
  if (filters.length === 0) return "ignore"; // ErrNoFiltersProvided: no reply, filter unchanged (events.go:181-183)
  const parts: Filter[] = [];
  for (const f of filters as Record<string, unknown>[]) {
    if (typeof f !== "object" || f === null) return "failed to unmarshal filter";
    const type = f["entity-type"] ?? "";
    const ops = f["operations"] ?? [];
    if (typeof type !== "string" || !Array.isArray(ops)) return "failed to unmarshal filter";
    if (!ENTITY_TYPES.has(type)) return "invalid filter";
    if (ops.some((op) => typeof op !== "string" || !OPERATIONS.has(op))) return "invalid filter";
    parts.push((e) => e["entity-type"] === type && (ops.length === 0 || ops.includes(e.operation)));
  }
  return (e) => parts.some((p) => p(e));
}

interface Row {
  readonly type: string;
  /** The record as stored: a change to it is a change GARM would write. */
  readonly fingerprint: string;
  readonly view: () => Json;
  /** GARM's view at the last change, kept for the delete event. */
  payload?: Json;
}

interface Client {
  readonly socket: WebSocket;
  filter: Filter;
}

export interface EventsSocketOptions {
  /** GARM pings every 54 s (websocket/client.go:43). */
  readonly pingMs?: number;
  /** How often rows are compared while a socket listens, at least. @default 5 */
  readonly compareMs?: number;
}

export class EventsSocket {
  mode: EventsSocketMode = "accept";
  private readonly server = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly clients = new Set<Client>();
  private snapshot = new Map<string, Row>();
  private compareTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private readonly sent: SentEvent[] = [];
  /** Send GARM's queued rejection text before closing, which v0.2.1's race loses in practice. */
  textBeforeClose = false;
  /** Upgrade requests seen, accepted or not. */
  upgrades = 0;

  constructor(
    private readonly store: Store,
    private readonly say: (line: string) => void,
    private readonly options: EventsSocketOptions = {},
  ) {}

  /** Whether this upgrade is for the events socket; handles it if so (routers.go:613-614: with and without slash). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path !== "/api/v1/ws/events" && path !== "/api/v1/ws/events/") return false;
    this.upgrades++;
    const refusal = this.refusal(req);
    if (refusal !== undefined) {
      const body = JSON.stringify({ error: refusal.label, details: refusal.details });
      socket.end(`HTTP/1.1 ${refusal.status} ${refusal.label}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return true;
    }
    if (this.mode === "refuse") {
      // What gorilla's Upgrade answers when the Upgrade/Connection headers did not reach it.
      const body = "Bad Request\nwebsocket: the client is not using the websocket protocol: 'upgrade' token not found in 'Connection' header\n";
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return true;
    }
    this.server.handleUpgrade(req, socket, head, (ws) => this.attach(ws));
    return true;
  }

  /** The REST middlewares run first (routers.go:229-234): init, URLs, JWT (auth/jwt.go:118-158). */
  private refusal(req: IncomingMessage): ApiError | undefined {
    const store = this.store;
    if (store.users.length === 0) return { status: 409, label: "init_required", details: "Missing superuser" } as ApiError;
    if (!urlsConfigured(store)) {
      return { status: 409, label: "urls_required", details: "Missing required URLs. Make sure you update the metadata and callback URLs" } as ApiError;
    }
    const token = tokenFromRequest(req);
    const claims = token === undefined ? undefined : verifyToken(store.jwtSecret, token, store.clock());
    const user = claims === undefined ? undefined : store.users.find((u) => u.id === claims.user);
    if (claims === undefined || user === undefined || user.generation !== claims.generation) return authFailed();
    return undefined;
  }

  private attach(socket: WebSocket): void {
    // GARM registers the consumer with WithNone: nothing is sent until a filter arrives (events.go:43-46).
    const client: Client = { socket, filter: NONE };
    this.clients.add(client);
    this.say(`events socket opened (${this.clients.size} open)`);
    socket.on("message", (data) => {
      const parsed = parseFilter(data.toString());
      if (parsed === "ignore") return;
      if (typeof parsed === "string") {
        // GARM queues the text, then stops the client, whose Stop writes the close frame and closes the connection
        // before the writer sends the text (events.go:175-176, 186-187; websocket/client.go:104-118): v0.2.1 closes
        // with 1000 and no text (test/e2e/events-conformance.test.ts). `textBeforeClose` sends it first.
        if (this.textBeforeClose) socket.send(parsed);
        socket.close(1000);
        return;
      }
      client.filter = parsed;
    });
    socket.on("close", () => this.detach(client));
    socket.on("error", () => this.detach(client));
    this.startTimers();
  }

  private detach(client: Client): void {
    if (!this.clients.delete(client)) return;
    this.say(`events socket closed (${this.clients.size} open)`);
    if (this.clients.size === 0) this.stopTimers();
  }

  private startTimers(): void {
    if (this.compareTimer === undefined) {
      this.snapshot = this.rows();
      for (const row of this.snapshot.values()) row.payload = row.view();
      // At most a fifth of the CPU goes to comparing, however many rows there are.
      const next = (): void => {
        const started = performance.now();
        this.compare();
        const ms = Math.max(this.options.compareMs ?? 5, 4 * (performance.now() - started));
        this.compareTimer = setTimeout(next, ms);
        this.compareTimer.unref();
      };
      this.compareTimer = setTimeout(next, this.options.compareMs ?? 5);
      this.compareTimer.unref();
    }
    if (this.pingTimer === undefined) {
      this.pingTimer = setInterval(() => {
        for (const c of this.clients) c.socket.ping();
      }, this.options.pingMs ?? 54_000);
      this.pingTimer.unref();
    }
  }

  private stopTimers(): void {
    clearTimeout(this.compareTimer);
    clearInterval(this.pingTimer);
    this.compareTimer = undefined;
    this.pingTimer = undefined;
  }

  /** The rows GARM would send events for, keyed by type and id; the payload (GARM's view) is built only when needed. */
  private rows(): Map<string, Row> {
    const s = this.store;
    const rows = new Map<string, Row>();
    const add = (type: string, id: string | number, record: object, view: () => Json) => {
      rows.set(`${type}:${id}`, { type, fingerprint: JSON.stringify(record), view });
    };
    for (const ss of s.scaleSets.values()) {
      // GARM sends the row as read back with its template (database/sql/scalesets.go:67, 217); instances live in
      // instance events.
      add("scaleset", ss.id, ss, () => {
        const { instances: _instances, ...payload } = scaleSetView(s, ss, "get");
        return payload;
      });
    }
    for (const i of s.instances.values()) {
      add("instance", i.id, i, () => instanceView(s, i, { providerName: s.scaleSets.get(i.scaleSetId)?.providerName ?? "", withJob: false }));
    }
    for (const j of s.jobs.values()) add("job", j.id, { ...j, runner: s.instances.get(j.instanceId)?.name }, () => jobView(s, j));
    return rows;
  }

  /** Sends an event per row created, changed or gone since the last comparison (only in "accept" mode). */
  private compare(): void {
    const now = this.rows();
    const send = (type: string, operation: SentEvent["operation"], payload: Json) => {
      if (this.mode === "accept") this.emit({ "entity-type": type, operation, payload });
    };
    for (const [key, row] of now) {
      const before = this.snapshot.get(key);
      if (before !== undefined && before.fingerprint === row.fingerprint) {
        row.payload = before.payload;
        continue;
      }
      row.payload = row.view();
      send(row.type, before === undefined ? "create" : "update", row.payload);
    }
    for (const [key, row] of this.snapshot) {
      if (!now.has(key)) send(row.type, "delete", deletePayload(row.type, row.payload ?? {}));
    }
    this.snapshot = now;
  }

  private emit(event: SentEvent): void {
    this.sent.push(event);
    const frame = JSON.stringify(event);
    for (const c of this.clients) if (c.filter(event)) c.socket.send(frame);
  }

  /** Events sent (to any socket, filtered or not) since the last call. */
  takeSent(): SentEvent[] {
    return this.sent.splice(0);
  }

  /** Destroys every open socket without a close frame, as a dropped connection does. */
  drop(): void {
    for (const c of [...this.clients]) c.socket.terminate();
  }

  openSockets(): number {
    return this.clients.size;
  }

  close(): void {
    this.drop();
    this.stopTimers();
  }
}

/**
 * An instance delete carries only the identity fields, plus the fields without omitempty at their zero values
 * (database/sql/instances.go:179-199; params/params.go Instance); scale set and job deletes carry the row, the scale
 * set's without its template name.
 */
function deletePayload(type: string, p: Json): Json {
  if (type === "scaleset") {
    // Read without the template preload before the delete (database/sql/scalesets.go:428-433).
    const { template_name: _template, ...payload } = p;
    return payload;
  }
  if (type !== "instance") return p;
  const payload: Json = {};
  for (const key of ["id", "provider_id", "agent_id", "name"]) if (p[key] !== undefined) payload[key] = p[key];
  payload["provider_name"] = "";
  // time.Time is a struct: omitempty does not drop its zero value (seen from v0.2.1, test/e2e/events-conformance.test.ts).
  payload["created_at"] = ZERO_TIME;
  payload["updated_at"] = ZERO_TIME;
  payload["heartbeat"] = ZERO_TIME;
  payload["capabilities"] = { has_shell: false };
  payload["generation"] = 0;
  if (p["scale_set_id"] !== undefined) payload["scale_set_id"] = p["scale_set_id"];
  return payload;
}
