// Entity input rules at preview (provider/kinds/entity/check.ts): GARM itself checks only non-empty name, credentials and
// secret (params/requests.go L53-148) and answers a missing secret with a bare 500 in v0.2.1 (garm-behaviour.md §1.7).
import { strict as assert } from "node:assert";
import { checkEntityInputs } from "../../../provider/kinds/entity/check";
import { UNKNOWN } from "../../../provider/common/unknown";

const base = { name: "acme", credentials: "acme-pat", webhookSecret: "s3cret-value" };

describe("entity check", () => {
  it("fills the defaults", () => {
    const out = checkEntityInputs("organization", base);
    assert.deepEqual(out.failures, []);
    assert.deepEqual(out.inputs, { ...base, poolBalancerType: "roundrobin", agentMode: false, installWebhook: false, keepWebhookOnDelete: false, adoptExisting: false });
  });

  const table: [string, "organization" | "repository" | "enterprise", Record<string, unknown>, string, RegExp][] = [
    ["a repository name without owner", "repository", { name: "app" }, "name", /must be "owner\/name"/],
    ["an organization name with a slash", "organization", { name: "acme/app" }, "name", /without "\/"/],
    ["an empty name", "enterprise", { name: " " }, "name", /must not be empty/],
    ["an empty secret (GARM: 500 in v0.2.1)", "organization", { webhookSecret: "" }, "webhookSecret", /webhookSecret must not be empty/],
    ["empty credentials", "organization", { credentials: "" }, "credentials", /must not be empty/],
    ["an unknown balancer", "organization", { poolBalancerType: "random" }, "poolBalancerType", /one of "roundrobin", "pack"/],
    ["a webhook for an enterprise (no such GARM route)", "enterprise", { installWebhook: true }, "installWebhook", /no webhook route for enterprises/],
    ["a misspelt input", "repository", { name: "acme/app", webhookSecrets: "x" }, "webhookSecrets", /unknown input/],
  ];
  for (const [what, kind, change, property, reason] of table) {
    it(`refuses ${what}, naming ${property}`, () => {
      const out = checkEntityInputs(kind, { ...base, ...(kind === "repository" ? { name: "acme/app" } : {}), ...change });
      assert.equal(out.failures[0]?.property, property);
      assert.match(out.failures[0]?.reason ?? "", reason);
    });
  }

  it("requires name, credentials and webhookSecret", () => {
    const out = checkEntityInputs("organization", {});
    assert.deepEqual(out.failures.map((f) => f.property), ["name", "credentials", "webhookSecret"]);
  });

  it("never repeats the secret in a failure", () => {
    const out = checkEntityInputs("organization", { ...base, name: "", webhookSecret: "do-not-show-me" });
    assert.ok(!JSON.stringify(out.failures).includes("do-not-show-me"));
  });

  it("passes unknown values through for `up` to check", () => {
    const out = checkEntityInputs("organization", { ...base, credentials: UNKNOWN, webhookSecret: UNKNOWN });
    assert.deepEqual(out.failures, []);
    assert.equal(out.inputs.credentials, UNKNOWN);
    assert.equal(out.inputs.webhookSecret, UNKNOWN);
  });
});
