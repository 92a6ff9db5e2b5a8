// GarmCredentials' hold on their GARM id (issue 23 item 3): after a database restore gave this stack's id to other
// credentials, refresh drops these, `up` changes nothing of the others and `destroy` deletes nothing.
import { strict as assert } from "node:assert";
import { type ForgeFixture, credentialsDecl, startForgeFixture } from "./fixture";

describe("GarmCredentials and an id a database restore gave to other credentials", function () {
  this.timeout(60_000);
  let fx: ForgeFixture;
  beforeEach(async () => {
    fx = await startForgeFixture("forge-credentials-ownership-it");
  });
  afterEach(async () => fx.close());

  const program = (inputs: Record<string, unknown> = {}) => [credentialsDecl("creds", inputs)];
  const heldBy = (id: number) => fx.sim.credentials().find((c) => c.id === id);

  /** These credentials are made after a backup; the restore forgets them, and the next credentials made get their id. */
  async function reusedBySomeoneElse(): Promise<number> {
    const backup = fx.sim.snapshotDatabase();
    const up = await fx.engine.up(program());
    assert.ok(up.ok, JSON.stringify(up.errors));
    const ours = Number(up.outputs.creds?.credentialsId);
    fx.sim.restoreDatabase(backup);
    await fx.rest.login();
    const theirs = await fx.rest.post("/github/credentials", { name: "team-b", description: "theirs", endpoint: "github.com", auth_type: "pat", pat: { oauth2_token: "theirs" } });
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(theirs.body.id, ours, "the other credentials took the id");
    fx.sim.clearRequests();
    return ours;
  }
  const touched = (id: number) => fx.sim.requests().filter((r) => r.method !== "GET" && r.path === `/api/v1/github/credentials/${id}`);

  it("refresh drops them instead of binding to the other credentials", async () => {
    const id = await reusedBySomeoneElse();
    const refresh = await fx.engine.refresh();
    assert.ok(refresh.ok, JSON.stringify(refresh.errors));
    assert.equal(fx.engine.state().resources.find((r) => r.name === "creds"), undefined, "dropped from state");
    assert.ok(fx.engine.logs.some((l) => new RegExp(`github credentials id ${id} now holds team-b`).test(l)), fx.engine.logs.join("\n"));
    assert.equal(heldBy(id)?.name, "team-b");
  });

  it("up refuses to rename and re-key the other credentials", async () => {
    const id = await reusedBySomeoneElse();
    const up = await fx.engine.up(program({ token: "ghp_rotated_token_value", description: "ours" }));
    assert.equal(up.ok, false);
    assert.match(String(up.errors.creds), new RegExp(`credentials id ${id} now holds team-b.*nothing was changed.*pulumi refresh`));
    assert.deepEqual(touched(id), []);
    assert.equal(heldBy(id)?.name, "team-b");
    assert.equal(heldBy(id)?.description, "theirs");
  });

  it("destroy leaves the other credentials alone", async () => {
    const id = await reusedBySomeoneElse();
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(touched(id), []);
    assert.equal(heldBy(id)?.name, "team-b");
    assert.ok(fx.engine.logs.some((l) => /now holds team-b.*leaving that one alone/.test(l)), fx.engine.logs.join("\n"));
  });
});
