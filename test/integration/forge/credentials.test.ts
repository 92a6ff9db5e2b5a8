// GarmCredentials through the engine harness against the GARM simulator: create, no-op preview, in-place update
// (rename, rotated token and app key), replace, refresh drift, out-of-band delete, adopt, guarded delete, destroy, and
// the secret kept out of outputs, state and logs (issue 14; garm-behaviour.md §2.5).
import { strict as assert } from "node:assert";
import { APP_KEY_1, APP_KEY_1_PKCS8, APP_KEY_2 } from "../../../harness/forge-pem";
import { type ForgeFixture, credentialsDecl, endpointDecl, mutatingCalls, startForgeFixture } from "./fixture";
import { credentialsProviderWith } from "../../../provider/kinds/credentials/resource";

const TOKEN_1 = "ghp_first_token_value";
const TOKEN_2 = "ghp_rotated_token_value";

describe("GarmCredentials through the engine against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: ForgeFixture;
  beforeEach(async () => {
    fx = await startForgeFixture("forge-credentials-it");
  });
  afterEach(async () => fx.close());

  const program = (inputs: Record<string, unknown> = {}) => [endpointDecl("ep"), credentialsDecl("creds", inputs, "ep")];
  const simCreds = (name: string) => fx.sim.credentials().find((c) => c.name === name);
  /**
   * Outputs, logs, errors and every answer but check's (check answers the inputs, which the SDK sends as Pulumi
   * secrets: test/unit/credentials/sdk.test.ts), where no secret may appear.
   */
  const everything = () =>
    JSON.stringify({
      outputs: fx.engine.state().resources.map((r) => r.outputs),
      logs: fx.engine.logs,
      steps: fx.engine.steps.map((s) => [s.error, s.op === "check" ? undefined : s.response]),
    });

  it("creates on a managed endpoint, previews an unchanged program as no change, rotates the token in place, destroys in order", async () => {
    const up = await fx.engine.up(program());
    assert.ok(up.ok, JSON.stringify(up.errors));
    const made = simCreds("ghe-pat");
    assert.ok(made, JSON.stringify(fx.sim.credentials()));
    assert.equal(made.endpoint, "ghe");
    assert.equal(up.outputs.creds?.credentialsId, made.id);
    assert.equal(up.outputs.creds?.authType, "pat");
    assert.equal(fx.engine.state().resources.find((r) => r.name === "creds")?.id, `github/${made.id}`, "the id names the forge: Gitea numbers its own");

    fx.sim.clearRequests();
    const same = await fx.engine.preview(program());
    assert.equal(same.diffs.creds?.changes, "none");
    const again = await fx.engine.up(program());
    assert.deepEqual([...again.same].sort(), ["creds", "ep"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);

    const digestBefore = simCreds("ghe-pat")?.secretDigest;
    const rotated = await fx.engine.up(program({ token: TOKEN_2 }));
    assert.ok(rotated.ok, JSON.stringify(rotated.errors));
    assert.deepEqual(rotated.updated, ["creds"]);
    assert.deepEqual(mutatingCalls(fx.sim).map((r) => `${r.method} ${r.path}`), [`PUT /api/v1/github/credentials/${made.id}`]);
    assert.notEqual(simCreds("ghe-pat")?.secretDigest, digestBefore, "GARM holds the rotated token");
    assert.equal(simCreds("ghe-pat")?.id, made.id, "rotated in place, not replaced");

    const text = everything();
    assert.ok(!text.includes(TOKEN_1) && !text.includes(TOKEN_2), "no token in outputs, errors or logs");

    const down = await fx.engine.destroy();
    assert.ok(down.ok, JSON.stringify(down.errors));
    assert.equal(simCreds("ghe-pat"), undefined);
    assert.equal((await fx.rest.get("/github/endpoints/ghe")).status, 404);
  });

  it("creates GitHub App credentials on github.com, rotates the key in place, and refuses a PKCS#8 key at preview", async () => {
    const app = { token: undefined, appId: 7, installationId: 8, privateKey: APP_KEY_1, endpoint: "github.com", name: "app-creds" };
    const up = await fx.engine.up([credentialsDecl("app", app)]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const digest = simCreds("app-creds")?.secretDigest;
    assert.equal(simCreds("app-creds")?.authType, "app");

    const rotated = await fx.engine.up([credentialsDecl("app", { ...app, privateKey: APP_KEY_2 })]);
    assert.deepEqual(rotated.updated, ["app"]);
    assert.notEqual(simCreds("app-creds")?.secretDigest, digest);
    assert.ok(!everything().includes(APP_KEY_1.split("\n")[1]!) && !everything().includes(APP_KEY_2.split("\n")[1]!));

    fx.sim.clearRequests();
    const bad = await fx.engine.preview([credentialsDecl("app", { ...app, privateKey: APP_KEY_1_PKCS8 })]);
    assert.equal(bad.ok, false);
    assert.match(bad.checkFailures.app?.[0]?.reason ?? "", /^privateKey is a PKCS#8 key/);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("renames in place, and replaces on another endpoint (old ones first, since the name stays)", async () => {
    await fx.engine.up(program());
    const id = simCreds("ghe-pat")!.id;
    const renamed = await fx.engine.up(program({ name: "ghe-pat-2", description: "renamed" }));
    assert.deepEqual(renamed.updated, ["creds"]);
    assert.equal(fx.sim.credentials().find((c) => c.id === id)?.name, "ghe-pat-2");

    const moved = await fx.engine.up([endpointDecl("ep"), credentialsDecl("creds", { name: "ghe-pat-2", description: "renamed" })]);
    assert.ok(moved.ok, JSON.stringify(moved.errors));
    assert.deepEqual(moved.diffs.creds?.replaces, ["endpoint"]);
    assert.equal(moved.diffs.creds?.deleteBeforeReplace, true);
    const now = simCreds("ghe-pat-2");
    assert.equal(now?.endpoint, "github.com");
    assert.notEqual(now?.id, id);
  });

  it("refuses a rename onto a name other credentials hold (in any case) at preview, and words GARM's 500 when the clash comes later", async () => {
    await fx.engine.up(program());
    const other = await fx.rest.post("/github/credentials", { name: "other-pat", endpoint: "ghe", auth_type: "pat", pat: { oauth2_token: "t" } });
    assert.equal(other.status, 200);
    fx.sim.clearRequests();
    const preview = await fx.engine.preview(program({ name: "OTHER-PAT" }));
    assert.equal(preview.ok, false);
    const reason = (preview.checkFailures.creds ?? []).find((f) => f.property === "name")?.reason ?? "";
    assert.match(reason, new RegExp(`name "OTHER-PAT" is taken: GARM already has github credentials named "other-pat" \\(id ${other.body.id}\\)`));
    assert.deepEqual(mutatingCalls(fx.sim), []);
    // The name is taken between preview and up: GARM answers the PUT with a bare 500.
    const stored = fx.engine.state().resources.find((r) => r.name === "creds")!;
    const methods = credentialsProviderWith({ client: () => fx.garm(), log: { info() {}, warn() {} } });
    await assert.rejects(
      methods.update!(stored.id, stored.outputs, { ...stored.outputs, name: "Other-Pat", token: "ghp_first_token_value" }),
      new RegExp(`^Error: GarmCredentials Other-Pat \\(id \\d+\\): not renamed to "Other-Pat": GARM already has github credentials named "other-pat" \\(id ${other.body.id}\\) and refused the rename`),
    );
  });

  it("reads state whose id is the bare GARM number (before ids named the forge) and keeps that id; an import's read gets <forge>/<id>", async () => {
    await fx.engine.up(program());
    const stored = fx.engine.state().resources.find((r) => r.name === "creds")!;
    const garmId = simCreds("ghe-pat")!.id;
    const methods = credentialsProviderWith({ client: () => fx.garm(), log: { info() {}, warn() {} } });
    const old = await methods.read!(String(garmId), stored.outputs);
    assert.equal(old.id, String(garmId));
    assert.equal((old.props as { name?: string }).name, "ghe-pat");
    // Outputs without the GARM id (the id alone says it): both forms.
    const { credentialsId: _dropped, ...noId } = stored.outputs as Record<string, unknown>;
    assert.equal((await methods.read!(String(garmId), noId)).props?.name, "ghe-pat");
    assert.equal((await methods.read!(`github/${garmId}`, noId)).props?.name, "ghe-pat");
    assert.equal((await methods.read!(`github/${garmId}`)).id, `github/${garmId}`);
  });

  it("refresh picks up drift and an out-of-band delete; the next up restores them", async () => {
    await fx.engine.up(program());
    const id = simCreds("ghe-pat")!.id;
    assert.equal((await fx.rest.put(`/github/credentials/${id}`, { description: "by hand" })).status, 200);
    await fx.engine.refresh();
    assert.equal(fx.engine.state().resources.find((r) => r.name === "creds")?.outputs.description, "by hand");
    const fix = await fx.engine.up(program());
    assert.deepEqual(fix.updated, ["creds"]);
    assert.equal(simCreds("ghe-pat")?.description, "");

    assert.equal((await fx.rest.del(`/github/credentials/${id}`)).status, 204);
    const gone = await fx.engine.refresh();
    assert.deepEqual(gone.dropped, ["creds"]);
    const back = await fx.engine.up(program());
    assert.deepEqual(back.created, ["creds"]);
    assert.ok(simCreds("ghe-pat"));
  });

  it("refuses an existing name unless adoptExisting, then adopts it and sends the secret", async () => {
    const hand = await fx.rest.post("/github/credentials", { name: "ghe-pat", endpoint: "github.com", auth_type: "pat", pat: { oauth2_token: "hand-made" } });
    assert.equal(hand.status, 200);
    const before = simCreds("ghe-pat")?.secretDigest;
    const refused = await fx.engine.up([credentialsDecl("creds")]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.creds), /GARM already has credentials named ghe-pat; .*adoptExisting: true/);
    const adopted = await fx.engine.up([credentialsDecl("creds", { adoptExisting: true })]);
    assert.ok(adopted.ok, JSON.stringify(adopted.errors));
    assert.equal(fx.engine.state().resources.find((r) => r.name === "creds")?.id, `github/${hand.body.id}`);
    assert.notEqual(simCreds("ghe-pat")?.secretDigest, before, "the program's token replaced the hand-made one");
  });

  it("refuses to delete credentials an organization uses, naming it, and deletes nothing", async () => {
    await fx.engine.up(program());
    const org = await fx.rest.post("/organizations", { name: "octo", credentials_name: "ghe-pat", webhook_secret: "s" });
    assert.equal(org.status, 200, org.text);
    fx.sim.clearRequests();
    const down = await fx.engine.destroy();
    assert.equal(down.ok, false);
    assert.match(
      String(down.errors.creds),
      new RegExp(`^GarmCredentials ghe-pat \\(id \\d+\\): not deleted, because GARM refuses to delete credentials still in use; it is used by organization "octo" \\(id ${org.body.id}\\)\\. Delete those first`),
    );
    assert.deepEqual(mutatingCalls(fx.sim), []);
    assert.ok(simCreds("ghe-pat"));
    assert.equal((await fx.rest.get("/github/endpoints/ghe")).status, 200, "the endpoint waits for its credentials");
  });

  it("names the missing endpoint when credentials name one GARM lacks", async () => {
    const up = await fx.engine.up([credentialsDecl("creds", { endpoint: "nowhere" })]);
    assert.equal(up.ok, false);
    assert.match(String(up.errors.creds), /GARM has no github endpoint named nowhere; create it first/);
  });
});
