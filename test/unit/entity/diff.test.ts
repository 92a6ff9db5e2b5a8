// What an input change does to an entity (provider/kinds/entity/diff.ts): GARM updates credentials, webhook secret, pool
// balancer and agent mode in place (UpdateEntityParams, params/requests.go L300-306), refuses credentials of another
// endpoint (database/sql/util.go L1184-1186), and has no rename.
import { strict as assert } from "node:assert";
import { changedFields, diffEntity, updateBody, webhookChange, webhookFollows } from "../../../provider/kinds/entity/diff";
import { withDefaults } from "../../../provider/kinds/entity/inputs";
import type { EntityOutputs } from "../../../provider/kinds/entity/state";
import { digestSecret } from "../../../provider/common/secret-digest";
import { UNKNOWN } from "../../../provider/common/unknown";
import { marks } from "../../support/diff-marks";

const inputs = withDefaults({ name: "acme", credentials: "acme-pat", webhookSecret: "one" });
const { webhookSecret: _secret, ...kept } = inputs;
let olds: EntityOutputs;

describe("entity diff", () => {
  before(async () => {
    const { salt, digest } = await digestSecret("one");
    olds = {
      ...kept,
      stateVersion: 2,
      entityId: "6c1b2f6e-0000-4000-8000-000000000001",
      entityKind: "organization",
      endpointName: "github.com",
      webhookSecretHash: digest,
      webhookSecretSalt: salt,
      webhookInstalled: false,
    };
  });

  it("sees no change for the same inputs, and none from omitted defaults", async () => {
    assert.equal((await diffEntity(olds, { name: "acme", credentials: "acme-pat", webhookSecret: "one" })).changes, false);
    assert.equal((await diffEntity(olds, { ...inputs })).changes, false);
  });

  it("replaces on a new name, but updates in place for a change of case only (GARM and GitHub compare names ignoring case)", async () => {
    const renamed = (await diffEntity(olds, { ...inputs, name: "acme-2" }));
    assert.deepEqual(renamed.replaces, ["name"]);
    assert.equal(renamed.deleteBeforeReplace, false);
    // A replacement would delete first (GARM refuses a second entity of the name) and GARM refuses that while pools exist.
    const recased = await diffEntity(olds, { ...inputs, name: "ACME" });
    assert.deepEqual(recased.replaces, []);
    assert.equal(recased.deleteBeforeReplace, false);
    assert.deepEqual(marks(recased), { name: "update" }, "the new spelling is recorded, GARM keeps its own");
    const repo = { ...olds, entityKind: "repository" as const, name: "Octo/App" };
    assert.deepEqual(marks(await diffEntity(repo, { ...inputs, name: "octo/app" })), { name: "update" });
    assert.deepEqual((await diffEntity(olds, { ...inputs, name: "ACME-2" })).replaces, ["name"], "another name in any case replaces");
  });

  it("plans an update of an entity with a webhook when the controller's webhook URL it follows changes, and shows which URL", async () => {
    const hooked = { ...olds, installWebhook: true, webhookInstalled: true, webhookUrl: "https://old.example.com/webhooks" };
    const news = { ...inputs, installWebhook: true, webhookUrl: "https://new.example.com/webhooks" };
    assert.deepEqual(marks(await diffEntity(hooked, news)), { webhookUrl: "update" });
    assert.equal(webhookFollows(hooked, news), true);
    assert.deepEqual(marks(await diffEntity(hooked, { ...news, webhookUrl: UNKNOWN })), { webhookUrl: "update" }, "unknown at preview: the controller changes");
    assert.deepEqual(marks(await diffEntity(hooked, { ...news, webhookUrl: "https://old.example.com/webhooks" })), {});
    // State written before webhookUrl was an input: taking it on checks the hook once.
    const { webhookUrl: _u, ...older } = hooked;
    assert.deepEqual(marks(await diffEntity(older as EntityOutputs, news)), { webhookUrl: "add" });
    assert.deepEqual(marks(await diffEntity(older as EntityOutputs, { ...inputs, installWebhook: true })), {}, "not given, not held: no change");
    // Without a webhook to move, the URL is no reason for an update.
    assert.deepEqual(marks(await diffEntity(olds, { ...inputs, webhookUrl: "https://new.example.com/webhooks" })), {});
    assert.equal(webhookFollows(olds, { ...inputs, webhookUrl: "https://new.example.com/webhooks" }), false);
  });

  it("updates credentials of the same endpoint in place and replaces for another endpoint", async () => {
    assert.deepEqual((await diffEntity(olds, { ...inputs, credentials: "other" }, "github.com")).replaces, []);
    assert.deepEqual((await diffEntity(olds, { ...inputs, credentials: "other" }, "ghes.example.com")).replaces, ["credentials"]);
    assert.deepEqual((await diffEntity(olds, { ...inputs, credentials: "other" })).replaces, [], "unknown endpoint: update, and GARM's refusal explains");
  });

  it("detects a rotated secret through the salted hash, and an unknown one as a change", async () => {
    assert.deepEqual((await changedFields(olds, { ...inputs, webhookSecret: "two" })), ["webhookSecret"]);
    assert.deepEqual((await changedFields(olds, { ...inputs, webhookSecret: UNKNOWN })), ["webhookSecret"]);
    assert.deepEqual((await changedFields(olds, { ...inputs })), []);
  });

  it("sends only the changed fields", async () => {
    const news = { ...inputs, poolBalancerType: "pack" as const, webhookSecret: "two" };
    assert.deepEqual(updateBody(news, (await changedFields(olds, news))), { webhook_secret: "two", pool_balancer_type: "pack" });
  });

  it("installs a webhook asked for and not there, removes one it installed when no longer asked for", async () => {
    assert.equal(webhookChange(olds, { ...inputs, installWebhook: true }), "install");
    const installed = { ...olds, installWebhook: true, webhookInstalled: true };
    assert.equal(webhookChange(installed, { ...inputs, installWebhook: true }), undefined);
    assert.equal(webhookChange(installed, { ...inputs, installWebhook: false }), "remove");
    assert.equal(webhookChange(olds, { ...inputs }), undefined);
  });

  it("a provider-only option is a change without a GARM field", async () => {
    const d = (await diffEntity(olds, { ...inputs, keepWebhookOnDelete: true }));
    assert.equal(d.changes, true);
    assert.deepEqual((await changedFields(olds, { ...inputs, keepWebhookOnDelete: true })), []);
  });

  it("marks exactly what the update sends or stores, each as GARM compares it", async () => {
    assert.deepEqual(marks(await diffEntity(olds, { ...inputs, credentials: "ACME-PAT" })), {}, "GARM matches credentials ignoring case");
    assert.deepEqual(marks(await diffEntity(olds, { ...inputs, credentials: "other" }, "ghes.example.com")), { credentials: "updateReplace" });
    assert.deepEqual(marks(await diffEntity(olds, { ...inputs, name: "acme-2", poolBalancerType: "pack" })), { name: "updateReplace", poolBalancerType: "update" });
    assert.deepEqual(marks(await diffEntity(olds, { ...inputs, keepWebhookOnDelete: true })), { keepWebhookOnDelete: "update" });
  });

  it("marks a rotated webhook secret as an update of the secret GARM holds, shown from the old input", async () => {
    const planned = await diffEntity(olds, { ...inputs, webhookSecret: "two" });
    assert.deepEqual(planned.fields, { webhookSecret: { kind: "update", replaces: false, oldFromInputs: true } });
    assert.deepEqual(marks(await diffEntity(olds, { ...inputs })), {}, "the same secret, by its digest, is no change");
  });

  it("marks installWebhook after a refresh found the webhook GARM reported gone", async () => {
    const refreshed = { ...olds, installWebhook: true, webhookInstalled: false };
    assert.deepEqual(marks(await diffEntity(refreshed, { ...inputs, installWebhook: true })), { installWebhook: "update" });
  });
});
