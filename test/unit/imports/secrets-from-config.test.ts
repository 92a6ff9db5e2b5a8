// Secret inputs named by a stack config key (common/secrets-from-config.ts) as credentials and entities check them, and
// the importers of those kinds: the keys they name, the ids they take, and the refusal while a key is not set.
import { strict as assert } from "node:assert";
import { checkCredentialsInputs } from "../../../provider/kinds/credentials/check";
import { credentialsConfigKeys, credentialsImportId, importCredentials } from "../../../provider/kinds/credentials/import";
import { checkEntityInputs } from "../../../provider/kinds/entity/check";
import { entityImportId, entityWebhookSecretKey, importEntity } from "../../../provider/kinds/entity/import";
import { secretMatches } from "../../../provider/common/secret-digest";
import { secretMaterial } from "../../../provider/kinds/credentials/inputs";
import type { CredentialsView, EntityView } from "../../../provider/garm/client";

const configOf = (values: Record<string, string>) => (key: string) => values[key];
const reasons = (failures: { property: string; reason: string }[]) => Object.fromEntries(failures.map((f) => [f.property, f.reason]));

const PAT: CredentialsView = { id: 7, name: "CI Pat", description: "", authType: "pat", forge: "github", endpoint: "github.com", repositories: [], organizations: [], enterprises: [] };
const ORG: EntityView = { id: "9a4e1b7c-0d2f-4e3a-8b1c-2d3e4f5a6b7c", name: "widgets", credentials: "acme-pat", endpoint: "github.com", poolBalancerType: "pack", agentMode: false };

describe("secrets named by a stack config key", () => {
  it("check puts the config value in place of tokenFromConfig and keeps the key", () => {
    const out = checkCredentialsInputs({ name: "ci", endpoint: "github.com", tokenFromConfig: "garm:ci-token" }, configOf({ "garm:ci-token": "ghp_1" }));
    assert.deepEqual(out.failures, []);
    assert.equal(out.inputs.token, "ghp_1");
    assert.equal(out.inputs.tokenFromConfig, "garm:ci-token");
  });

  it("check fails naming the `pulumi config set --secret` command while the key is not set, never a silent rotation", () => {
    const out = checkCredentialsInputs({ name: "ci", endpoint: "github.com", tokenFromConfig: "garm:ci-token" }, configOf({}));
    assert.match(reasons(out.failures).tokenFromConfig ?? "", /GarmCredentials ci: GARM never returns its token, .*run `pulumi config set --secret garm:ci-token <token>`/);
  });

  it("refuses a key outside the garm: namespace, the key beside the secret, and the key in the dynamic provider", () => {
    const config = configOf({ "garm:k": "v" });
    assert.match(reasons(checkCredentialsInputs({ name: "ci", endpoint: "e", tokenFromConfig: "aws:k" }, config).failures).tokenFromConfig ?? "", /must name a key in the garm: namespace/);
    assert.match(reasons(checkCredentialsInputs({ name: "ci", endpoint: "e", token: "t", tokenFromConfig: "garm:k" }, config).failures).tokenFromConfig ?? "", /either token or tokenFromConfig/);
    assert.match(reasons(checkCredentialsInputs({ name: "ci", endpoint: "e", tokenFromConfig: "garm:k" }).failures).tokenFromConfig ?? "", /read by the garm resource plugin only/);
  });

  it("an entity's webhookSecretFromConfig is read the same way; with neither, webhookSecret is required", () => {
    const ok = checkEntityInputs("organization", { name: "widgets", credentials: "acme-pat", webhookSecretFromConfig: "garm:hook" }, configOf({ "garm:hook": "s3cret" }));
    assert.deepEqual(ok.failures, []);
    assert.equal(ok.inputs.webhookSecret, "s3cret");
    assert.match(reasons(checkEntityInputs("organization", { name: "widgets", credentials: "acme-pat" }).failures).webhookSecret ?? "", /webhookSecret is required/);
  });
});

describe("importers of credentials and entities", () => {
  it("import ids: <forge>/<id> for credentials, the GARM id for entities", () => {
    assert.equal(credentialsImportId({ ...PAT, forge: "gitea" }), "gitea/7");
    assert.equal(entityImportId(ORG), ORG.id);
    assert.deepEqual(credentialsConfigKeys(PAT), { secret: "garm:credentials-ci-pat_26a8d60c-token" });
    assert.equal(credentialsConfigKeys({ ...PAT, forge: "gitea" }).secret, "garm:credentials-gitea--ci-pat_740899d6-token");
    assert.equal(entityWebhookSecretKey("repository", { name: "acme/app", endpoint: "ghes" }), "garm:repository-ghes--acme--app-webhook-secret");
    // "CI Pat" does not read back from a key (its space, its case): its key ends in a hash of GARM's identity of it.
    assert.equal(credentialsConfigKeys({ ...PAT, name: "ci pat" }).secret, "garm:credentials-ci-pat_26a8d60c-token", "GARM folds ASCII case, and so does the key");
    assert.equal(credentialsConfigKeys({ ...PAT, name: "ci-pat" }).secret, "garm:credentials-ci-pat-token");
  });

  it("credentials: refuses while the key is unset, naming it; with it set, the state's digest is of the configured token", async () => {
    const client = { getCredentials: async () => PAT };
    await assert.rejects(importCredentials(client, "github/7", configOf({})), /pulumi config set --secret garm:credentials-ci-pat_26a8d60c-token <token>/);
    const got = await importCredentials(client, "github/7", configOf({ "garm:credentials-ci-pat_26a8d60c-token": "ghp_live" }));
    assert.deepEqual(got.inputs, { name: "CI Pat", endpoint: "github.com", tokenFromConfig: "garm:credentials-ci-pat_26a8d60c-token" });
    const props = got.props as { secretSalt: string; secretDigest: string };
    assert.ok(await secretMatches({ salt: props.secretSalt, digest: props.secretDigest }, secretMaterial({ token: "ghp_live" })));
    assert.ok(!JSON.stringify(got).includes("ghp_live"));
  });

  it("entities: by name, refusing a name two endpoints hold unless name@endpoint says which", async () => {
    const other = { ...ORG, id: "1a4e1b7c-0d2f-4e3a-8b1c-2d3e4f5a6b7c", endpoint: "ghes" };
    const client = { getEntity: async () => ORG, listEntities: async () => [ORG, other] };
    const config = configOf({ "garm:organization-widgets-webhook-secret": "s", "garm:organization-ghes--widgets-webhook-secret": "s2" });
    await assert.rejects(importEntity("organization", client as never, "widgets", config), /import widgets@github\.com or widgets@ghes/);
    const got = await importEntity("organization", client as never, "widgets@ghes", config);
    assert.equal(got.id, other.id);
    assert.deepEqual(got.inputs, { name: "widgets", credentials: "acme-pat", webhookSecretFromConfig: "garm:organization-ghes--widgets-webhook-secret", poolBalancerType: "pack" });
    await assert.rejects(importEntity("organization", client as never, ORG.id, configOf({})), /pulumi config set --secret garm:organization-widgets-webhook-secret <webhook-secret>/);
  });
});
