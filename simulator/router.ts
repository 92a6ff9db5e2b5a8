// Route table of the simulated /api/v1 and the middleware gate each route sits behind (garm-behaviour.md §1.1).
import type { IncomingMessage } from "node:http";
import type { Store } from "./state";

/** open: first-run; init: initRequired; controller: init → JWT; api: init → urlsRequired → JWT (§1.1). */
export type Gate = "open" | "init" | "controller" | "api";

export interface Reply {
  status: number;
  /** JSON body; absent means an empty body (DELETE answers, §2.1, §2.2). */
  body?: unknown;
}

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly method: string;
  /** Path below /api/v1, without a trailing slash. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly params: Record<string, string>;
  readonly rawBody: string;
  readonly store: Store;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  gate: Gate;
  handler: Handler;
}

export type Match = { route: Route; params: Record<string, string> } | { methodMismatch: true } | undefined;

export class Router {
  private readonly routes: Route[] = [];

  /** `template` is like "/scalesets/{id}"; a segment value never contains "/". */
  add(method: string, template: string, gate: Gate, handler: Handler): void {
    const keys: string[] = [];
    const source = template.replace(/\{(\w+)\}/g, (_m, k: string) => {
      keys.push(k);
      return "([^/]+)";
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), keys, gate, handler });
  }

  match(method: string, path: string): Match {
    let pathMatched = false;
    for (const r of this.routes) {
      const m = r.pattern.exec(path);
      if (m === null) continue;
      pathMatched = true;
      if (r.method !== method) continue;
      const params: Record<string, string> = {};
      r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1]!)));
      return { route: r, params };
    }
    return pathMatched ? { methodMismatch: true } : undefined;
  }
}
