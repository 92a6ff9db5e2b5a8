// What an input change does to an entity (provider/kinds/entity/diff.ts): GARM updates credentials, webhook secret, pool
// balancer and agent mode in place (UpdateEntityParams, params/requests.go L300-306), refuses credentials of another
// endpoint (database/sql/util.go L1184-1186), and has no rename.
import { strict as assert } from "node:assert";
import { changedFields, diffEntity, updateBody, webhookChange } from "../../../provider/kinds/entity/diff";
import { withDefaults } from "../../../provider/kinds/entity/inputs";
import { type EntityOutputs, secretHash } from "../../../provider/kinds/entity/state";
import { UNKNOWN } from "../../../provider/common/unknown";

const inputs = withDefaults({ name: "acme", credentials: "acme-pat", webhookSecret: "one" });
const { webhookSecret: _secret, ...kept } = inputs;
const olds: EntityOutputs = {
  ...kept,
  stateVersion: 1,
  entityId: "6c1b2f6e-0000-4000-8000-000000000001",
  entityKind: "organization",
  endpointName: "github.com",
  webhookSecretHash: secretHash("salt", "one"),
  webhookSecretSalt: "salt",
  webhookInstalled: false,
};

describe("entity diff", () => {
  it("sees no change for the same inputs, and none from omitted defaults", () => {
    assert.equal(diffEntity(olds, { name: "acme", credentials: "acme-pat", webhookSecret: "one" }).changes, false);
    assert.equal(diffEntity(olds, { ...inputs }).changes, false);
  });

  it("replaces on a new name, deleting first only for a change of case (GARM compares names ignoring case)", () => {
    const renamed = diffEntity(olds, { ...inputs, name: "acme-2" });
    assert.deepEqual(renamed.replaces, ["name"]);
    assert.equal(renamed.deleteBeforeReplace, false);
    assert.equal(diffEntity(olds, { ...inputs, name: "ACME" }).deleteBeforeReplace, true);
  });

  it("updates credentials of the same endpoint in place and replaces for another endpoint", () => {
    assert.deepEqual(diffEntity(olds, { ...inputs, credentials: "other" }, "github.com").replaces, []);
    assert.deepEqual(diffEntity(olds, { ...inputs, credentials: "other" }, "ghes.example.com").replaces, ["credentials"]);
    assert.deepEqual(diffEntity(olds, { ...inputs, credentials: "other" }).replaces, [], "unknown endpoint: update, and GARM's refusal explains");
  });

  it("detects a rotated secret through the salted hash, and an unknown one as a change", () => {
    assert.deepEqual(changedFields(olds, { ...inputs, webhookSecret: "two" }), ["webhookSecret"]);
    assert.deepEqual(changedFields(olds, { ...inputs, webhookSecret: UNKNOWN }), ["webhookSecret"]);
    assert.deepEqual(changedFields(olds, { ...inputs }), []);
  });

  it("sends only the changed fields", () => {
    const news = { ...inputs, poolBalancerType: "pack" as const, webhookSecret: "two" };
    assert.deepEqual(updateBody(news, changedFields(olds, news)), { webhook_secret: "two", pool_balancer_type: "pack" });
  });

  it("installs a webhook asked for and not there, removes one it installed when no longer asked for", () => {
    assert.equal(webhookChange(olds, { ...inputs, installWebhook: true }), "install");
    const installed = { ...olds, installWebhook: true, webhookInstalled: true };
    assert.equal(webhookChange(installed, { ...inputs, installWebhook: true }), undefined);
    assert.equal(webhookChange(installed, { ...inputs, installWebhook: false }), "remove");
    assert.equal(webhookChange(olds, { ...inputs }), undefined);
  });

  it("a provider-only option is a change without a GARM field", () => {
    const d = diffEntity(olds, { ...inputs, keepWebhookOnDelete: true });
    assert.equal(d.changes, true);
    assert.deepEqual(changedFields(olds, { ...inputs, keepWebhookOnDelete: true }), []);
  });
});
