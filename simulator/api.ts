// Dispatches /api/v1 requests: route match, the middleware gates, and error bodies (garm-behaviour.md §1.1, §1.5, §1.7).
import type { IncomingMessage } from "node:http";
import { tokenFromRequest, verifyToken } from "./auth";
import { ApiError, authFailed, routeNotFound } from "./errors";
import { Router, type Reply } from "./router";
import { registerAuthRoutes, urlsConfigured } from "./routes/auth";
import { registerEntityRoutes } from "./routes/entities";
import { registerForgeRoutes } from "./routes/forge";
import { registerInstanceRoutes } from "./routes/instances";
import { registerListRoutes } from "./routes/lists";
import { registerPoolRoutes } from "./routes/pools";
import { registerScaleSetRoutes } from "./routes/scalesets";
import { registerTemplateRoutes } from "./routes/templates";
import type { Store } from "./state";

const errorBody = (e: ApiError) => ({ error: e.label, details: e.details });

export class Api {
  private readonly router = new Router();

  constructor(private readonly store: Store) {
    registerAuthRoutes(this.router);
    registerEntityRoutes(this.router);
    registerForgeRoutes(this.router);
    registerScaleSetRoutes(this.router);
    registerInstanceRoutes(this.router);
    registerListRoutes(this.router);
    registerTemplateRoutes(this.router);
    registerPoolRoutes(this.router);
  }

  /** Whether GARM has a route for this path (any method); otherwise it answers its catch-all 404 (§1.1). */
  hasRoute(url: URL): boolean {
    if (url.pathname !== "/api/v1" && !url.pathname.startsWith("/api/v1/")) return false;
    let path = url.pathname.slice("/api/v1".length);
    if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
    return this.router.match("GET", path) !== undefined;
  }

  async dispatch(req: IncomingMessage, url: URL, rawBody: string): Promise<Reply> {
    const method = req.method ?? "GET";
    if (url.pathname !== "/api/v1" && !url.pathname.startsWith("/api/v1/")) {
      return { status: 404, body: errorBody(routeNotFound()) };
    }
    // Every route is registered with and without a trailing slash (§1.1).
    let path = url.pathname.slice("/api/v1".length);
    if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
    const match = this.router.match(method, path);
    if (match === undefined) return { status: 404, body: errorBody(routeNotFound()) };
    if ("methodMismatch" in match) return { status: 405 }; // gorilla/mux: 405 with an empty body
    const { route, params } = match;
    try {
      this.checkGate(route.gate, req);
      return await route.handler({ req, method, path, query: url.searchParams, params, rawBody, store: this.store });
    } catch (e) {
      if (e instanceof ApiError) return { status: e.status, body: errorBody(e) };
      this.store.log(`internal error on ${method} ${url.pathname}: ${String((e as Error).message ?? e).replace(/\s+/g, " ")}`);
      return { status: 500, body: { error: "Server error", details: "" } };
    }
  }

  /** initRequired → urlsRequired (before auth) → JWT, per route group (§1.1, §1.5). */
  private checkGate(gate: "open" | "init" | "controller" | "api", req: IncomingMessage): void {
    const store = this.store;
    if (gate === "open") return;
    if (store.users.length === 0) throw new ApiError(409, "init_required", "Missing superuser");
    if (gate === "init") return;
    if (gate === "api" && !urlsConfigured(store)) {
      throw new ApiError(
        409,
        "urls_required",
        "Missing required URLs. Make sure you update the metadata and callback URLs",
      );
    }
    const token = tokenFromRequest(req);
    if (token === undefined) throw authFailed();
    const claims = verifyToken(store.jwtSecret, token, store.clock());
    const user = claims === undefined ? undefined : store.users.find((u) => u.id === claims.user);
    if (claims === undefined || user === undefined || user.generation !== claims.generation) throw authFailed();
  }
}
