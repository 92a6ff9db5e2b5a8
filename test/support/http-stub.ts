// A throwaway HTTP server on 127.0.0.1 whose answers a test scripts, for client tests that need the real wire.
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export type StubHandler = (req: StubRequest, res: http.ServerResponse) => void | Promise<void>;

export interface HttpStub {
  readonly url: string;
  readonly requests: StubRequest[];
  close(): Promise<void>;
}

export async function startHttpStub(handler: StubHandler): Promise<HttpStub> {
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(recorded);
      void Promise.resolve(handler(recorded, res)).catch((err: Error) => {
        res.statusCode = 599;
        res.end(err.message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer the way GARM does (application/json, explicit length). */
export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}
