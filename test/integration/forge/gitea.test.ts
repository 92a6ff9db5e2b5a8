// A Gitea endpoint and its token credentials through the engine against the GARM simulator: GARM's separate /gitea
// routes (routers.go L546-600), no upload URL, token-only credentials, rotation in place, guarded delete, destroy.
import { strict as assert } from "node:assert";
import { credentialsProvider, endpointProvider } from "../../../sdk/nodejs/shim";
import { type ResourceDecl, ref } from "../../../harness/engine";
import { type ForgeFixture, mutatingCalls, startForgeFixture } from "./fixture";

const endpoint = (inputs: Record<string, unknown> = {}): ResourceDecl => ({
  name: "ep",
  type: "GarmEndpoint",
  module: "garm",
  provider: endpointProvider,
  inputs: { forge: "gitea", name: "gitea", baseUrl: "https://gitea.test", apiBaseUrl: "https://gitea.test/api/v1", ...inputs },
});
const credentials = (inputs: Record<string, unknown> = {}): ResourceDecl => ({
  name: "creds",
  type: "GarmCredentials",
  module: "garm",
  provider: credentialsProvider,
  inputs: { forge: "gitea", name: "gitea-token", endpoint: ref("ep", "name"), token: "gitea-token-1", ...inputs },
});

describe("Gitea endpoint and credentials through the engine against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: ForgeFixture;
  beforeEach(async () => {
    fx = await startForgeFixture("forge-gitea-it");
  });
  afterEach(async () => fx.close());

  it("creates, rotates the token in place, refuses to change URLs under credentials, and destroys in order", async () => {
    const up = await fx.engine.up([endpoint(), credentials()]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal((await fx.rest.get("/gitea/endpoints/gitea")).body.endpoint_type, "gitea");
    assert.equal((await fx.rest.get("/github/endpoints/gitea")).status, 404);
    const made = fx.sim.credentials().find((c) => c.name === "gitea-token");
    assert.equal(made?.forge, "gitea");

    fx.sim.clearRequests();
    const rotated = await fx.engine.up([endpoint(), credentials({ token: "gitea-token-2" })]);
    assert.deepEqual(rotated.updated, ["creds"]);
    assert.deepEqual(mutatingCalls(fx.sim).map((r) => `${r.method} ${r.path}`), [`PUT /api/v1/gitea/credentials/${made?.id}`]);
    assert.notEqual(fx.sim.credentials().find((c) => c.name === "gitea-token")?.secretDigest, made?.secretDigest);

    const moved = await fx.engine.up([endpoint({ apiBaseUrl: "https://gitea2.test/api/v1" }), credentials({ token: "gitea-token-2" })]);
    assert.equal(moved.ok, false);
    assert.match(String(moved.errors.ep), /GARM cannot change an endpoint's URLs while credentials use it; it is used by credentials "gitea-token"/);

    const down = await fx.engine.destroy();
    assert.ok(down.ok, JSON.stringify(down.errors));
    assert.equal((await fx.rest.get("/gitea/endpoints/gitea")).status, 404);
    assert.equal(fx.sim.credentials().some((c) => c.name === "gitea-token"), false);
  });
});
