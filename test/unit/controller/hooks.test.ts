// GarmController's move of the entities' webhooks across a webhookUrl change (provider/kinds/controller/hooks.ts):
// GARM v0.2.1 removes only a hook at its current URL (runner/pool/pool.go L2204-2243), so each hook is removed before
// the change and installed after it, and put back when the change fails.
import { strict as assert } from "node:assert";
import { GarmApiError } from "../../../provider/garm/errors";
import { hookedEntities, movingHooks } from "../../../provider/kinds/controller/hooks";
import { controllerMethodsWith } from "../../../provider/kinds/controller/resource";

const OLD = "https://old.example.com/webhooks/c-1";
const NEW = "https://new.example.com/webhooks/c-1";
const quiet = { info() {}, warn() {} };
const notFound = () => new GarmApiError("not-found", "GET /x/webhook", 404, "Not Found", "error fetching webhook info: hook not found");

function fakeGarm(opts: { hooks: Record<string, string>; failInstall?: string; failGet?: string }) {
  const calls: string[] = [];
  let url = OLD;
  const hooks = new Map(Object.entries(opts.hooks));
  const api = {
    listEntities: async (kind: string) => (kind === "organization" ? [{ id: "o1", name: "acme" }, { id: "o2", name: "bare" }] : [{ id: "r1", name: "acme/app" }]) as never,
    getWebhook: async (_k: string, id: string) => {
      calls.push(`get ${id}`);
      if (id === opts.failGet) throw new GarmApiError("server-error", "GET /x/webhook", 500, "Server error", "");
      const at = hooks.get(id);
      if (at === undefined) throw notFound();
      return { id: 7, url: at, active: true };
    },
    uninstallWebhook: async (_k: string, id: string) => {
      calls.push(`uninstall ${id}`);
      if (hooks.get(id) === url) hooks.delete(id);
    },
    installWebhook: async (_k: string, id: string) => {
      calls.push(`install ${id}`);
      if (id === opts.failInstall) throw new GarmApiError("server-error", "POST /x/webhook", 500, "Server error", "");
      hooks.set(id, url);
      return { id: 8, url, active: true };
    },
    getController: async () => ({ controllerId: "c-1", metadataUrl: "https://garm.example.com/api/v1/metadata", callbackUrl: "https://garm.example.com/api/v1/callbacks", webhookUrl: url.replace(/\/c-1$/, ""), controllerWebhookUrl: url, minimumJobAgeBackoff: 0, version: "v0.2.1" }),
    updateController: async (body: { webhook_url?: string } = { webhook_url: "https://new.example.com/webhooks" }) => {
      calls.push("put");
      if (body.webhook_url !== undefined) url = `${body.webhook_url}/c-1`;
      return api.getController();
    },
  };
  return { api, calls, hooks };
}

describe("GarmController webhook move", () => {
  it("removes each hook at the old URL before the change and installs it after, leaving entities without a hook alone", async () => {
    const g = fakeGarm({ hooks: { o1: OLD, r1: OLD } });
    const hooked = await hookedEntities(g.api, OLD, quiet);
    assert.deepEqual(hooked.map((e) => e.id), ["o1", "r1"]);
    await movingHooks(g.api, hooked, quiet, () => g.api.updateController(), (i) => i.controllerWebhookUrl);
    assert.deepEqual(g.calls.slice(3), ["uninstall o1", "uninstall r1", "put", "install o1", "install r1"]);
    assert.deepEqual(Object.fromEntries(g.hooks), { o1: NEW, r1: NEW });
  });

  it("puts the removed hooks back at the old URL when the change fails", async () => {
    const g = fakeGarm({ hooks: { o1: OLD, r1: OLD } });
    const refused = async (): Promise<never> => {
      throw new Error("GARM refused");
    };
    await assert.rejects(movingHooks(g.api, await hookedEntities(g.api, OLD, quiet), quiet, refused, () => NEW), /GARM refused/);
    assert.deepEqual(Object.fromEntries(g.hooks), { o1: OLD, r1: OLD });
  });

  it("changes nothing when GARM cannot say whether an entity has a hook, naming it", async () => {
    const g = fakeGarm({ hooks: { o1: OLD }, failGet: "r1" });
    await assert.rejects(hookedEntities(g.api, OLD, quiet), /webhookUrl not changed.*repository acme\/app \(id r1\)/);
  });

  it("reports every entity whose hook could not be installed after the change, and installs the others", async () => {
    const g = fakeGarm({ hooks: { o1: OLD, r1: OLD }, failInstall: "o1" });
    await assert.rejects(movingHooks(g.api, await hookedEntities(g.api, OLD, quiet), quiet, () => g.api.updateController(), (i) => i.controllerWebhookUrl), /organization acme \(id o1\).*Run `pulumi up` again/);
    assert.deepEqual(Object.fromEntries(g.hooks), { r1: NEW });
  });

  it("makes a hook again that a GARM pool manager still holding the old URL made there", async () => {
    const g = fakeGarm({ hooks: { o1: OLD } });
    const hooked = await hookedEntities(g.api, OLD, quiet);
    let stale = true;
    const install = g.api.installWebhook;
    g.api.installWebhook = async (k, id) => {
      if (!stale) return install(k, id);
      stale = false;
      g.calls.push(`install ${id} (stale)`);
      g.hooks.set(id, OLD);
      return { id: 9, url: OLD, active: true };
    };
    const uninstall = g.api.uninstallWebhook;
    g.api.uninstallWebhook = async (k, id) => {
      if (g.calls.includes("put")) g.hooks.delete(id); // still the old URL in that pool manager
      return uninstall(k, id);
    };
    await movingHooks(g.api, hooked, quiet, () => g.api.updateController(), (i) => i.controllerWebhookUrl, 0);
    assert.deepEqual(Object.fromEntries(g.hooks), { o1: NEW });
  });

  it("the controller's update moves the hooks only when webhookUrl changes", async () => {
    const g = fakeGarm({ hooks: { o1: OLD } });
    const methods = controllerMethodsWith({ client: () => g.api as never, log: quiet });
    await methods.update!("c-1", {}, { minimumJobAgeBackoff: 5 });
    assert.deepEqual(g.calls, ["put"], "another setting: no hook calls");
    g.calls.length = 0;
    const { outs } = await methods.update!("c-1", {}, { webhookUrl: "https://new.example.com/webhooks" });
    assert.equal(outs.controllerWebhookUrl, NEW);
    assert.deepEqual(Object.fromEntries(g.hooks), { o1: NEW });
    assert.ok(g.calls.indexOf("uninstall o1") < g.calls.indexOf("put") && g.calls.indexOf("put") < g.calls.indexOf("install o1"), g.calls.join(", "));
  });
});
