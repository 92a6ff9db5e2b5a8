// A delete-first replacement (naming "exact" with a label change) whose create GARM would refuse is refused before
// anything is deleted (issue 34 item 4b): here organization acme has come to exist under a second endpoint since the
// scale set was made, so the new one's entity is ambiguous. Preview and up both fail, and GARM's request log shows no
// DELETE and no disabling PUT; naming the endpoint lets the same replacement go through.
import { strict as assert } from "node:assert";
import { type Fixture, mutatingCalls, startFixture } from "./fixture";

describe("GarmScaleSet delete-first replacement checked before the delete", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  /** A second organization acme, under a GHES endpoint, made over GARM's API. */
  async function acmeOnGhesToo(): Promise<void> {
    const rest = fx.garm();
    await rest.createEndpoint("github", { name: "ghes", description: "our GHES", base_url: "https://ghes.example.com", api_base_url: "https://ghes.example.com/api/v3/", upload_base_url: "https://ghes.example.com/api/uploads/" });
    await rest.createCredentials("github", { name: "ghes-pat", description: "PAT on GHES", endpoint: "ghes", auth_type: "pat", pat: { oauth2_token: "ghp-ghes" } });
    await rest.createEntity("organization", { name: "acme", credentials_name: "ghes-pat", webhook_secret: "s3cret", pool_balancer_type: "roundrobin" } as never);
    assert.equal((await rest.findEntities("organization", "acme")).length, 2);
  }

  it("preview and up refuse it, naming why, and GARM gets no DELETE and no disabling PUT", async () => {
    fx = await startFixture();
    const exact = { name: "ci-exact", naming: "exact" };
    const up = await fx.engine.up([fx.scaleSet("small", exact)]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [old] = fx.sim.scaleSets();
    await acmeOnGhesToo();
    fx.sim.clearRequests();

    const changed = [fx.scaleSet("small", { ...exact, labels: ["linux", "x64", "gpu"] })];
    const preview = await fx.engine.preview(changed);
    assert.equal(preview.ok, false);
    assert.match(String(preview.errors.small), /deletes the scale set before it creates.*organization acme exists under several GARM endpoints \(.*\).*Nothing was sent/);

    const refused = await fx.engine.up(changed);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.small), /organization acme exists under several GARM endpoints/);
    assert.deepEqual(mutatingCalls(fx.sim).map((r) => `${r.method} ${r.path}`), [], "no DELETE, no PUT disabling it");
    const [still] = fx.sim.scaleSets();
    assert.equal(still.id, old.id);
    assert.equal(still.enabled, true);
    assert.equal(fx.engine.state().resources.find((r) => r.name === "small")?.id, String(old.id));

    const named = await fx.engine.up([fx.scaleSet("small", { ...exact, endpoint: "github.com", labels: ["linux", "x64", "gpu"] })]);
    assert.ok(named.ok, JSON.stringify(named.errors));
    const [replaced] = fx.sim.scaleSets();
    assert.notEqual(replaced.id, old.id);
    assert.equal(replaced.name, "ci-exact");
  });
});
