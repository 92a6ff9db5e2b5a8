import assert from "node:assert/strict";
import { Client, setup } from "./helpers";
import type { Simulator } from "../../../simulator";

describe("simulator: scale sets (§2.1, §3, §4)", () => {
  let sim: Simulator;
  let api: Client;
  beforeEach(async () => ({ sim, api } = await setup()));
  afterEach(async () => sim.stop());

  it("§2.1 POST under organizations, repositories and enterprises answers 200 with the scale set", async () => {
    const org = await api.createScaleSet({ name: "o1" });
    assert.equal(org.org_id, sim.organizationId);
    assert.equal(org.org_name, "acme");
    assert.equal("repo_id" in org, false);
    const r = await api.post(`/repositories/${sim.repositoryId}/scalesets`, {
      name: "r1", provider_name: "fake", image: "i", flavor: "f", os_type: "linux", max_runners: 1,
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.repo_id, sim.repositoryId);
    assert.equal(r.body.repo_name, "acme/app");
    const ent = await api.post("/enterprises", { name: "bigcorp", credentials_name: "acme-pat", webhook_secret: "s" });
    const e = await api.post(`/enterprises/${ent.body.id}/scalesets`, {
      name: "e1", provider_name: "fake", image: "i", flavor: "f", os_type: "windows", max_runners: 1,
    });
    assert.equal(e.status, 200);
    assert.equal(e.body.enterprise_name, "bigcorp");
  });

  it("refuses a scale set for a Gitea entity with 400, as GARM v0.2.1 does (runner/scalesets.go L227-229), and makes none", async () => {
    assert.equal((await api.post("/gitea/endpoints", { name: "gitea-a", base_url: "https://git.example.com", api_base_url: "https://git.example.com/api/v1" })).status, 200);
    assert.equal((await api.post("/gitea/credentials", { name: "gitea-pat", endpoint: "gitea-a", auth_type: "pat", pat: { oauth2_token: "t" } })).status, 200);
    const org = await api.post("/organizations", { name: "forge", credentials_name: "gitea-pat", forge_type: "gitea", webhook_secret: "s" });
    assert.equal(org.status, 200, JSON.stringify(org.body));
    const r = await api.post(`/organizations/${org.body.id}/scalesets`, { name: "g1", provider_name: "fake", image: "i", flavor: "f", os_type: "linux", max_runners: 1 });
    assert.equal(r.status, 400);
    assert.equal(r.body.details, "scale sets are only supported for github entities");
    assert.deepEqual(sim.scaleSets().map((ss) => ss.name), []);
  });

  it("§3.1 a disabled scale set has no `enabled` key; min_idle_runners 0 is omitted; defaults are filled", async () => {
    const ss = await api.createScaleSet({ name: "plain", enabled: false, min_idle_runners: 0 });
    assert.equal("enabled" in ss, false);
    assert.equal("min_idle_runners" in ss, false);
    assert.equal(ss.runner_bootstrap_timeout, 20);
    assert.equal(ss["github-runner-group"], "Default");
    assert.equal(ss.runner_prefix, "garm");
    assert.equal(ss.state, "pending_create");
    assert.equal(ss.disable_update, false);
    assert.equal(ss.enable_shell, false);
    assert.equal(ss.generation, 0);
    assert.equal(ss.status_messages, null);
    assert.equal(typeof ss.scale_set_id, "number");
    assert.equal(ss.template_name, "github_linux");
    assert.equal(ss.endpoint.name, "github.com");
    assert.equal("instances" in ss, false, "empty instances are omitted");
    assert.equal("desired_runner_count" in ss, false);
    const on = await api.createScaleSet({ name: "on", enabled: true, min_idle_runners: 1 });
    assert.equal(on.enabled, true);
    assert.equal(on.min_idle_runners, 1);
  });

  it("§3.5/§3.7 labels go in as `labels`, come back as `tags` [{id,name}], looked up case-insensitively as global rows", async () => {
    await api.createScaleSet({ name: "first", labels: ["linux", "GPU"] });
    const ss = await api.createScaleSet({ name: "second", labels: ["Linux", "gpu", "new"] });
    assert.equal("labels" in ss, false);
    const names = ss.tags.map((t: { name: string }) => t.name).sort();
    assert.deepEqual(names, ["GPU", "linux", "new"]);
    for (const t of ss.tags) assert.deepEqual(Object.keys(t).sort(), ["id", "name"]);
  });

  it("§2.1 list responses omit instances and template_name but carry extra_specs (scalesets.go L42-43: the second Omit replaces the first); GET by id has them all", async () => {
    const created = await api.createScaleSet({ name: "x", extra_specs: { a: 1 } });
    sim.addRunner(created.id);
    for (const path of ["/scalesets", `/organizations/${sim.organizationId}/scalesets`]) {
      const r = await api.get(path);
      assert.equal(r.status, 200);
      const item = r.body.find((s: { id: number }) => s.id === created.id);
      assert.deepEqual(item.extra_specs, { a: 1 }, path);
      assert.equal("instances" in item, false, path);
      assert.equal("template_name" in item, false, path);
      assert.equal(item.template_id, created.template_id);
    }
    const one = await api.get(`/scalesets/${created.id}`);
    assert.deepEqual(one.body.extra_specs, { a: 1 });
    assert.equal(one.body.instances.length, 1);
    assert.equal(one.body.instances[0].provider_name, "", "nested instances lack provider_name");
    assert.equal(one.body.template_name, "github_linux");
  });

  it("tags come back in the order their rows were created, not as sent, and Linux folds into an existing linux (util.go L560-577)", async () => {
    await api.createScaleSet({ name: "first", labels: ["linux"] });
    const labels = ["zz", "mm", "Linux", "aa", "qq"];
    const created = await api.createScaleSet({ name: "tagged", labels });
    const pool = await api.post(`/organizations/${sim.organizationId}/pools`, {
      provider_name: "fake", image: "i", flavor: "f", os_type: "linux", os_arch: "amd64", max_runners: 1, tags: labels,
    });
    assert.equal(pool.status, 200, pool.text);
    for (const path of [`/scalesets/${created.id}`, `/pools/${pool.body.id}`]) {
      const tags = (await api.get(path)).body.tags as { id: string; name: string }[];
      assert.deepEqual(tags.map((t) => t.name), ["linux", "zz", "mm", "aa", "qq"], path);
    }
  });

  it("GET /pools leaves extra_specs out (pools.go L48); GET /pools/{id} has them", async () => {
    const pool = await api.post(`/organizations/${sim.organizationId}/pools`, {
      provider_name: "fake", image: "i", flavor: "f", os_type: "linux", os_arch: "amd64", max_runners: 1, tags: ["linux"], extra_specs: { a: 1 },
    });
    assert.equal(pool.status, 200, pool.text);
    const listed = (await api.get("/pools")).body.find((p: { id: string }) => p.id === pool.body.id);
    assert.equal("extra_specs" in listed, false);
    assert.deepEqual((await api.get(`/pools/${pool.body.id}`)).body.extra_specs, { a: 1 });
  });

  it("§2.1 GET /scalesets/{id}: non-numeric id is 400 invalid request, unknown id is 404", async () => {
    let r = await api.get("/scalesets/abc");
    assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "invalid request" }]);
    r = await api.get("/scalesets/99999");
    assert.equal(r.status, 404);
    assert.equal(r.body.error, "Not Found");
  });

  it("§2.1 GET /scalesets/{id}/instances of an unknown id is [] not 404", async () => {
    const r = await api.get("/scalesets/4242/instances");
    assert.deepEqual([r.status, r.body], [200, []]);
  });

  it("§2.4 GET /{entity}/{id}/scalesets: 400 for a non-UUID id, 404 for an unknown UUID", async () => {
    assert.equal((await api.get("/organizations/acme/scalesets")).status, 400);
    assert.equal((await api.get("/organizations/00000000-0000-4000-8000-000000000000/scalesets")).status, 404);
  });

  it("§4.4 create: unknown entity is 404; missing or invalid os_type is 400 before GitHub", async () => {
    let r = await api.post("/organizations/00000000-0000-4000-8000-000000000000/scalesets", { name: "a", os_type: "linux" });
    assert.equal(r.status, 404);
    for (const os of [undefined, "macos"]) {
      r = await api.post(`/organizations/${sim.organizationId}/scalesets`, {
        name: "a", provider_name: "fake", image: "i", flavor: "f", max_runners: 1, os_type: os,
      });
      assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "failed to find suitable template: no template ID supplied and no default template can be found" }]);
    }
  });

  it("§4.4 create: validation errors come after GitHub as 500 with empty details, and nothing is stored", async () => {
    const bad: Record<string, unknown>[] = [
      { provider_name: "" },
      { min_idle_runners: 3, max_runners: 2 },
      { max_runners: 0 },
      { flavor: "" },
      { image: "" },
      { name: "" },
    ];
    for (const o of bad) {
      const r = await api.post(`/organizations/${sim.organizationId}/scalesets`, {
        name: "v", provider_name: "fake", image: "i", flavor: "f", os_type: "linux", max_runners: 2, ...o,
      });
      assert.deepEqual([r.status, r.body], [500, { error: "Server error", details: "" }], JSON.stringify(o));
    }
    assert.deepEqual(sim.scaleSets(), []);
    // The GitHub scale set was cleaned up, so the name is free again.
    await api.createScaleSet({ name: "v" });
  });

  it("§4.4 create does not check that the provider exists", async () => {
    const ss = await api.createScaleSet({ name: "ghost", provider_name: "no-such-provider" });
    assert.equal(ss.provider_name, "no-such-provider");
  });

  it("§8 a duplicate name in the same entity and runner group is refused by GitHub (400); another entity may reuse it", async () => {
    await api.createScaleSet({ name: "dup" });
    const r = await api.post(`/organizations/${sim.organizationId}/scalesets`, {
      name: "dup", provider_name: "fake", image: "i", flavor: "f", os_type: "linux", max_runners: 1,
    });
    assert.equal(r.status, 400);
    const other = await api.post(`/repositories/${sim.repositoryId}/scalesets`, {
      name: "dup", provider_name: "fake", image: "i", flavor: "f", os_type: "linux", max_runners: 1,
    });
    assert.equal(other.status, 200);
  });

  it("§4.4/§1.7 a GitHub failure on create maps 401/403 to 401 Not Authorized, 404 to 404, 500 to 500", async () => {
    for (const [gh, status, label] of [[401, 401, "Not Authorized"], [403, 401, "Not Authorized"], [404, 404, "Not Found"], [500, 500, "Server error"]] as const) {
      sim.failNextGitHub("scaleset-create", gh);
      const r = await api.post(`/organizations/${sim.organizationId}/scalesets`, {
        name: `g${gh}`, provider_name: "fake", image: "i", flavor: "f", os_type: "linux", max_runners: 1,
      });
      assert.equal(r.status, status);
      assert.equal(r.body.error, label);
    }
    assert.deepEqual(sim.scaleSets(), []);
  });

  it("§4.1 update: updatable fields change, `runner_group` is the update key, labels are ignored", async () => {
    const ss = await api.createScaleSet({ name: "u", enabled: true, labels: ["a"] });
    const r = await api.put(`/scalesets/${ss.id}`, {
      enabled: false, max_runners: 7, min_idle_runners: 2, image: "new-image", runner_group: "gpu", labels: ["b"], tags: [{ name: "c" }],
    });
    assert.equal(r.status, 200);
    assert.equal("enabled" in r.body, false);
    assert.equal(r.body.max_runners, 7);
    assert.equal(r.body.min_idle_runners, 2);
    assert.equal(r.body.image, "new-image");
    assert.equal(r.body["github-runner-group"], "gpu");
    assert.deepEqual(r.body.tags.map((t: { name: string }) => t.name), ["a"]);
    assert.equal(r.body.generation, 1, "image and runner group bump generation (once per update)");
  });

  it("§4.1 update: `max_runners: 0` is accepted; min > max is 400; runner_bootstrap_timeout 0 is 400", async () => {
    const ss = await api.createScaleSet({ name: "m", min_idle_runners: 1, max_runners: 3 });
    let r = await api.put(`/scalesets/${ss.id}`, { max_runners: 0 });
    assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "min_idle_runners cannot be larger than max_runners" }]);
    r = await api.put(`/scalesets/${ss.id}`, { min_idle_runners: 0, max_runners: 0 });
    assert.equal(r.status, 200);
    assert.equal("max_runners" in r.body, false);
    r = await api.put(`/scalesets/${ss.id}`, { runner_bootstrap_timeout: 0 });
    assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "runner_bootstrap_timeout cannot be 0" }]);
  });

  it("§4.1 update: state and extended_state are stored verbatim without validation", async () => {
    const ss = await api.createScaleSet({ name: "st" });
    const r = await api.put(`/scalesets/${ss.id}`, { state: "whatever", extended_state: "free text" });
    assert.equal(r.body.state, "whatever");
    assert.equal(r.body.extended_state, "free text");
  });

  it("§3.7 extra_specs are compared as raw bytes: reformatted equal JSON bumps generation; output is compacted", async () => {
    const ss = await api.createScaleSet({ name: "es", extra_specs: { a: 1 } });
    let r = await api.put(`/scalesets/${ss.id}`, '{"extra_specs":{"a":1}}');
    assert.equal(r.body.generation, 0, "same bytes: no change");
    r = await api.put(`/scalesets/${ss.id}`, '{"extra_specs": { "a" : 1 }}');
    assert.equal(r.body.generation, 1);
    assert.match(r.text, /"extra_specs":\{"a":1\}/);
    r = await api.put(`/scalesets/${ss.id}`, '{"extra_specs":null}');
    assert.equal(r.body.generation, 2);
    assert.equal(r.body.extra_specs, null, "JSON null is stored as a literal null");
  });

  it("§4.1 update: a GitHub failure on rename is reported and rolls the whole update back", async () => {
    const ss = await api.createScaleSet({ name: "before", max_runners: 2 });
    sim.failNextGitHub("scaleset-update", 403);
    let r = await api.put(`/scalesets/${ss.id}`, { name: "after", max_runners: 4 });
    assert.deepEqual([r.status, r.body], [401, { error: "Not Authorized", details: "" }]);
    r = await api.get(`/scalesets/${ss.id}`);
    assert.equal(r.body.name, "before");
    assert.equal(r.body.max_runners, 2);
    // A PUT that does not touch GitHub does not consume the failure.
    sim.failNextGitHub("scaleset-update", 500);
    r = await api.put(`/scalesets/${ss.id}`, { max_runners: 3 });
    assert.equal(r.status, 200);
  });

  it("§1.7 a body that is not JSON, or a wrong type, is 400 invalid request; unknown keys are ignored", async () => {
    const ss = await api.createScaleSet({ name: "j" });
    let r = await api.put(`/scalesets/${ss.id}`, "{oops");
    assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "invalid request" }]);
    r = await api.put(`/scalesets/${ss.id}`, { max_runners: -1 });
    assert.equal(r.status, 400);
    r = await api.put(`/scalesets/${ss.id}`, { no_such_key: 1 });
    assert.equal(r.status, 200);
  });

  it("§3.2 outdatedOnly lists every runner once the scale set's generation is ≥ 1 and none before", async () => {
    const ss = await api.createScaleSet({ name: "gen" });
    sim.addRunner(ss.id);
    assert.equal((await api.get(`/scalesets/${ss.id}/instances?outdatedOnly=true`)).body.length, 0);
    await api.put(`/scalesets/${ss.id}`, { flavor: "large" });
    assert.equal((await api.get(`/scalesets/${ss.id}/instances?outdatedOnly=true`)).body.length, 1);
  });
});
