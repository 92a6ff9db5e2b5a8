// Issue 34 against the REAL GARM v0.2.1 and the mock GitHub, through the engine harness: a GarmController's new
// webhookUrl moves the hooks GARM installed (GARM itself leaves them at the old URL and could not remove them after),
// preview lists each entity that follows the URL, and a case-only rename of an organization with a pool updates in
// place (GARM refuses to delete it while the pool exists).
import { strict as assert } from "node:assert";
import { type ResourceDecl, ref } from "../../harness/engine";
import { engineForGarm } from "../../harness/engine-for-garm";
import { locateGarm } from "../../harness/real-garm";
import { type E2eEnvironment, startE2eEnvironment } from "../../harness/real-garm/environment";
import { controllerProvider, organizationProvider, repositoryProvider } from "../../sdk/nodejs/shim";

type Json = Record<string, unknown>;

describe("e2e: a new controller webhook URL and a case-only rename against real GARM v0.2.1", function () {
  this.timeout(300_000);
  let env: E2eEnvironment | undefined;

  before(function () {
    try {
      locateGarm();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  after(async () => env?.stop());

  it("moves every hook to the new URL in one up, previewing each entity's update; renames Hooks-Org → hooks-org in place with a pool on it", async () => {
    env = await startE2eEnvironment();
    const { garm, mock } = env;
    const engine = engineForGarm(garm, "webhook-url-e2e");
    const before = (await garm.api("GET", "/controller")).body as Json;
    const oldBase = String(before.webhook_url);
    const newBase = "http://garm-moved.example.net/webhooks";
    const common = { credentials: garm.credentialsName, webhookSecret: "e2e-hook-secret-0123", installWebhook: true };
    const program = (url: string, orgName = "Hooks-Org"): ResourceDecl[] => [
      { name: "ctl", type: "GarmController", module: "garm", provider: controllerProvider, inputs: { webhookUrl: url } },
      { name: "org", type: "GarmOrganization", module: "garm", provider: organizationProvider, inputs: { ...common, name: orgName, webhookUrl: ref("ctl", "webhookUrl") } },
      { name: "repo", type: "GarmRepository", module: "garm", provider: repositoryProvider, inputs: { ...common, name: "hooks/app", webhookUrl: ref("ctl", "webhookUrl") } },
    ];
    const hookUrls = () => ({ org: mock.hooks.of("orgs/Hooks-Org").map((h) => h.url), repo: mock.hooks.of("repos/hooks/app").map((h) => h.url) });

    const up = await engine.up(program(oldBase));
    assert.ok(up.ok, JSON.stringify(up.errors));
    const cid = String(before.controller_id);
    assert.deepEqual(hookUrls(), { org: [`${oldBase}/${cid}`], repo: [`${oldBase}/${cid}`] });

    const preview = await engine.preview(program(newBase));
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    for (const name of ["ctl", "org", "repo"]) assert.equal(preview.diffs[name]?.changes, "some", name);
    const moved = await engine.up(program(newBase));
    assert.ok(moved.ok, JSON.stringify(moved.errors));
    assert.deepEqual([...moved.updated].sort(), ["ctl", "org", "repo"]);
    assert.deepEqual(hookUrls(), { org: [`${newBase}/${cid}`], repo: [`${newBase}/${cid}`] }, "one hook each, at the new URL");
    assert.equal((await garm.api("GET", `/organizations/${String(moved.outputs.org?.entityId)}/webhook`)).status, 200, "GARM sees its hook");

    const orgId = String(moved.outputs.org?.entityId);
    const pool = await garm.api("POST", `/organizations/${orgId}/pools`, { provider_name: "fake", image: "ubuntu:24.04", flavor: "small", os_type: "linux", os_arch: "amd64", max_runners: 1, tags: ["e2e-case"], enabled: false });
    assert.equal(pool.status, 200, JSON.stringify(pool.body));
    const renamed = await engine.up(program(newBase, "hooks-org"));
    assert.ok(renamed.ok, JSON.stringify(renamed.errors));
    assert.deepEqual(renamed.updated, ["org"]);
    assert.equal(renamed.outputs.org?.entityId, orgId, "the same organization");
    assert.equal(((await garm.api("GET", `/organizations/${orgId}`)).body as Json).name, "Hooks-Org", "GARM keeps its spelling");
    assert.equal((await engine.preview(program(newBase, "hooks-org"))).diffs.org?.changes, "none");

    assert.equal((await garm.api("DELETE", `/pools/${String((pool.body as Json).id)}`)).status, 200);
    const destroyed = await engine.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
    assert.deepEqual(hookUrls(), { org: [], repo: [] }, "GARM's delete removed the hooks at its current URL");
  });
});
