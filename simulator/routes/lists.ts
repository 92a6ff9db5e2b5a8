// Read-only lists: providers and jobs (garm-behaviour.md §2.3, §9.4); templates and pools have their own route files.
import type { Router } from "../router";
import { jobView } from "../views";

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
}
