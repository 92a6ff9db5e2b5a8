// A tiny REST service on 127.0.0.1 that the "widgets" test provider manages. It lives in the test process, so tests
// can look at what the provider process really did (an ordered event log) and inject failures.
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface Widget {
  id: string;
  name: string;
  size: number;
  tag?: string;
  serial: number;
}

export interface WidgetStore {
  url: string;
  widgets: Map<string, Widget>;
  /** "create <name>#<id>", "update <name>#<id>", "delete <name>#<id>", "delete-failed <name>#<id>", "get <id>". */
  events: string[];
  /** name -> how many more DELETEs of a widget with that name fail with 500. */
  failDeletes: Map<string, number>;
  /** name -> how many more POSTs with that name fail with 500. */
  failCreates: Map<string, number>;
  /** When set, requests must carry `authorization: Bearer <token>`. */
  token?: string;
  close(): Promise<void>;
}

export async function startWidgetStore(opts: { token?: string } = {}): Promise<WidgetStore> {
  let seq = 0;
  const store: Omit<WidgetStore, "url" | "close"> = { widgets: new Map(), events: [], failDeletes: new Map(), failCreates: new Map(), token: opts.token };
  const take = (m: Map<string, number>, name: string): boolean => {
    const n = m.get(name) ?? 0;
    if (n <= 0) return false;
    m.set(name, n - 1);
    return true;
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const send = (code: number, v?: unknown): void => {
        res.writeHead(code, { "content-type": "application/json" });
        res.end(v === undefined ? "" : JSON.stringify(v));
      };
      if (store.token && req.headers.authorization !== `Bearer ${store.token}`) return send(401, { error: "unauthorized" });
      const m = /^\/widgets(?:\/([^/]+))?$/.exec(req.url ?? "");
      if (!m) return send(404);
      const id = m[1];
      const w = id ? store.widgets.get(id) : undefined;
      const input = body ? (JSON.parse(body) as Partial<Widget>) : {};
      switch (req.method) {
        case "POST": {
          const name = String(input.name);
          if (take(store.failCreates, name)) return send(500, { error: "injected create failure" });
          const nw: Widget = { id: String(++seq), name, size: Number(input.size), serial: seq };
          if (input.tag !== undefined) nw.tag = input.tag;
          store.widgets.set(nw.id, nw);
          store.events.push(`create ${name}#${nw.id}`);
          return send(201, nw);
        }
        case "GET":
          store.events.push(`get ${id}`);
          return w ? send(200, w) : send(404);
        case "PUT":
          if (!w) return send(404);
          Object.assign(w, { size: input.size ?? w.size, tag: input.tag });
          store.events.push(`update ${w.name}#${w.id}`);
          return send(200, w);
        case "DELETE":
          if (!w) return send(404);
          if (take(store.failDeletes, w.name)) {
            store.events.push(`delete-failed ${w.name}#${w.id}`);
            return send(500, { error: "injected delete failure" });
          }
          store.widgets.delete(w.id);
          store.events.push(`delete ${w.name}#${w.id}`);
          return send(204);
        default:
          return send(405);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ...store,
    url,
    close: () => new Promise<void>((r) => server.close(() => r())),
  } as WidgetStore;
}
