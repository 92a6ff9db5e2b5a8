// The mock GitHub answers GARM's webhook calls (runner/pool/util.go L170-190; pool.go L2204-2269): list with
// per_page, create (201), ping (204), delete (204), for any organization or repository.
import { strict as assert } from "node:assert";
import { type MockGithub, startMockGithub } from "../../../harness/mock-github";

describe("mock GitHub webhooks", () => {
  let gh: MockGithub;
  afterEach(async () => gh?.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gh.url}/api/v3/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { Authorization: "Bearer pat" } });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };

  it("creates, lists, pings and deletes a repository hook, hiding its secret", async () => {
    gh = await startMockGithub();
    const hook = { active: true, events: ["workflow_job"], config: { url: "http://garm/webhooks/c1", content_type: "json", insecure_ssl: "0", secret: "shh" } };
    const created = await call("POST", "repos/octo/app/hooks", hook);
    assert.equal(created.status, 201);
    const id = (created.body as { id: number }).id;
    assert.equal((await call("POST", "repos/octo/app/hooks", hook)).status, 422, "GitHub refuses the same URL twice");
    const listed = (await call("GET", "repos/octo/app/hooks?per_page=100")).body as { id: number; config: { url: string; secret?: string } }[];
    assert.deepEqual(listed.map((h) => h.id), [id]);
    assert.equal(listed[0]?.config.secret, "********");
    assert.equal(gh.hooks.of("repos/octo/app")[0]?.secret, "shh");
    assert.deepEqual((await call("GET", "orgs/octo/hooks")).body, [], "an organization's hooks are its own");
    assert.equal((await call("POST", `repos/octo/app/hooks/${id}/pings`)).status, 204);
    assert.equal((await call("DELETE", `repos/octo/app/hooks/${id}`)).status, 204);
    assert.equal((await call("DELETE", `repos/octo/app/hooks/${id}`)).status, 404);
    assert.equal(gh.calls("deleteHook", 204), 1);
  });
});
