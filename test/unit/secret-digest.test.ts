// What the state keeps of a secret (issue 23 item 8): a slow keyed derivation under a per-resource salt, not a salted
// sha256 a dictionary attack tests in seconds; and state of version 1, which holds that sha256, still sees an
// unchanged secret as unchanged and moves to the new form at its next write without counting as a rotation.
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { digestSecret, secretMatches } from "../../provider/common/secret-digest";
import { credentialsProviderWith } from "../../provider/kinds/credentials/resource";
import { diffCredentials } from "../../provider/kinds/credentials/diff";
import { readCredentialsOutputs } from "../../provider/kinds/credentials/inputs";
import { entityMethodsWith } from "../../provider/kinds/entity/resource";
import { diffEntity } from "../../provider/kinds/entity/diff";
import { readOutputs } from "../../provider/kinds/entity/state";
import { GarmClient } from "../../provider/garm/client";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const quiet = { info() {}, warn() {} };
const noGarm = () => {
  throw new Error("GARM was called");
};

describe("secret digests in state", function () {
  this.timeout(30_000);

  it("are scrypt under a fresh salt, with no plain sha256 of salt and secret anywhere", async () => {
    const a = await digestSecret("hunter2-webhook");
    const b = await digestSecret("hunter2-webhook");
    assert.match(a.digest, /^scrypt:16384:8:1:[0-9a-f]{64}$/);
    assert.notEqual(a.salt, b.salt);
    assert.notEqual(a.digest, b.digest);
    assert.ok(!a.digest.includes(sha256(`${a.salt}\nhunter2-webhook`)));
    assert.equal(await secretMatches(a, "hunter2-webhook"), true);
    assert.equal(await secretMatches(a, "hunter3-webhook"), false);
    assert.equal(await secretMatches({ salt: a.salt, digest: "" }, "hunter2-webhook"), false, "an empty digest matches nothing");
  });

  describe("GarmCredentials state of version 1", () => {
    const v1 = {
      credentialsId: 3,
      forge: "github",
      name: "pat",
      description: "",
      endpoint: "github.com",
      authType: "pat",
      secretSalt: "0123abcd",
      secretDigest: sha256("0123abcd\ntoken\nghp_old_token"),
      adoptExisting: false,
      stateVersion: 1,
    };
    const news = { forge: "github", name: "pat", description: "", endpoint: "github.com", authType: "pat", token: "ghp_old_token", adoptExisting: false };

    it("sees the same token as unchanged and another as a rotation", async () => {
      assert.deepEqual(await diffCredentials(readCredentialsOutputs(v1), news), { changes: false, replaces: [], deleteBeforeReplace: false, fields: {} });
      const rotated = await diffCredentials(readCredentialsOutputs(v1), { ...news, token: "ghp_new_token" });
      assert.equal(rotated.changes, true);
      assert.deepEqual(Object.keys(rotated.fields), ["token"]);
    });

    it("moves to the scrypt form at the next write, sending GARM nothing for an unchanged token", async () => {
      const methods = credentialsProviderWith({ client: noGarm as never, log: quiet });
      const { outs } = await methods.update!("3", v1, news);
      assert.equal(outs.stateVersion, 2);
      assert.match(outs.secretDigest, /^scrypt:/);
      assert.equal(await secretMatches({ salt: outs.secretSalt, digest: outs.secretDigest }, "token\nghp_old_token"), true);
    });
  });

  describe("entity state of version 1", () => {
    const entityId = "6c1b2f6e-0000-4000-8000-000000000001";
    const v1 = {
      name: "acme",
      credentials: "acme-pat",
      poolBalancerType: "roundrobin",
      agentMode: false,
      installWebhook: true,
      keepWebhookOnDelete: false,
      adoptExisting: false,
      entityId,
      entityKind: "organization",
      endpointName: "github.com",
      webhookSecretHash: sha256("feedbeef\nold-webhook-secret"),
      webhookSecretSalt: "feedbeef",
      webhookInstalled: true,
      stateVersion: 1,
    };
    const news = { name: "acme", credentials: "acme-pat", webhookSecret: "old-webhook-secret", poolBalancerType: "roundrobin", agentMode: false, installWebhook: true, keepWebhookOnDelete: false, adoptExisting: false };

    it("sees the same webhook secret as unchanged and another as a rotation", async () => {
      assert.equal((await diffEntity(readOutputs("organization", v1), news)).changes, false);
      assert.equal((await diffEntity(readOutputs("organization", v1), { ...news, webhookSecret: "new-webhook-secret" })).changes, true);
    });

    it("moves to the scrypt form at the next write without a rotation: no secret sent, the webhook left alone", async () => {
      const calls: string[] = [];
      const org = { id: entityId, name: "acme", credentials_name: "acme-pat", endpoint: { name: "github.com" }, pool_balancing_type: "roundrobin", agent_mode: false };
      const client = GarmClient.inProcess({
        baseUrl: "http://garm.test/api/v1",
        fetch: async (req) => {
          calls.push(`${req.method} ${new URL(req.url).pathname.replace("/api/v1", "")}`);
          return new Response(JSON.stringify(org), { status: 200 });
        },
      });
      const methods = entityMethodsWith("organization", { client: () => client, log: quiet });
      const { outs } = await methods.update!(entityId, v1, news);
      assert.deepEqual(calls, [`GET /organizations/${entityId}`]);
      assert.equal(outs.stateVersion, 2);
      assert.match(outs.webhookSecretHash, /^scrypt:/);
      assert.equal(await secretMatches({ salt: outs.webhookSecretSalt, digest: outs.webhookSecretHash }, "old-webhook-secret"), true);
      assert.equal(outs.webhookInstalled, true);
    });
  });
});
