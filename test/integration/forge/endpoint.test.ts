// GarmEndpoint through the engine harness against the GARM simulator: create, no-op preview, in-place update, replace,
// refresh drift, out-of-band delete, adopt, guarded delete and destroy (issue 14; garm-behaviour.md §2.5).
import { strict as assert } from "node:assert";
import { CA_CERT_1, CA_CERT_2 } from "../../../harness/forge-pem";
import { type ForgeFixture, credentialsDecl, endpointDecl, mutatingCalls, startForgeFixture } from "./fixture";

describe("GarmEndpoint through the engine against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: ForgeFixture;
  beforeEach(async () => {
    fx = await startForgeFixture("forge-endpoint-it");
  });
  afterEach(async () => fx.close());

  const live = async (name: string) => fx.rest.get(`/github/endpoints/${name}`);

  it("creates, previews an unchanged program as no change, updates in place and destroys", async () => {
    const up = await fx.engine.up([endpointDecl("ep", { caCertBundle: CA_CERT_1 })]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const created = await live("ghe");
    assert.equal(created.status, 200);
    assert.equal(created.body.api_base_url, "https://ghe.example.test/api/v3/");
    assert.equal(Buffer.from(created.body.ca_cert_bundle, "base64").toString(), CA_CERT_1);
    assert.equal(up.outputs.ep?.stateVersion, 1);

    fx.sim.clearRequests();
    const same = await fx.engine.preview([endpointDecl("ep", { caCertBundle: CA_CERT_1 })]);
    assert.ok(same.ok, JSON.stringify(same.errors));
    assert.equal(same.diffs.ep?.changes, "none");
    const again = await fx.engine.up([endpointDecl("ep", { caCertBundle: CA_CERT_1 })]);
    assert.deepEqual(again.same, ["ep"]);
    assert.deepEqual(mutatingCalls(fx.sim), [], "an unchanged program changes nothing in GARM");

    fx.sim.clearRequests();
    const changed = await fx.engine.up([endpointDecl("ep", { description: "moved", apiBaseUrl: "https://ghe.example.test/api/v4/", caCertBundle: CA_CERT_2 })]);
    assert.ok(changed.ok, JSON.stringify(changed.errors));
    assert.deepEqual(changed.updated, ["ep"]);
    assert.deepEqual(mutatingCalls(fx.sim).map((r) => `${r.method} ${r.path}`), ["PUT /api/v1/github/endpoints/ghe"]);
    const after = await live("ghe");
    assert.equal(after.body.description, "moved");
    assert.equal(after.body.api_base_url, "https://ghe.example.test/api/v4/");
    assert.equal(Buffer.from(after.body.ca_cert_bundle, "base64").toString(), CA_CERT_2);

    const down = await fx.engine.destroy();
    assert.ok(down.ok, JSON.stringify(down.errors));
    assert.equal((await live("ghe")).status, 404);
  });

  it("shows no change after a refresh reads back the CA bundle as GARM re-encoded it (duplicates dropped, CRLF)", async () => {
    const messy = `${CA_CERT_1.replace(/\n/g, "\r\n")}${CA_CERT_1}`;
    assert.ok((await fx.engine.up([endpointDecl("ep", { caCertBundle: messy })])).ok);
    assert.equal(Buffer.from((await live("ghe")).body.ca_cert_bundle, "base64").toString(), CA_CERT_1);
    await fx.engine.refresh();
    fx.sim.clearRequests();
    const preview = await fx.engine.preview([endpointDecl("ep", { caCertBundle: messy })]);
    assert.equal(preview.diffs.ep?.changes, "none");
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("replaces on a rename (new endpoint first) and on removing the CA bundle (old one first)", async () => {
    await fx.engine.up([endpointDecl("ep", { caCertBundle: CA_CERT_1 })]);
    const renamed = await fx.engine.preview([endpointDecl("ep", { name: "ghe2", caCertBundle: CA_CERT_1 })]);
    assert.deepEqual(renamed.diffs.ep?.replaces, ["name"]);
    assert.equal(renamed.diffs.ep?.deleteBeforeReplace, false);
    const up = await fx.engine.up([endpointDecl("ep", { name: "ghe2", caCertBundle: CA_CERT_1 })]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal((await live("ghe")).status, 404);
    assert.equal((await live("ghe2")).status, 200);

    const noCa = await fx.engine.up([endpointDecl("ep", { name: "ghe2" })]);
    assert.ok(noCa.ok, JSON.stringify(noCa.errors));
    assert.deepEqual(noCa.diffs.ep?.replaces, ["caCertBundle"]);
    assert.equal(noCa.diffs.ep?.deleteBeforeReplace, true, "the same name cannot exist twice");
    const now = await live("ghe2");
    assert.equal(now.status, 200);
    assert.equal(now.body.ca_cert_bundle, undefined);
  });

  it("replaces on a rename that only changes case, old endpoint first: GARM refuses a second endpoint of that name", async () => {
    assert.ok((await fx.engine.up([endpointDecl("ep")])).ok);
    const up = await fx.engine.up([endpointDecl("ep", { name: "GHE" })]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(up.diffs.ep?.deleteBeforeReplace, true);
    const listed = ((await fx.rest.get("/github/endpoints")).body as { name: string }[]).map((e) => e.name);
    assert.ok(listed.includes("GHE") && !listed.includes("ghe"), listed.join(", "));
  });

  it("refresh picks up drift and an out-of-band delete; the next up restores them", async () => {
    await fx.engine.up([endpointDecl("ep")]);
    assert.equal((await fx.rest.put("/github/endpoints/ghe", { description: "changed by hand" })).status, 200);
    const refreshed = await fx.engine.refresh();
    assert.ok(refreshed.ok, JSON.stringify(refreshed.errors));
    assert.equal(fx.engine.state().resources.find((r) => r.name === "ep")?.outputs.description, "changed by hand");
    const fix = await fx.engine.up([endpointDecl("ep")]);
    assert.deepEqual(fix.updated, ["ep"]);
    assert.equal((await live("ghe")).body.description, "GitHub Enterprise");

    assert.equal((await fx.rest.del("/github/endpoints/ghe")).status, 204);
    const gone = await fx.engine.refresh();
    assert.deepEqual(gone.dropped, ["ep"]);
    const back = await fx.engine.up([endpointDecl("ep")]);
    assert.deepEqual(back.created, ["ep"]);
    assert.equal((await live("ghe")).status, 200);
  });

  it("refuses an existing name unless adoptExisting, then adopts it and brings it to the inputs", async () => {
    assert.equal((await fx.rest.post("/github/endpoints", { name: "ghe", api_base_url: "https://old.test/api/v3/", upload_base_url: "https://old.test/up/", base_url: "https://old.test" })).status, 200);
    const refused = await fx.engine.up([endpointDecl("ep")]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.ep), /GARM already has an endpoint named ghe; .*adoptExisting: true/);
    const adopted = await fx.engine.up([endpointDecl("ep", { adoptExisting: true })]);
    assert.ok(adopted.ok, JSON.stringify(adopted.errors));
    const now = await live("ghe");
    assert.equal(now.body.api_base_url, GHE_API);
    assert.equal(now.body.description, "GitHub Enterprise");
  });

  it("says why a GitHub endpoint cannot be adopted when a Gitea endpoint holds its name, instead of advising adoptExisting", async () => {
    assert.equal((await fx.rest.post("/gitea/endpoints", { name: "GHE", api_base_url: "https://gitea.test/api/v1", base_url: "https://gitea.test" })).status, 200);
    const refused = await fx.engine.up([endpointDecl("ep", { adoptExisting: true })]);
    assert.equal(refused.ok, false);
    const message = String(refused.errors.ep);
    assert.match(message, /GARM already has a gitea endpoint named GHE, and one name cannot serve both forges .*set forge: "gitea" to adopt that one/);
    assert.doesNotMatch(message, /set adoptExisting: true/);
  });

  it("does not adopt an endpoint with a CA bundle for a program without one, saying why, and changes nothing", async () => {
    const made = await fx.rest.post("/github/endpoints", { name: "ghe", api_base_url: GHE_API, upload_base_url: "https://ghe.example.test/api/uploads/", base_url: "https://ghe.example.test", ca_cert_bundle: Buffer.from(CA_CERT_1).toString("base64") });
    assert.equal(made.status, 200);
    fx.sim.clearRequests();
    const refused = await fx.engine.up([endpointDecl("ep", { adoptExisting: true })]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.ep), /^GarmEndpoint ghe: not adopted: GARM's endpoint has a CA bundle and the program sets no caCertBundle, but GARM cannot remove a bundle in place; set caCertBundle/);
    assert.deepEqual(mutatingCalls(fx.sim), [], "nothing is sent");
    const adopted = await fx.engine.up([endpointDecl("ep", { adoptExisting: true, caCertBundle: CA_CERT_1 })]);
    assert.ok(adopted.ok, JSON.stringify(adopted.errors));
    assert.equal(Buffer.from((await live("ghe")).body.ca_cert_bundle, "base64").toString(), CA_CERT_1);
  });

  it("refuses to delete an endpoint still used by credentials, naming them, and deletes nothing", async () => {
    await fx.engine.up([endpointDecl("ep")]);
    const made = await fx.rest.post("/github/credentials", { name: "hand-made", endpoint: "ghe", auth_type: "pat", pat: { oauth2_token: "t" } });
    assert.equal(made.status, 200);
    fx.sim.clearRequests();
    const down = await fx.engine.destroy();
    assert.equal(down.ok, false);
    assert.match(
      String(down.errors.ep),
      new RegExp(`^GarmEndpoint ghe: not deleted, because GARM refuses to delete an endpoint still in use; it is used by credentials "hand-made" \\(id ${made.body.id}\\)\\. Delete those first`),
    );
    assert.deepEqual(mutatingCalls(fx.sim), [], "nothing is deleted, not even the dependents");
    assert.equal((await live("ghe")).status, 200);
  });

  it("refuses to change URLs while credentials use the endpoint, naming them", async () => {
    const program = [endpointDecl("ep"), credentialsDecl("creds", {}, "ep")];
    assert.ok((await fx.engine.up(program)).ok);
    const moved = await fx.engine.up([endpointDecl("ep", { baseUrl: "https://ghe2.example.test" }), credentialsDecl("creds", {}, "ep")]);
    assert.equal(moved.ok, false);
    assert.match(String(moved.errors.ep), /not changed, because GARM cannot change an endpoint's URLs while credentials use it; it is used by credentials "ghe-pat" \(id \d+\)/);
    assert.equal((await live("ghe")).body.base_url, "https://ghe.example.test");
    const down = await fx.engine.destroy();
    assert.ok(down.ok, JSON.stringify(down.errors));
    assert.equal((await live("ghe")).status, 404);
  });

  it("leaves GARM's default github.com endpoint in GARM when an adopted one is deleted", async () => {
    const up = await fx.engine.up([
      endpointDecl("default", { name: "github.com", baseUrl: "https://github.com", apiBaseUrl: "https://api.github.com/", uploadBaseUrl: "https://uploads.github.com/", description: "The github.com endpoint", adoptExisting: true }),
    ]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const down = await fx.engine.destroy();
    assert.ok(down.ok, JSON.stringify(down.errors));
    assert.equal((await live("github.com")).status, 200);
    assert.ok(down.logs.some((l) => /GARM's default endpoint is left in GARM/.test(l)), down.logs.join("\n"));
  });

  const DEFAULT_AS_WRITTEN = { name: "GitHub.com", baseUrl: "https://github.com", apiBaseUrl: "https://api.github.com/", uploadBaseUrl: "https://uploads.github.com/", description: "The github.com endpoint", adoptExisting: true };

  it("leaves GARM's default endpoint in GARM when it was adopted as GitHub.com: GARM's endpoint key ignores case", async () => {
    // No credentials or entities left on it: nothing would stop GARM deleting its default, which it re-creates only in
    // an empty database.
    assert.ok([200, 204].includes((await fx.rest.del(`/repositories/${fx.sim.repositoryId}`)).status));
    assert.ok([200, 204].includes((await fx.rest.del(`/organizations/${fx.sim.organizationId}`)).status));
    const creds = (await fx.rest.get("/github/credentials")).body as { id: number }[];
    for (const c of creds) assert.ok([200, 204].includes((await fx.rest.del(`/github/credentials/${c.id}`)).status));
    const up = await fx.engine.up([endpointDecl("default", DEFAULT_AS_WRITTEN)]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const down = await fx.engine.destroy();
    assert.ok(down.ok, JSON.stringify(down.errors));
    assert.equal((await live("github.com")).status, 200, "GARM's default endpoint is still there");
    assert.ok(down.logs.some((l) => /GARM's default endpoint is left in GARM/.test(l)), down.logs.join("\n"));
  });

  it("previews no change after refreshing an endpoint adopted in another case than GARM's", async () => {
    assert.ok((await fx.engine.up([endpointDecl("default", DEFAULT_AS_WRITTEN)])).ok);
    assert.ok((await fx.engine.refresh()).ok);
    const preview = await fx.engine.preview([endpointDecl("default", DEFAULT_AS_WRITTEN)]);
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    assert.equal(preview.diffs.default?.changes, "none");
  });

  it("names the credentials on an endpoint adopted in another case, and sends no DELETE", async () => {
    assert.equal((await fx.rest.post("/github/endpoints", { name: "ghe", api_base_url: GHE_API, upload_base_url: "https://ghe.example.test/api/uploads/", base_url: "https://ghe.example.test" })).status, 200);
    const made = await fx.rest.post("/github/credentials", { name: "hand-made", endpoint: "ghe", auth_type: "pat", pat: { oauth2_token: "t" } });
    assert.equal(made.status, 200);
    assert.ok((await fx.engine.up([endpointDecl("ep", { name: "GHE", adoptExisting: true })])).ok);
    fx.sim.clearRequests();
    const down = await fx.engine.destroy();
    assert.equal(down.ok, false);
    assert.match(String(down.errors.ep), /^GarmEndpoint GHE: not deleted, because GARM refuses to delete an endpoint still in use; it is used by credentials "hand-made"/);
    assert.deepEqual(mutatingCalls(fx.sim), [], "nothing is deleted");
  });

  it("refuses bad inputs at preview with field-named messages", async () => {
    const preview = await fx.engine.preview([endpointDecl("ep", { apiBaseUrl: "ftp://x/", uploadBaseUrl: undefined, caCertBundle: "not pem" })]);
    assert.equal(preview.ok, false);
    const reasons = Object.fromEntries((preview.checkFailures.ep ?? []).map((f) => [f.property, f.reason]));
    assert.match(reasons.apiBaseUrl ?? "", /apiBaseUrl "ftp:\/\/x\/" must be an http:\/\/ or https:\/\/ URL/);
    assert.match(reasons.caCertBundle ?? "", /holds no PEM certificate/);
    assert.match(reasons.uploadBaseUrl ?? "", /uploadBaseUrl is required for a "github" endpoint/);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });
});

const GHE_API = "https://ghe.example.test/api/v3/";
