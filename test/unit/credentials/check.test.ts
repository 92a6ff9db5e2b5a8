// GarmCredentials' preview checks: field-named messages, a private key GARM could not parse refused before GARM
// answers 500 (params/requests.go L453-477), and no message quoting a secret.
import { strict as assert } from "node:assert";
import { checkCredentialsInputs } from "../../../provider/kinds/credentials/check";
import { UNKNOWN } from "../../../provider/common/unknown";
import { APP_KEY_1, APP_KEY_1_PKCS8, EC_KEY } from "../../../harness/forge-pem";

const base = { name: "ghe-pat", endpoint: "ghe" };
const reasons = (news: Record<string, unknown>) => Object.fromEntries(checkCredentialsInputs(news).failures.map((f) => [f.property, f.reason]));

describe("GarmCredentials check", () => {
  it("accepts a token and derives the pat auth type with defaults", () => {
    const out = checkCredentialsInputs({ ...base, token: "ghp_x" });
    assert.deepEqual(out.failures, []);
    assert.deepEqual(out.inputs, { forge: "github", name: "ghe-pat", description: "", endpoint: "ghe", authType: "pat", token: "ghp_x", adoptExisting: false });
  });

  it("accepts a GitHub App with a PKCS#1 RSA key", () => {
    const out = checkCredentialsInputs({ ...base, appId: 1, installationId: 2, privateKey: APP_KEY_1 });
    assert.deepEqual(out.failures, []);
    assert.equal(out.inputs.authType, "app");
  });

  it("refuses a PKCS#8 key, which GARM's PKCS#1 parser rejects with a 500, and says how to convert it", () => {
    const r = reasons({ ...base, appId: 1, installationId: 2, privateKey: APP_KEY_1_PKCS8 });
    assert.match(r.privateKey ?? "", /^privateKey is a PKCS#8 key \("BEGIN PRIVATE KEY"\); GARM reads only PKCS#1 RSA keys .*openssl pkey -in key.pem -traditional/);
  });

  it("refuses an EC key and text that is not PEM, naming the field and never quoting the key", () => {
    const ec = reasons({ ...base, appId: 1, installationId: 2, privateKey: EC_KEY });
    assert.match(ec.privateKey ?? "", /^privateKey is not an RSA private key GARM can read/);
    const text = reasons({ ...base, appId: 1, installationId: 2, privateKey: "secret-looking-text" });
    assert.match(text.privateKey ?? "", /^privateKey is not PEM text/);
    assert.ok(!JSON.stringify([ec, text]).includes("secret-looking-text"));
    assert.ok(!JSON.stringify(ec).includes(EC_KEY.split("\n")[1]!));
  });

  it("refuses both a token and an app, neither, an incomplete app, and an app for Gitea", () => {
    assert.match(reasons({ ...base, token: "t", appId: 1 }).appId ?? "", /set either token, or appId, installationId and privateKey/);
    assert.match(reasons(base).token ?? "", /set token .* or appId, installationId and privateKey/);
    assert.match(reasons({ ...base, appId: 1, privateKey: APP_KEY_1 }).installationId ?? "", /installationId is required for GitHub App credentials/);
    assert.match(reasons({ ...base, forge: "gitea", appId: 1, installationId: 2, privateKey: APP_KEY_1 }).appId ?? "", /Gitea credentials take a token only/);
    assert.match(reasons({ ...base, token: "" }).token ?? "", /token must not be empty/);
  });

  it("never shows a secret's value in a type failure", () => {
    const r = reasons({ ...base, token: 12345678 });
    assert.equal(r.token, "token is a number (the value is secret, so it is not shown); it must be a string");
  });

  it("names bad names, and passes unknown values through", () => {
    assert.match(reasons({ ...base, name: " ", token: "t" }).name ?? "", /name must not be empty/);
    assert.match(reasons({ ...base, endpoint: "a/b", token: "t" }).endpoint ?? "", /endpoint "a\/b" may hold only letters/);
    assert.match(reasons({ name: "x", token: "t" }).endpoint ?? "", /endpoint is required/);
    const out = checkCredentialsInputs({ ...base, endpoint: UNKNOWN, token: UNKNOWN });
    assert.deepEqual(out.failures, []);
    assert.equal(out.inputs.endpoint, UNKNOWN);
    assert.equal(out.inputs.token, UNKNOWN);
  });

  it("takes any name GARM takes: GARM checks only that it is not empty and addresses credentials by id (a team's `deploy \"bot\" ${env}` imports)", () => {
    for (const name of ["a/b", `deploy "bot" \${env} ünï`, "it's ☕", "CI Pat"]) assert.deepEqual(reasons({ ...base, name, token: "t" }), {}, name);
  });
});
