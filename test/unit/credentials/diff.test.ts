// GarmCredentials' diff: name, description and the secret change in place (UpdateGithubCredentialsParams,
// params/requests.go L520-525); endpoint, forge and auth type replace (database/sql/github.go L437-458). The secret is
// compared through its salted digest, never stored in plain text.
import { strict as assert } from "node:assert";
import { diffCredentials } from "../../../provider/kinds/credentials/diff";
import { type CheckedCredentialsInputs, type CredentialsOutputs, secretMaterial } from "../../../provider/kinds/credentials/inputs";
import { digestSecret } from "../../../provider/common/secret-digest";
import { UNKNOWN } from "../../../provider/common/unknown";
import { APP_KEY_1, APP_KEY_2 } from "../../../harness/forge-pem";
import { withMarks } from "../../support/diff-marks";

const pat: CheckedCredentialsInputs = { forge: "github", name: "c", description: "", endpoint: "ghe", authType: "pat", token: "t1", adoptExisting: false };
const stored = async (i: CheckedCredentialsInputs): Promise<CredentialsOutputs> => {
  const { salt, digest } = await digestSecret(secretMaterial(i));
  return {
  credentialsId: 3,
  forge: i.forge,
  name: i.name,
  description: i.description,
  endpoint: i.endpoint,
  authType: i.authType,
  ...(i.authType === "app" ? { appId: i.appId, installationId: i.installationId } : {}),
  secretSalt: salt,
  secretDigest: digest,
  adoptExisting: i.adoptExisting,
  stateVersion: 2,
  };
};

describe("GarmCredentials diff", () => {
  it("sees no change for the same token, and keeps no plain secret in the state it compares with", async () => {
    assert.deepEqual(withMarks(await diffCredentials(await stored(pat), pat)), { changes: false, replaces: [], deleteBeforeReplace: false, fields: {} });
    assert.ok(!JSON.stringify((await stored(pat))).includes('"t1"'));
  });

  it("updates a rotated token, a rotated app key or app ids, a rename and a description in place", async () => {
    const app: CheckedCredentialsInputs = { ...pat, authType: "app", token: undefined, appId: 1, installationId: 2, privateKey: APP_KEY_1 };
    for (const [olds, news, marked] of [
      [pat, { ...pat, token: "t2" }, "token"],
      [app, { ...app, privateKey: APP_KEY_2 }, "privateKey"],
      [app, { ...app, installationId: 3 }, "installationId"],
      [pat, { ...pat, name: "c2" }, "name"],
      [pat, { ...pat, description: "d" }, "description"],
    ] as const) {
      const planned = await diffCredentials(await stored(olds), news);
      assert.deepEqual(withMarks(planned), { changes: true, replaces: [], deleteBeforeReplace: false, fields: { [marked]: "update" } }, JSON.stringify(news));
      // GARM's secret is in the outputs only as its digest: the old value to show is the old input.
      assert.equal(planned.fields[marked]!.oldFromInputs, marked === "token" || marked === "privateKey");
    }
  });

  it("replaces on another endpoint, forge or auth type; old ones first unless renamed or moved to the other forge", async () => {
    assert.deepEqual(withMarks(await diffCredentials(await stored(pat), { ...pat, endpoint: "other" })), { changes: true, replaces: ["endpoint"], deleteBeforeReplace: true, fields: { endpoint: "updateReplace" } });
    // GitHub and Gitea credentials live in separate tables (database/sql/models.go L480, L507): one name on each never collides.
    assert.deepEqual(withMarks(await diffCredentials(await stored(pat), { ...pat, forge: "gitea" })), { changes: true, replaces: ["forge"], deleteBeforeReplace: false, fields: { forge: "updateReplace" } });
    assert.deepEqual(withMarks(await diffCredentials(await stored(pat), { ...pat, endpoint: "gitea.example", forge: "gitea" })), {
      changes: true,
      replaces: ["endpoint", "forge"],
      deleteBeforeReplace: false,
      fields: { endpoint: "updateReplace", forge: "updateReplace" },
    });
    const unknownForge = await diffCredentials(await stored(pat), { ...pat, forge: UNKNOWN });
    assert.deepEqual(withMarks(unknownForge), { changes: true, replaces: ["forge"], deleteBeforeReplace: true, fields: { forge: "updateReplace" } }, "a forge not yet known may be the same one");
    const toApp = { ...pat, name: "c-app", authType: "app" as const, token: undefined, appId: 1, installationId: 2, privateKey: APP_KEY_1 };
    assert.deepEqual(withMarks(await diffCredentials(await stored(pat), toApp)), {
      changes: true,
      replaces: ["authType"],
      deleteBeforeReplace: false,
      // The token GARM held goes; the app's id, installation and key are new.
      fields: { authType: "updateReplace", name: "update", appId: "add", installationId: "add", privateKey: "add" },
    });
  });

  it("deletes first when renamed only in case: GARM's credentials names ignore case", async () => {
    assert.deepEqual(withMarks(await diffCredentials(await stored(pat), { ...pat, name: "C", endpoint: "other" })), {
      changes: true,
      replaces: ["endpoint"],
      deleteBeforeReplace: true,
      fields: { endpoint: "updateReplace", name: "update" },
    });
  });

  it("marks exactly the field GARM holds otherwise after a refresh, the unchanged token not at all", async () => {
    const refreshed = { ...(await stored(pat)), description: "edited in GARM" };
    assert.deepEqual(withMarks(await diffCredentials(refreshed, pat)).fields, { description: "update" });
  });

  it("sees no replacement for the endpoint written in another case: it is GARM's same endpoint", async () => {
    assert.deepEqual(withMarks(await diffCredentials(await stored(pat), { ...pat, endpoint: "GHE" })), { changes: false, replaces: [], deleteBeforeReplace: false, fields: {} });
  });
});
