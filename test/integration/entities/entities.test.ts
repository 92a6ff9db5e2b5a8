// GarmOrganization, GarmRepository and GarmEnterprise through the engine harness against the GARM simulator: the same
// scenarios for each kind, since one implementation serves the three (issue 14).
import { strict as assert } from "node:assert";
import { ref } from "../../../harness/engine";
import { type Fixture, type Kind, RESOURCE, SECRET, startFixture } from "./fixture";

type Json = Record<string, unknown>;

const mutating = (fx: Fixture) => fx.sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));

for (const kind of ["organization", "repository", "enterprise"] as Kind[]) {
  const { plural, name: garmName, type } = RESOURCE[kind];
  const webhooks = kind !== "enterprise";

  describe(`${type} against the GARM simulator`, function () {
    this.timeout(90_000);
    let fx: Fixture;
    afterEach(async () => fx?.close());

    const entityIn = async (): Promise<Json[]> => (await fx.api("GET", `/${plural}`)).body as Json[];
    const mine = async () => (await entityIn()).find((e) => (e.owner ? `${e.owner}/${e.name}` : e.name) === garmName);

    it("creates, previews an unchanged program as a no-op, updates credentials, balancer and agent mode in place, and destroys", async () => {
      fx = await startFixture();
      const extra = webhooks ? { installWebhook: true } : {};
      const up = await fx.engine.up([fx.entity(kind, "ent", extra)]);
      assert.ok(up.ok, JSON.stringify(up.errors));
      const created = await mine();
      assert.ok(created, "GARM has the entity");
      assert.equal(fx.engine.state().resources.find((r) => r.name === "ent")?.id, created.id);
      assert.equal(up.outputs.ent?.endpointName, "github.com");
      assert.equal(up.outputs.ent?.webhookInstalled, webhooks);
      if (webhooks) assert.equal((await fx.api("GET", `/${plural}/${created.id}/webhook`)).status, 200);

      fx.sim.clearRequests();
      const preview = await fx.engine.preview([fx.entity(kind, "ent", extra)]);
      assert.equal(preview.diffs.ent?.changes, "none");
      const again = await fx.engine.up([fx.entity(kind, "ent", extra)]);
      assert.deepEqual(again.same, ["ent"]);
      assert.deepEqual(mutating(fx), [], "an unchanged up changes nothing in GARM");

      await fx.api("POST", "/github/credentials", { name: "acme-pat-2", endpoint: "github.com", auth_type: "pat", pat: { oauth2_token: "t2" } });
      const changed = [fx.entity(kind, "ent", { ...extra, credentials: "acme-pat-2", poolBalancerType: "pack", agentMode: true })];
      const planned = await fx.engine.preview(changed);
      assert.equal(planned.diffs.ent?.changes, "some");
      assert.deepEqual(planned.diffs.ent?.replaces, []);
      fx.sim.clearRequests();
      const updated = await fx.engine.up(changed);
      assert.ok(updated.ok, JSON.stringify(updated.errors));
      assert.deepEqual(updated.updated, ["ent"]);
      assert.deepEqual(mutating(fx).map((r) => `${r.method} ${r.path}`), [`PUT /api/v1/${plural}/${created.id}`], "one PUT, no webhook churn");
      const after = (await mine()) as Json;
      assert.equal(after.credentials_name, "acme-pat-2");
      assert.equal(after.pool_balancing_type, "pack");
      assert.equal(after.agent_mode, true);
      assert.equal(after.id, created.id);

      const destroyed = await fx.engine.destroy();
      assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
      assert.equal(await mine(), undefined);
      assert.ok(destroyed.logs.some((l) => /deleted from GARM/.test(l)));
    });

    it("a new name previews as a replacement and leaves only the new entity", async () => {
      fx = await startFixture();
      await fx.engine.up([fx.entity(kind, "ent")]);
      const old = await mine();
      const renamed = kind === "repository" ? "octo/other" : `${garmName}-2`;
      const preview = await fx.engine.preview([fx.entity(kind, "ent", { name: renamed })]);
      assert.deepEqual(preview.diffs.ent?.replaces, ["name"]);
      assert.ok(preview.logs.some((l) => l.includes(`GARM cannot rename a ${kind}`)), preview.logs.join("\n"));
      const up = await fx.engine.up([fx.entity(kind, "ent", { name: renamed })]);
      assert.ok(up.ok, JSON.stringify(up.errors));
      assert.deepEqual(up.replaced, ["ent"]);
      const names = (await entityIn()).map((e) => (e.owner ? `${e.owner}/${e.name}` : e.name));
      assert.ok(names.includes(renamed) && !names.includes(garmName), names.join(", "));
      assert.notEqual(up.outputs.ent?.entityId, old?.id);
    });

    it("refresh picks up drift and an out-of-band delete; up puts both back", async () => {
      fx = await startFixture();
      const program = [fx.entity(kind, "ent")];
      await fx.engine.up(program);
      const id = (await mine())?.id as string;
      await fx.api("PUT", `/${plural}/${id}`, { pool_balancer_type: "pack" });
      const refreshed = await fx.engine.refresh();
      assert.ok(refreshed.ok, JSON.stringify(refreshed.errors));
      assert.equal(fx.engine.state().resources.find((r) => r.name === "ent")?.outputs.poolBalancerType, "pack");
      const fixed = await fx.engine.up(program);
      assert.deepEqual(fixed.updated, ["ent"]);
      assert.equal(((await mine()) as Json).pool_balancing_type, "roundrobin");

      assert.equal((await fx.api("DELETE", `/${plural}/${id}`)).status, 200);
      const gone = await fx.engine.refresh();
      assert.deepEqual(gone.dropped, ["ent"]);
      const recreated = await fx.engine.up(program);
      assert.deepEqual(recreated.created, ["ent"]);
      assert.ok(await mine());
    });

    it("refuses to create over an existing entity unless adoptExisting is set, then adopts it with this program's settings", async () => {
      fx = await startFixture();
      const [owner, repo] = garmName.split("/");
      const body = kind === "repository" ? { owner, name: repo } : { name: garmName };
      const made = await fx.api("POST", `/${plural}`, { ...body, credentials_name: "acme-pat", webhook_secret: "someone-elses", pool_balancer_type: "pack" });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const existing = made.body as Json;

      const refused = await fx.engine.up([fx.entity(kind, "ent")]);
      assert.equal(refused.ok, false);
      assert.match(refused.errors.ent ?? "", /already has this .*set adoptExisting: true/);

      const adopted = await fx.engine.up([fx.entity(kind, "ent", { adoptExisting: true })]);
      assert.ok(adopted.ok, JSON.stringify(adopted.errors));
      assert.equal(adopted.outputs.ent?.entityId, existing.id);
      assert.equal(((await mine()) as Json).pool_balancing_type, "roundrobin");
      assert.equal((await entityIn()).length, kind === "enterprise" ? 1 : 2, "no second entity");
    });

    it("adopts an entity GARM holds under the name in another case, as GARM's duplicate check finds it", async () => {
      fx = await startFixture();
      const upper = garmName.toUpperCase();
      const [owner, repo] = upper.split("/");
      const body = kind === "repository" ? { owner, name: repo } : { name: upper };
      const made = await fx.api("POST", `/${plural}`, { ...body, credentials_name: "acme-pat", webhook_secret: "someone-elses" });
      assert.equal(made.status, 200, JSON.stringify(made.body));

      const refused = await fx.engine.up([fx.entity(kind, "ent")]);
      assert.equal(refused.ok, false);
      assert.match(refused.errors.ent ?? "", new RegExp(`already has this ${kind} under endpoint github.com; set adoptExisting: true`));
      const adopted = await fx.engine.up([fx.entity(kind, "ent", { adoptExisting: true })]);
      assert.ok(adopted.ok, JSON.stringify(adopted.errors));
      assert.equal(adopted.outputs.ent?.entityId, (made.body as Json).id);
      const preview = await fx.engine.preview([fx.entity(kind, "ent", { adoptExisting: true })]);
      assert.equal(preview.diffs.ent?.changes, "none");
    });

    it("a scale set takes the entity's name output, so destroy deletes the scale set first; an unmanaged scale set or pool blocks the delete by name", async () => {
      fx = await startFixture();
      const program = [fx.entity(kind, "ent"), fx.scaleSet("ss", { [kind]: ref("ent", "name") })];
      const preview = await fx.engine.preview(program);
      assert.ok(preview.ok, JSON.stringify({ errors: preview.errors, failures: preview.checkFailures }));
      const up = await fx.engine.up(program);
      assert.ok(up.ok, JSON.stringify(up.errors));
      const entityId = up.outputs.ent?.entityId as string;
      assert.equal(up.outputs.ss?.entityId, entityId);

      const foreign = await fx.api("POST", `/${plural}/${entityId}/scalesets`, {
        name: "hand-made",
        provider_name: "fake",
        image: "ubuntu",
        flavor: "small",
        os_type: "linux",
        os_arch: "amd64",
        max_runners: 1,
        labels: ["x"],
      });
      assert.equal(foreign.status, 200, JSON.stringify(foreign.body));
      const pool = fx.sim.addPool("fake", entityId);

      const refused = await fx.engine.destroy();
      assert.equal(refused.ok, false);
      assert.deepEqual(refused.deleted, ["ss"], "the managed scale set goes first");
      const message = refused.errors.ent ?? "";
      assert.match(message, /scale set "hand-made" \(id \d+, provider fake\)/);
      assert.ok(message.includes(`pool ${pool}`), message);
      assert.match(message, /Remove those first/);
      assert.ok(await mine(), "the entity is kept");
      assert.ok(!fx.sim.requests().some((r) => r.method === "DELETE" && r.path === `/api/v1/${plural}/${entityId}`), "GARM was not asked to delete it");
      assert.equal(fx.sim.scaleSets().length, 1, "the unmanaged scale set is never deleted by the stack");
    });

    if (webhooks) {
      it("refresh notices a webhook removed outside Pulumi and up installs it again; removing installWebhook removes it", async () => {
        fx = await startFixture();
        await fx.engine.up([fx.entity(kind, "ent", { installWebhook: true })]);
        const id = (await mine())?.id as string;
        assert.equal((await fx.api("DELETE", `/${plural}/${id}/webhook`)).status, 200);
        await fx.engine.refresh();
        assert.equal(fx.engine.state().resources[0]?.outputs.webhookInstalled, false);
        const up = await fx.engine.up([fx.entity(kind, "ent", { installWebhook: true })]);
        assert.deepEqual(up.updated, ["ent"]);
        assert.equal((await fx.api("GET", `/${plural}/${id}/webhook`)).status, 200);
        const off = await fx.engine.up([fx.entity(kind, "ent", { installWebhook: false })]);
        assert.deepEqual(off.updated, ["ent"]);
        assert.equal((await fx.api("GET", `/${plural}/${id}/webhook`)).status, 404);
      });

      it("turning installWebhook on while rotating the secret ends with a hook signed by the new secret, over a hook made with the old one", async () => {
        fx = await startFixture();
        await fx.engine.up([fx.entity(kind, "ent")]);
        const id = (await mine())?.id as string;
        // Installed behind Pulumi's back while GARM held the first secret: GitHub signs with it.
        assert.equal((await fx.api("POST", `/${plural}/${id}/webhook`, {})).status, 200);
        assert.deepEqual(fx.sim.webhooksOf(id).map((h) => h.secret), [SECRET]);
        const rotated = "second-webhook-secret-4567";
        const up = await fx.engine.up([fx.entity(kind, "ent", { installWebhook: true, webhookSecret: rotated })]);
        assert.ok(up.ok, JSON.stringify(up.errors));
        assert.deepEqual(up.updated, ["ent"]);
        assert.deepEqual(fx.sim.webhooksOf(id).map((h) => h.secret), [rotated], "GitHub signs with the secret GARM now checks");
        assert.equal(up.outputs.ent?.webhookInstalled, true);
      });
    }

    it("keeps the webhook secret out of outputs and logs, and applies a rotated one", async () => {
      fx = await startFixture();
      const extra = webhooks ? { installWebhook: true } : {};
      await fx.engine.up([fx.entity(kind, "ent", extra)]);
      const id = (await mine())?.id as string;
      const hookBefore = webhooks ? ((await fx.api("GET", `/${plural}/${id}/webhook`)).body as Json).id : undefined;
      const rotated = "second-webhook-secret-4567";
      const preview = await fx.engine.preview([fx.entity(kind, "ent", { ...extra, webhookSecret: rotated })]);
      assert.equal(preview.diffs.ent?.changes, "some");
      assert.deepEqual(preview.diffs.ent?.replaces, []);
      fx.sim.clearRequests();
      const up = await fx.engine.up([fx.entity(kind, "ent", { ...extra, webhookSecret: rotated })]);
      assert.deepEqual(up.updated, ["ent"]);
      const calls = mutating(fx).map((r) => `${r.method} ${r.path}`);
      assert.ok(calls.includes(`PUT /api/v1/${plural}/${id}`), calls.join("\n"));
      if (webhooks) {
        const hookAfter = ((await fx.api("GET", `/${plural}/${id}/webhook`)).body as Json).id;
        assert.notEqual(hookAfter, hookBefore, "the hook is made again with the new secret");
      }
      const outputs = JSON.stringify(fx.engine.state().resources.map((r) => r.outputs));
      for (const secret of [SECRET, rotated]) {
        assert.ok(!outputs.includes(secret), "no output holds the secret");
        assert.ok(!fx.engine.logs.some((l) => l.includes(secret)), "no log line holds the secret");
      }
      const again = await fx.engine.preview([fx.entity(kind, "ent", { ...extra, webhookSecret: rotated })]);
      assert.equal(again.diffs.ent?.changes, "none", "the rotated secret is not seen as a change again");
    });
  });
}

describe("GarmScaleSet over an entity resource's entityId output", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("creates the entity first and deletes it last; the scale set's existing name inputs keep working beside it", async () => {
    fx = await startFixture();
    const program = [
      fx.entity("organization", "org"),
      fx.scaleSet("by-id", { entityId: ref("org", "entityId") }),
      fx.scaleSet("by-seeded-name", { name: "seeded", organization: "acme" }),
    ];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.ok(up.created.indexOf("org") < up.created.indexOf("by-id"));
    assert.equal(up.outputs["by-id"]?.entityId, up.outputs.org?.entityId);
    assert.equal(up.outputs["by-seeded-name"]?.entityName, "acme");
    const destroyed = await fx.engine.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
    assert.ok(destroyed.deleted.indexOf("by-id") < destroyed.deleted.indexOf("org"), destroyed.deleted.join(", "));
  });
});

describe("GarmOrganization create whose answer is lost", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("finds the organization GARM made and keeps it, instead of failing on the next run with a conflict", async () => {
    fx = await startFixture();
    fx.sim.loseNextResponse("POST", /^\/api\/v1\/organizations$/);
    const up = await fx.engine.up([fx.entity("organization", "org")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const orgs = ((await fx.api("GET", "/organizations?name=octo-org")).body as Json[]);
    assert.equal(orgs.length, 1);
    assert.equal(up.outputs.org?.entityId, orgs[0]?.id);
    assert.ok(up.logs.some((l) => /answer to the create was lost, but GARM has it/.test(l)), up.logs.join("\n"));
  });
});

describe("GarmRepository webhook on delete", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const deletes = () => fx.sim.requests().filter((r) => r.method === "DELETE").map((r) => `${r.path}${r.query}`);

  it("has GARM remove the webhook it installed with the delete, and leaves it with keepWebhookOnDelete", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.entity("repository", "repo", { installWebhook: true })]);
    const id = fx.engine.state().resources[0]?.id;
    fx.sim.clearRequests();
    await fx.engine.destroy();
    assert.deepEqual(deletes(), [`/api/v1/repositories/${id}?keepWebhook=false`]);
    assert.deepEqual(fx.sim.webhooksOf(String(id)), [], "GARM's delete removed the hook");

    await fx.engine.up([fx.entity("repository", "repo", { installWebhook: true, keepWebhookOnDelete: true })]);
    const kept = fx.engine.state().resources[0]?.id;
    fx.sim.clearRequests();
    const destroyed = await fx.engine.destroy();
    assert.deepEqual(deletes(), [`/api/v1/repositories/${kept}?keepWebhook=true`]);
    assert.ok(destroyed.logs.some((l) => /leaving its webhook in GitHub/.test(l)));
  });
});

describe("GarmOrganization moved to credentials of another endpoint", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("previews a replacement naming both endpoints and makes the organization under the new endpoint", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.entity("organization", "org")]);
    const ghes = await fx.api("POST", "/github/endpoints", {
      name: "ghes",
      api_base_url: "https://ghes.example.com/api/v3/",
      upload_base_url: "https://ghes.example.com/api/uploads/",
      base_url: "https://ghes.example.com",
    });
    assert.equal(ghes.status, 200, JSON.stringify(ghes.body));
    const creds = await fx.api("POST", "/github/credentials", { name: "ghes-pat", endpoint: "ghes", auth_type: "pat", pat: { oauth2_token: "t" } });
    assert.equal(creds.status, 200, JSON.stringify(creds.body));
    const moved = [fx.entity("organization", "org", { credentials: "ghes-pat" })];
    const preview = await fx.engine.preview(moved);
    assert.deepEqual(preview.diffs.org?.replaces, ["credentials"]);
    assert.ok(preview.logs.some((l) => /belong to endpoint ghes, not github.com/.test(l)), preview.logs.join("\n"));
    const up = await fx.engine.up(moved);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(up.outputs.org?.endpointName, "ghes");
    const orgs = (await fx.api("GET", "/organizations?name=octo-org")).body as Json[];
    assert.deepEqual(orgs.map((o) => (o.endpoint as Json).name), ["ghes"]);
  });
});

describe("GarmOrganization on credentials whose name GitHub and Gitea both hold", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("preview refuses the name both forges hold, naming both endpoints; Gitea credentials of their own name make the organization under Gitea", async () => {
    fx = await startFixture();
    const gitea = await fx.api("POST", "/gitea/endpoints", { name: "gitea-a", api_base_url: "https://gitea.example.com/api/v1", base_url: "https://gitea.example.com" });
    assert.equal(gitea.status, 200, JSON.stringify(gitea.body));
    for (const name of ["ACME-PAT", "gitea-pat"]) {
      const made = await fx.api("POST", "/gitea/credentials", { name, endpoint: "gitea-a", auth_type: "pat", pat: { oauth2_token: "t" } });
      assert.equal(made.status, 200, JSON.stringify(made.body));
    }
    const preview = await fx.engine.preview([fx.entity("organization", "org")]);
    assert.equal(preview.ok, false);
    assert.match(JSON.stringify(preview.checkFailures), /on both GitHub \(endpoint github\.com\) and Gitea \(endpoint gitea-a\)/);

    const program = [fx.entity("organization", "org", { credentials: "gitea-pat" })];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(up.outputs.org?.endpointName, "gitea-a");
    const again = await fx.engine.preview(program);
    assert.equal(again.diffs.org?.changes, "none");
  });
});
