// Issue 34: GARM moved behind a new webhook URL, and an organization or repository renamed in case only. GARM does
// nothing to the hooks in GitHub when its controller URL changes, and removes only a hook at its current URL
// (runner/pool/pool.go L2204-2243), so the hooks must move in the same `up`; and GARM compares entity names ignoring
// case, so `Acme` → `acme` is the same entity, which must never be replaced (a replacement deletes first, and GARM
// refuses that while pools exist).
import { strict as assert } from "node:assert";
import { ref } from "../../../harness/engine";
import { type Fixture, type Kind, RESOURCE, startFixture } from "./fixture";

type Json = Record<string, unknown>;

describe("a new controller webhook URL moves every entity's webhook in the same up", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const OLD = "https://garm-old.example.com/webhooks";
  const NEW = "https://garm-new.example.net/webhooks";

  const program = (url: string) => [
    fx.controller("ctl", { webhookUrl: url }),
    fx.entity("organization", "org", { installWebhook: true, webhookUrl: ref("ctl", "webhookUrl") }),
    fx.entity("repository", "repo", { installWebhook: true, webhookUrl: ref("ctl", "webhookUrl") }),
    // Takes no webhookUrl: its hook moves all the same, with the controller's update.
    fx.entity("organization", "loose", { name: "loose-org", installWebhook: true }),
    fx.entity("repository", "plain", { name: "octo/plain" }),
  ];

  it("previews an update of each entity with a webhook, and after one up every hook points at the new URL", async () => {
    fx = await startFixture("webhook-url-it");
    const up = await fx.engine.up(program(OLD));
    assert.ok(up.ok, JSON.stringify(up.errors));
    const cid = fx.sim.controllerId();
    const ids = { org: String(up.outputs.org?.entityId), repo: String(up.outputs.repo?.entityId), loose: String(up.outputs.loose?.entityId), plain: String(up.outputs.plain?.entityId) };
    const hookUrls = (id: string) => fx.sim.webhooksOf(id).map((h) => h.url);
    for (const name of ["org", "repo", "loose"] as const) assert.deepEqual(hookUrls(ids[name]), [`${OLD}/${cid}`], name);

    const preview = await fx.engine.preview(program(NEW));
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    assert.equal(preview.diffs.ctl?.changes, "some");
    for (const name of ["org", "repo"]) {
      assert.equal(preview.diffs[name]?.changes, "some", `${name} is listed as an update`);
      assert.deepEqual(preview.diffs[name]?.replaces, [], name);
    }
    assert.equal(preview.diffs.plain?.changes, "none", "no webhook, nothing to move");
    assert.ok(preview.logs.some((l) => /GarmController .*webhookUrl.*moves? the webhooks/.test(l)), preview.logs.join("\n"));

    const moved = await fx.engine.up(program(NEW));
    assert.ok(moved.ok, JSON.stringify(moved.errors));
    assert.deepEqual([...moved.updated].sort(), ["ctl", "org", "repo"]);
    assert.equal(((await fx.api("GET", "/controller")).body as Json).webhook_url, NEW);
    for (const name of ["org", "repo", "loose"] as const) {
      assert.deepEqual(hookUrls(ids[name]), [`${NEW}/${cid}`], `${name}: one hook, at the new URL`);
    }
    assert.deepEqual(hookUrls(ids.plain), [], "an entity without installWebhook gets no hook");
    for (const name of ["org", "repo", "loose"]) assert.equal(moved.outputs[name]?.webhookInstalled, true, name);

    const again = await fx.engine.preview(program(NEW));
    for (const name of ["ctl", "org", "repo", "loose", "plain"]) assert.equal(again.diffs[name]?.changes, "none", name);
  });

  it("without a GarmController, an entity's update installs a missing hook where GARM points now, and names a hook GARM left at its former URL", async () => {
    fx = await startFixture("webhook-url-it");
    await fx.api("PUT", "/controller", { webhook_url: OLD });
    const entities = (url: string) => [fx.entity("organization", "org", { installWebhook: true, webhookUrl: url }), fx.entity("organization", "stuck", { name: "stuck-org", installWebhook: true, webhookUrl: url })];
    const up = await fx.engine.up(entities(OLD));
    assert.ok(up.ok, JSON.stringify(up.errors));
    const org = String(up.outputs.org?.entityId);
    const stuck = String(up.outputs.stuck?.entityId);
    // GARM moved with garm-cli; the org's hook had been removed first, the other's was left at the old URL.
    assert.equal((await fx.api("DELETE", `/organizations/${org}/webhook`)).status, 200);
    await fx.api("PUT", "/controller", { webhook_url: NEW });
    const moved = await fx.engine.up(entities(NEW));
    assert.equal(moved.ok, false);
    assert.deepEqual(moved.updated, ["org"]);
    assert.deepEqual(fx.sim.webhooksOf(org).map((h) => h.url), [`${NEW}/${fx.sim.controllerId()}`], "installed where GARM points now");
    assert.match(moved.errors.stuck ?? "", /former webhook URL/);
    assert.deepEqual(fx.sim.webhooksOf(stuck).map((h) => h.url), [`${OLD}/${fx.sim.controllerId()}`]);
  });
});

for (const kind of ["organization", "repository", "enterprise"] as Kind[]) {
  const { plural, name: garmName, type } = RESOURCE[kind];

  describe(`${type} renamed in case only`, function () {
    this.timeout(60_000);
    let fx: Fixture;
    afterEach(async () => fx?.close());

    it("updates in place while a pool uses it, keeping GARM's entity and recording the new spelling", async () => {
      fx = await startFixture();
      const up = await fx.engine.up([fx.entity(kind, "ent")]);
      assert.ok(up.ok, JSON.stringify(up.errors));
      const id = String(up.outputs.ent?.entityId);
      fx.sim.addPool("fake", id);
      const recased = garmName.toUpperCase();
      const program = [fx.entity(kind, "ent", { name: recased })];

      const preview = await fx.engine.preview(program);
      assert.ok(preview.ok, JSON.stringify(preview.errors));
      assert.equal(preview.diffs.ent?.changes, "some");
      assert.deepEqual(preview.diffs.ent?.replaces, []);
      assert.ok(!preview.logs.some((l) => /GARM cannot rename/.test(l)), preview.logs.join("\n"));

      fx.sim.clearRequests();
      const renamed = await fx.engine.up(program);
      assert.ok(renamed.ok, JSON.stringify(renamed.errors));
      assert.deepEqual(renamed.updated, ["ent"]);
      assert.deepEqual(renamed.replaced, []);
      const writes = fx.sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));
      assert.deepEqual(writes, [], "nothing deleted, created or changed in GARM");
      assert.equal(renamed.outputs.ent?.entityId, id);
      assert.equal(renamed.outputs.ent?.name, recased);
      const held = (await fx.api("GET", `/${plural}/${id}`)).body as Json;
      assert.equal(held.id, id, "GARM keeps the entity, in its own spelling");
      const again = await fx.engine.preview(program);
      assert.equal(again.diffs.ent?.changes, "none");
    });
  });
}
