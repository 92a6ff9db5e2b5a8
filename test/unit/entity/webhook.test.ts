// Webhook install and removal through GARM (provider/kinds/entity/webhook.ts, runner/pool/pool.go L2204-2345).
import { strict as assert } from "node:assert";
import { GarmApiError } from "../../../provider/garm/errors";
import { installWebhook, removeWebhook, webhookPresent } from "../../../provider/kinds/entity/webhook";

const failing = (err: GarmApiError) => async () => {
  throw err;
};

describe("entity webhook", () => {
  it("makes the hook again on GARM's 409 hook already installed: the hook found may carry an older secret (runner/pool/util.go L141-142)", async () => {
    const err = new GarmApiError("conflict", "POST /organizations/x/webhook", 409, "Conflict", "error installing webhook: error validating hook request: hook already installed");
    const calls: string[] = [];
    let hooks = 1;
    const api = {
      installWebhook: async () => {
        calls.push("install");
        if (hooks > 0) throw err;
        hooks++;
        return { id: 7, url: "u", active: true };
      },
      uninstallWebhook: async () => {
        calls.push("uninstall");
        hooks = 0;
      },
    };
    await installWebhook(api as never, "organization", "x", "GarmOrganization acme");
    assert.deepEqual(calls, ["install", "uninstall", "install"]);
    assert.equal(hooks, 1);
  });

  it("leaves a hook of another URL naming this GARM alone and says so", async () => {
    const err = new GarmApiError("conflict", "POST /organizations/x/webhook", 409, "Conflict", "error installing webhook: error validating hook request: a webhook containing the controller ID or hostname of this contreoller is already installed on this repository");
    let removed = false;
    const api = { installWebhook: failing(err), uninstallWebhook: async () => void (removed = true) };
    await assert.rejects(installWebhook(api as never, "organization", "x", "GarmOrganization acme"), /remove it there/);
    assert.equal(removed, false);
  });

  it("explains a missing route as webhook management being off", async () => {
    const err = new GarmApiError("unknown-route", "POST /organizations/x/webhook", 404, "Not found", "Resource not found");
    await assert.rejects(installWebhook({ installWebhook: failing(err), uninstallWebhook: failing(err) } as never, "organization", "x", "GarmOrganization acme"), /enable_webhook_management = true/);
  });

  it("explains an empty controller webhook URL", async () => {
    const err = new GarmApiError("bad-request", "POST /repositories/x/webhook", 400, "Bad Request", "error installing webhook: controller webhook url is empty");
    await assert.rejects(installWebhook({ installWebhook: failing(err), uninstallWebhook: failing(err) } as never, "repository", "x", "GarmRepository acme/app"), /GarmController's webhookUrl/);
  });

  it("removal of a hook of an entity already gone is done", async () => {
    const err = new GarmApiError("not-found", "DELETE /organizations/x/webhook", 404, "Not Found", "error fetching org: error fetching org: not found");
    await removeWebhook({ uninstallWebhook: failing(err) as never }, "organization", "x", "GarmOrganization acme");
  });

  it("reads hook not found as absent and other failures as unknown", async () => {
    const absent = new GarmApiError("not-found", "GET /organizations/x/webhook", 404, "Not Found", "error fetching webhook info: hook not found");
    assert.equal(await webhookPresent({ getWebhook: failing(absent) as never }, "organization", "x"), false);
    const down = new GarmApiError("connection", "GET /organizations/x/webhook", undefined, "connection refused", "");
    assert.equal(await webhookPresent({ getWebhook: failing(down) as never }, "organization", "x"), undefined);
  });
});
