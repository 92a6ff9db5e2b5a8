// GarmEndpoint and GarmCredentials through pulumi-resource-garm's gRPC protocol against the GARM simulator: the same
// provider/ code as the dynamic provider, a secret token that stays a secret, and no import (adoptExisting instead).
import { strict as assert } from "node:assert";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { CREDENTIALS, ENDPOINT } from "../../../provider-plugin/resources";
import { type PluginOnSimulator, secret, startPluginOnSimulator } from "../../../harness/plugin-process";

describe("pulumi-resource-garm: GarmEndpoint and GarmCredentials", function () {
  this.timeout(60_000);
  let fx: PluginOnSimulator | undefined;
  afterEach(async () => fx?.close());

  it("creates an endpoint and credentials, rotates the token in place, refuses import, and deletes both", async () => {
    fx = await startPluginOnSimulator({ tickMs: 0 });
    const { sim, plugin: p } = fx;

    const ep = await p.check(ENDPOINT, "ep", { name: "ghe", baseUrl: "https://ghe.test", apiBaseUrl: "https://ghe.test/api/v3/", uploadBaseUrl: "https://ghe.test/up/" });
    assert.deepEqual(ep.failures, []);
    const epMade = await p.create(ENDPOINT, "ep", ep.inputs);
    assert.equal(epMade.id, "ghe");

    const creds = await p.check(CREDENTIALS, "creds", { name: "ghe-pat", endpoint: "ghe", token: secret("plugin-token-1") });
    assert.deepEqual(creds.inputs.token, secret("plugin-token-1"), "the token stays a secret input");
    const made = await p.create(CREDENTIALS, "creds", creds.inputs);
    assert.equal(made.outs.token, undefined, "the token is never an output");
    const digest = sim.credentials().find((c) => c.name === "ghe-pat")?.secretDigest;

    const rotated = (await p.check(CREDENTIALS, "creds", { name: "ghe-pat", endpoint: "ghe", token: secret("plugin-token-2") })).inputs;
    const diff = await p.diff(CREDENTIALS, "creds", made.id, made.outs, rotated, creds.inputs);
    assert.equal(diff.getChanges(), proto.DiffResponse.DiffChanges.DIFF_SOME);
    assert.deepEqual(diff.getReplacesList(), []);
    const updated = await p.update(CREDENTIALS, "creds", made.id, made.outs, rotated);
    assert.notEqual(sim.credentials().find((c) => c.name === "ghe-pat")?.secretDigest, digest);
    assert.ok(!p.output.join("\n").includes("plugin-token"), "no token in the plugin's output");

    await assert.rejects(p.read(CREDENTIALS, "creds", made.id), /GarmCredentials cannot be imported: declare it in the program with adoptExisting: true/);

    await p.delete(CREDENTIALS, "creds", made.id, updated);
    await p.delete(ENDPOINT, "ep", epMade.id, epMade.outs);
    assert.deepEqual(sim.credentials().map((c) => c.name), ["acme-pat"]);
  });
});
