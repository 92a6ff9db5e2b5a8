// Read-only lists: providers, jobs, pools (garm-api.md §2.3, §9.4); templates are in templates.ts.
import { isUuid } from "../body";
import { badRequest, notFound } from "../errors";
import type { Router } from "../router";
import { jobView, poolView } from "../views";

export function registerListRoutes(router: Router): void {
  router.add("GET", "/providers", "api", (ctx) => ({
    status: 200,
    // Built from a Go map: no order is promised (§2.3); `type` is always "external".
    body: [...ctx.store.providers.values()].map((p) => {
      const o: Record<string, string> = { name: p.name, type: "external" };
      if (p.description !== "") o["description"] = p.description;
      return o;
    }),
  }));
  router.add("GET", "/jobs", "api", (ctx) => ({
    status: 200,
    body: [...ctx.store.jobs.values()].map((j) => jobView(ctx.store, j)),
  }));
  router.add("GET", "/pools", "api", (ctx) => ({
    status: 200,
    body: [...ctx.store.pools.values()].map((p) => poolView(ctx.store, p)),
  }));
  router.add("GET", "/pools/{id}", "api", (ctx) => {
    const id = ctx.params["id"]!;
    if (!isUuid(id)) throw badRequest("error fetching pool: error parsing id: invalid request");
    const p = ctx.store.pools.get(id.toLowerCase());
    if (p === undefined) throw notFound("error fetching pool: not found");
    return { status: 200, body: poolView(ctx.store, p) };
  });
}
