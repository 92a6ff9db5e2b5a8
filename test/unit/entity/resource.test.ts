// The entity resource over a GarmClient answered in process: a webhook GARM cannot install leaves a recorded partial create
// (the entity exists, so the next `up` installs the webhook instead of creating a second entity), and the secret
// reaches neither the recorded outputs nor the message.
import { strict as assert } from "node:assert";
import { GarmClient } from "../../../provider/garm/client";
import { entityMethodsWith } from "../../../provider/kinds/entity/resource";

type Handler = (method: string, path: string) => { status: number; body?: unknown };

function fakeClient(handler: Handler) {
  const calls: string[] = [];
  const transport = {
    baseUrl: "http://garm.test/api/v1",
    fetch: async (req: { method: string; url: string }) => {
      const url = new URL(req.url);
      const path = url.pathname.replace("/api/v1", "");
      calls.push(`${req.method} ${path}${req.method === "DELETE" ? url.search : ""}`);
      const { status, body } = handler(req.method, path);
      return new Response(body === undefined ? null : JSON.stringify(body), { status });
    },
  };
  return { client: GarmClient.inProcess(transport), calls };
}

const org = { id: "6c1b2f6e-0000-4000-8000-000000000001", name: "acme", credentials_name: "acme-pat", endpoint: { name: "github.com" }, pool_balancing_type: "roundrobin", agent_mode: false };
const inputs = { name: "acme", credentials: "acme-pat", webhookSecret: "top-secret-value", poolBalancerType: "roundrobin", agentMode: false, installWebhook: true, keepWebhookOnDelete: false, adoptExisting: false };

describe("entity resource", () => {
  it("records a partial create when the webhook cannot be installed, without the secret", async () => {
    const { client, calls } = fakeClient((method, path) => {
      if (method === "GET" && path === "/github/credentials") return { status: 200, body: [{ id: 1, name: "acme-pat", endpoint: { name: "github.com" } }] };
      if (method === "GET" && path === "/gitea/credentials") return { status: 200, body: null };
      if (method === "GET" && path === "/organizations") return { status: 200, body: [] };
      if (method === "POST" && path === "/organizations") return { status: 200, body: org };
      // Webhook management off: GARM's catch-all (apiserver/routers/routers.go L442).
      return { status: 404, body: { error: "Not found", details: "Resource not found" } };
    });
    const methods = entityMethodsWith("organization", { client: () => client, log: { info() {}, warn() {} } });
    const err = (await methods.create({ ...inputs }).then(() => undefined, (e: unknown) => e)) as Error & { id?: string; properties?: Record<string, unknown>; reasons?: string[] };
    assert.ok(err, "create fails");
    assert.equal(err.id, org.id);
    assert.equal(err.properties?.webhookInstalled, false);
    assert.equal(err.properties?.webhookSecret, undefined);
    assert.ok(!JSON.stringify(err.properties).includes("top-secret-value"));
    assert.ok(!err.message.includes("top-secret-value"));
    assert.match(err.message, /enable_webhook_management = true/);
    assert.deepEqual(calls, ["GET /github/credentials", "GET /gitea/credentials", "GET /organizations", "POST /organizations", `POST /organizations/${org.id}/webhook`]);
  });

  it("refuses to delete while GARM lists a scale set or pool under the entity, and sends no DELETE", async () => {
    const { client, calls } = fakeClient((method, path) => {
      if (path.endsWith("/scalesets")) return { status: 200, body: [{ id: 4, name: "team-b", provider_name: "lxd" }] };
      if (path === "/pools") return { status: 200, body: [{ id: "p-1", provider_name: "lxd", org_id: org.id }, { id: "p-2", provider_name: "lxd", org_id: "other" }] };
      return { status: 500, body: { error: "Server error", details: "" } };
    });
    const methods = entityMethodsWith("organization", { client: () => client, log: { info() {}, warn() {} } });
    const stored = { ...inputs, webhookSecret: undefined, entityId: org.id, entityKind: "organization", endpointName: "github.com", webhookSecretHash: "h", webhookSecretSalt: "s", webhookInstalled: true, stateVersion: 1 };
    await assert.rejects(methods.delete!(org.id, stored), (e: Error) => {
      assert.match(e.message, /not deleted, because GARM refuses to delete an organization that has scale sets or pools; it is used by scale set "team-b" \(id 4, provider lxd\), pool p-1 \(provider lxd\)\. Remove those first/);
      assert.ok(!e.message.includes("p-2"));
      return true;
    });
    assert.ok(!calls.some((c) => c.startsWith("DELETE")), calls.join(", "));
  });

  it("leaves the webhook in place when GARM refuses the delete (a pool added after the check), and lets GARM remove it only with the delete", async () => {
    let deleteAsked = false;
    const { client, calls } = fakeClient((method, path) => {
      if (path.endsWith("/scalesets")) return { status: 200, body: [] };
      if (path === "/pools") return { status: 200, body: deleteAsked ? [{ id: "p-9", provider_name: "lxd", org_id: org.id }] : [] };
      if (method === "DELETE" && path === `/organizations/${org.id}`) {
        deleteAsked = true;
        return { status: 400, body: { error: "Bad Request", details: "org has pools defined (p-9)" } };
      }
      return { status: 200, body: {} };
    });
    const methods = entityMethodsWith("organization", { client: () => client, log: { info() {}, warn() {} } });
    const stored = { ...inputs, webhookSecret: undefined, entityId: org.id, entityKind: "organization", endpointName: "github.com", webhookSecretHash: "h", webhookSecretSalt: "s", webhookInstalled: true, stateVersion: 1 };
    await assert.rejects(methods.delete!(org.id, stored), /not deleted, because GARM refuses to delete an organization that has scale sets or pools; it is used by pool p-9 \(provider lxd\)\./);
    const deletes = calls.filter((c) => c.startsWith("DELETE"));
    assert.deepEqual(deletes, [`DELETE /organizations/${org.id}?keepWebhook=false`], "no webhook removal of its own; GARM's delete removes it after its checks");
  });

  it("sends keepWebhook=true when the state says it installed no webhook, or keepWebhookOnDelete is set", async () => {
    for (const stored of [{ webhookInstalled: false }, { webhookInstalled: true, keepWebhookOnDelete: true }, { webhookInstalled: true, installWebhook: false }]) {
      const { client, calls } = fakeClient((method, path) => (path.endsWith("/scalesets") || path === "/pools" ? { status: 200, body: [] } : { status: 200, body: {} }));
      const methods = entityMethodsWith("organization", { client: () => client, log: { info() {}, warn() {} } });
      await methods.delete!(org.id, { ...inputs, webhookSecret: undefined, entityId: org.id, entityKind: "organization", endpointName: "github.com", webhookSecretHash: "h", webhookSecretSalt: "s", stateVersion: 1, ...stored });
      assert.deepEqual(calls.filter((c) => c.startsWith("DELETE")), [`DELETE /organizations/${org.id}?keepWebhook=true`], JSON.stringify(stored));
    }
  });

  it("an adopt whose webhook cannot be installed (GitHub unreachable) records the entity with webhookInstalled false", async () => {
    const { client, calls } = fakeClient((method, path) => {
      if (method === "GET" && path === "/github/credentials") return { status: 200, body: [{ id: 1, name: "acme-pat", endpoint: { name: "github.com" } }] };
      if (method === "GET" && path === "/gitea/credentials") return { status: 200, body: null };
      if (method === "GET" && path === "/organizations") return { status: 200, body: [org] };
      if (method === "PUT" && path === `/organizations/${org.id}`) return { status: 200, body: org };
      // GARM lists the hooks in GitHub first (pool.go L2246-2250): GitHub unreachable answers a plain 500.
      if (path === `/organizations/${org.id}/webhook`) return { status: 500, body: { error: "Server error", details: "" } };
      return { status: 404, body: { error: "Not found", details: "Resource not found" } };
    });
    const methods = entityMethodsWith("organization", { client: () => client, log: { info() {}, warn() {} } });
    const err = (await methods.create({ ...inputs, adoptExisting: true }).then(() => undefined, (e: unknown) => e)) as Error & { id?: string; properties?: Record<string, unknown> };
    assert.ok(err, "the adopt fails: nothing is installed");
    assert.equal(err.id, org.id);
    assert.equal(err.properties?.webhookInstalled, false);
    assert.ok(calls.includes(`POST /organizations/${org.id}/webhook`), calls.join(", "));
  });
});
