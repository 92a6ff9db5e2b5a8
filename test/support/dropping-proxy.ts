// A proxy in front of the simulator that stands in for a connection that drops: each POST matching a pattern is
// forwarded, held back, or dropped before GARM sees it (its answer lost and nothing landed), as the test decides.
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";

export interface Post {
  readonly body: Record<string, unknown>;
}

/** Decides what the proxy does with a create: forward it, or drop its connection without forwarding. */
export type OnCreate = (post: Post) => Promise<"forward" | "drop">;

export interface Proxy {
  readonly url: string;
  close(): Promise<void>;
}

export async function startProxy(target: string, creates: RegExp, onCreate: OnCreate): Promise<Proxy> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const forward = () => {
        const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        out.on("error", () => req.socket.destroy());
        out.end(body);
      };
      if (req.method !== "POST" || !creates.test(req.url ?? "")) return forward();
      void onCreate({ body: JSON.parse(body.toString("utf8")) as Record<string, unknown> }).then((what) => (what === "drop" ? req.socket.destroy() : forward()));
    });
  });
  // The events socket (a WebSocket upgrade) passes through as bytes.
  server.on("upgrade", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const upstream = net.connect(Number(to.port), to.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`), "", ""];
      upstream.write(lines.join("\r\n"));
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
