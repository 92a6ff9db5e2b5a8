// One HTTP exchange with GARM over Node's own http and https modules, on keep-alive connections.
// Node's parser is native. undici's is WebAssembly, and V8 compiling that module a second time, optimized, in the
// background, added about 27 MiB to every provider process after its first GARM request: a fifth of a provider's
// memory at a thousand scale sets (issue 35).
import * as http from "node:http";
import * as https from "node:https";

/** Response headers by lower-case name, a repeated header as an array (Node's IncomingHttpHeaders). */
export type IncomingHeaders = Record<string, string | string[] | undefined>;

export interface ExchangeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: Uint8Array;
  /** Ends the exchange: the request is destroyed and the promise rejects with an AbortError whose `cause` is the reason. */
  readonly signal: AbortSignal;
}

export interface ExchangeAnswer {
  readonly status: number;
  readonly headers: IncomingHeaders;
  readonly body: ArrayBuffer;
}

/** An idle connection kept for reuse is closed after this long, before a server or proxy that closes idle ones first. */
const IDLE_MS = 4000;

export class HttpExchange {
  private readonly http: http.Agent;
  private readonly https: https.Agent;

  /** `caCert`: PEM text of a CA bundle to trust for TLS, instead of Node's default roots. */
  constructor(caCert?: string) {
    this.http = new http.Agent({ keepAlive: true, timeout: IDLE_MS });
    this.https = new https.Agent({ keepAlive: true, timeout: IDLE_MS, ...(caCert ? { ca: caCert } : {}) });
  }

  send(request: ExchangeRequest): Promise<ExchangeAnswer> {
    const target = new URL(request.url);
    const secure = target.protocol === "https:";
    const body = request.body && request.body.byteLength > 0 ? request.body : undefined;
    const headers = body ? { ...request.headers, "content-length": String(body.byteLength) } : request.headers;
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(target, { method: request.method, headers, agent: secure ? this.https : this.http, signal: request.signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const whole = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer });
        });
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  /** Closes the kept connections; one in use ends with its exchange. */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
