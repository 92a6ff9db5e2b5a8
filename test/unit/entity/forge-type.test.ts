// Entity creates name the forge of their credentials (forge_type, params/requests.go L48, L91): GitHub and Gitea
// credentials may share a name, and GARM refuses an entity whose credentials name it finds on both forges
// (runner/common.go L21-22, answered as "credentials … not defined").
import { strict as assert } from "node:assert";
import { GarmClient } from "../../../provider/garm/client";
import { entityMethodsWith } from "../../../provider/kinds/entity/resource";

type Creds = { id: number; name: string; endpoint: { name: string } }[];

function fakeGarm(github: Creds, gitea: Creds) {
  const posts: { path: string; body: Record<string, unknown> }[] = [];
  const transport = {
    baseUrl: "http://garm.test/api/v1",
    fetch: async (req: { method: string; url: string; body?: string }) => {
      const path = new URL(req.url).pathname.replace("/api/v1", "");
      const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });
      if (req.method === "GET" && path === "/github/credentials") return answer(200, github);
      if (req.method === "GET" && path === "/gitea/credentials") return answer(200, gitea);
      if (req.method === "GET") return answer(200, []);
      if (req.method === "POST") {
        const body = JSON.parse(String(req.body)) as Record<string, unknown>;
        posts.push({ path, body });
        const endpoint = (body.forge_type === "gitea" ? gitea : github)[0]?.endpoint ?? { name: "github.com" };
        return answer(200, { id: "6c1b2f6e-0000-4000-8000-000000000002", name: body.name, owner: body.owner, credentials_name: body.credentials_name, endpoint });
      }
      return answer(404, { error: "Not found", details: "Resource not found" });
    },
  };
  return { client: GarmClient.inProcess(transport), posts };
}

const inputs = { name: "acme", credentials: "ci", webhookSecret: "s3cret-value", poolBalancerType: "roundrobin", agentMode: false, installWebhook: false, keepWebhookOnDelete: false, adoptExisting: false };
const quiet = { info() {}, warn() {} };

describe("entity forge type", () => {
  it("sends the forge of the credentials it finds, matching names ignoring case as GARM does", async () => {
    const { client, posts } = fakeGarm([], [{ id: 2, name: "CI", endpoint: { name: "gitea-a" } }]);
    const created = await entityMethodsWith("organization", { client: () => client, log: quiet }).create({ ...inputs });
    assert.equal(posts[0]?.body.forge_type, "gitea");
    assert.equal(created.outs.endpointName, "gitea-a");
    const repo = fakeGarm([{ id: 1, name: "ci", endpoint: { name: "github.com" } }], []);
    await entityMethodsWith("repository", { client: () => repo.client, log: quiet }).create({ ...inputs, name: "acme/app" });
    assert.equal(repo.posts[0]?.body.forge_type, "github");
  });

  it("refuses credentials whose name both forges hold, naming both endpoints, and sends no create", async () => {
    const { client, posts } = fakeGarm([{ id: 1, name: "ci", endpoint: { name: "github.com" } }], [{ id: 2, name: "CI", endpoint: { name: "gitea-a" } }]);
    await assert.rejects(entityMethodsWith("organization", { client: () => client, log: quiet }).create({ ...inputs }), (e: Error) => {
      assert.match(e.message, /GitHub \(endpoint github\.com\) and Gitea \(endpoint gitea-a\)/);
      assert.match(e.message, /rename one/);
      assert.ok(!e.message.includes("s3cret-value"));
      return true;
    });
    assert.deepEqual(posts, []);
  });

  it("an enterprise uses GitHub credentials only (runner/enterprises.go L41) and sends no forge_type", async () => {
    const { client, posts } = fakeGarm([{ id: 1, name: "ci", endpoint: { name: "github.com" } }], [{ id: 2, name: "ci", endpoint: { name: "gitea-a" } }]);
    const created = await entityMethodsWith("enterprise", { client: () => client, log: quiet }).create({ ...inputs });
    assert.equal(posts.length, 1);
    assert.equal("forge_type" in (posts[0]?.body ?? {}), false);
    assert.equal(created.outs.endpointName, "github.com");
  });

  it("refuses the ambiguity at preview for a new entity only, and says nothing when GARM cannot be read", async () => {
    const both = fakeGarm([{ id: 1, name: "ci", endpoint: { name: "github.com" } }], [{ id: 2, name: "ci", endpoint: { name: "gitea-a" } }]);
    const methods = entityMethodsWith("repository", { client: () => both.client, log: quiet });
    const raw = { name: "acme/app", credentials: "CI", webhookSecret: "s3cret-value" };
    const refused = await methods.check!({}, raw);
    assert.equal(refused.failures?.length, 1);
    assert.equal(refused.failures?.[0]?.property, "credentials");
    assert.match(refused.failures?.[0]?.reason ?? "", /on both GitHub \(endpoint github\.com\) and Gitea \(endpoint gitea-a\)/);
    assert.ok(!JSON.stringify(refused.failures).includes("s3cret-value"));
    // An existing entity keeps its forge: GARM's update looks the name up there.
    assert.deepEqual((await methods.check!({ ...raw, credentials: "old" }, raw)).failures, []);
    const down = { transport: { baseUrl: "http://garm.test/api/v1", fetch: async () => { throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }); } } };
    const offline = entityMethodsWith("repository", { client: () => GarmClient.inProcess(down.transport), log: quiet, diffReadTimeoutMs: 200 });
    assert.deepEqual((await offline.check!({}, raw)).failures, []);
  });
});
