// GarmEndpoint and GarmCredentials through pulumi-resource-garm's gRPC protocol against the GARM simulator: the same
// provider/ code as the dynamic provider, a secret token that stays a secret, and an import that takes the secret from stack config.
import { strict as assert } from "node:assert";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { SECRET_SIG, SIG_KEY } from "../../../provider-plugin/protocol";
import { CREDENTIALS, ENDPOINT } from "../../../provider-plugin/resources";
import { type PluginOnSimulator, secret, startPluginOnSimulator } from "../../../harness/plugin-process";

describe("pulumi-resource-garm: GarmEndpoint and GarmCredentials", function () {
  this.timeout(60_000);
  let fx: PluginOnSimulator | undefined;
  afterEach(async () => fx?.close());

  it("creates an endpoint and credentials, rotates the token in place, names the config key its import needs, and deletes both", async () => {
    fx = await startPluginOnSimulator({ tickMs: 0 });
    const { sim, plugin: p } = fx;

    const ep = await p.check(ENDPOINT, "ep", { name: "ghe", baseUrl: "https://ghe.test", apiBaseUrl: "https://ghe.test/api/v3/", uploadBaseUrl: "https://ghe.test/up/" });
    assert.deepEqual(ep.failures, []);
    const epMade = await p.create(ENDPOINT, "ep", ep.inputs);
    assert.equal(epMade.id, "github/ghe", "an endpoint's id is <forge>/<name>, never its name alone");

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

    // GARM never returns the token: the import takes it from stack config, and names the key while it is not set.
    assert.match(made.id, /^github\/\d+$/, "credentials' id is <forge>/<GARM id>");
    await assert.rejects(p.read(CREDENTIALS, "creds", made.id), /GarmCredentials ghe-pat: .*`pulumi config set --secret garm:credentials-ghe-pat-token <token>`/);

    await p.delete(CREDENTIALS, "creds", made.id, updated);
    await p.delete(ENDPOINT, "ep", epMade.id, epMade.outs);
    assert.deepEqual(sim.credentials().map((c) => c.name), ["acme-pat"]);
  });

  it("marks every output derived from a secret secret, in creates, updates and refreshes of older clear state", async () => {
    fx = await startPluginOnSimulator({ tickMs: 0 });
    const { plugin: p } = fx;
    const isSecret = (v: unknown) => typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
    const assertSecret = (outs: Record<string, unknown>, keys: string[], when: string) => {
      for (const k of keys) assert.ok(outs[k] !== undefined && isSecret(outs[k]), `${when}: ${k} is in clear: ${JSON.stringify(outs[k])}`);
    };

    // A token given in clear (a plain YAML value) is a secret input all the same.
    const creds = await p.check(CREDENTIALS, "creds", { name: "plain-pat", endpoint: "github.com", token: "plain-yaml-token" });
    assert.ok(isSecret(creds.inputs.token), JSON.stringify(creds.inputs.token));
    const made = await p.create(CREDENTIALS, "creds", creds.inputs);
    assertSecret(made.outs, ["secretDigest", "secretSalt"], "create");
    const rotated = (await p.check(CREDENTIALS, "creds", { name: "plain-pat", endpoint: "github.com", token: "plain-yaml-token-2" })).inputs;
    assertSecret(await p.update(CREDENTIALS, "creds", made.id, made.outs, rotated), ["secretDigest", "secretSalt"], "update");

    const REPOSITORY = "garm:index:GarmRepository";
    const repo = await p.check(REPOSITORY, "repo", { name: "acme/plugin-secrets", credentials: "acme-pat", webhookSecret: "plain-hook-secret" });
    assert.deepEqual(repo.failures, []);
    const repoMade = await p.create(REPOSITORY, "repo", repo.inputs);
    assertSecret(repoMade.outs, ["webhookSecretHash", "webhookSecretSalt"], "create");
    // State the plugin wrote before: the digest in clear. A refresh stores it back as a secret.
    const clear = Object.fromEntries(Object.entries(repoMade.outs).map(([k, v]) => [k, isSecret(v) ? (v as { value: unknown }).value : v]));
    const refreshed = await p.read(REPOSITORY, "repo", repoMade.id, { ...clear, stateVersion: 1 }, {});
    assertSecret(refreshed.props ?? {}, ["webhookSecretHash", "webhookSecretSalt"], "refresh");
    assert.ok(!p.output.join("\n").includes("plain-hook-secret") && !p.output.join("\n").includes("plain-yaml-token"), "no secret in the plugin's output");
  });
});
