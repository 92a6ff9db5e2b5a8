// GarmEndpoint's preview checks: GARM's URL rules (params/requests.go L324-381), a CA bundle GARM would drop or answer
// with a 500 (SanitizeCABundle), the GitHub/Gitea URL sets, and field-named messages.
import { strict as assert } from "node:assert";
import { checkEndpointInputs } from "../../../provider/kinds/endpoint/check";
import { UNKNOWN } from "../../../provider/common/unknown";
import { CA_CERT_1, CA_CERT_2 } from "../../../harness/forge-pem";

const github = { name: "ghe", baseUrl: "https://ghe.test", apiBaseUrl: "https://ghe.test/api/v3/", uploadBaseUrl: "https://ghe.test/api/uploads/" };
const reasons = (news: Record<string, unknown>) => Object.fromEntries(checkEndpointInputs(news).failures.map((f) => [f.property, f.reason]));

describe("GarmEndpoint check", () => {
  it("accepts a GitHub endpoint and fills in the defaults", () => {
    const out = checkEndpointInputs({ ...github, caCertBundle: `${CA_CERT_1}${CA_CERT_2}` });
    assert.deepEqual(out.failures, []);
    assert.deepEqual({ ...out.inputs, caCertBundle: "…" }, { forge: "github", ...github, description: "", caCertBundle: "…", adoptExisting: false });
  });

  it("requires the upload URL for GitHub and refuses it for Gitea", () => {
    const { uploadBaseUrl: _u, ...noUpload } = github;
    assert.match(reasons(noUpload).uploadBaseUrl ?? "", /uploadBaseUrl is required for a "github" endpoint/);
    assert.deepEqual(checkEndpointInputs({ ...noUpload, forge: "gitea" }).failures, []);
    assert.match(reasons({ ...github, forge: "gitea" }).uploadBaseUrl ?? "", /applies only to "github" endpoints/);
  });

  it("refuses URLs GARM refuses: another scheme, no host (Go's url.Parse sees none in https:///x), not a URL", () => {
    assert.match(reasons({ ...github, apiBaseUrl: "ftp://ghe.test/" }).apiBaseUrl ?? "", /^apiBaseUrl "ftp:\/\/ghe.test\/" must be an http:\/\/ or https:\/\/ URL with a host/);
    assert.match(reasons({ ...github, baseUrl: "https:///x" }).baseUrl ?? "", /^baseUrl "https:\/\/\/x" must be an http:\/\/ or https:\/\/ URL with a host/);
    assert.match(reasons({ ...github, uploadBaseUrl: "ghe.test" }).uploadBaseUrl ?? "", /is not a URL/);
  });

  it("refuses a CA bundle GARM would silently drop or fail on with a 500", () => {
    assert.match(reasons({ ...github, caCertBundle: "hello" }).caCertBundle ?? "", /holds no PEM certificate .*GARM would ignore it/);
    assert.match(reasons({ ...github, caCertBundle: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n" }).caCertBundle ?? "", /block 1 is not a valid X.509 certificate/);
    assert.match(reasons({ ...github, caCertBundle: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n" }).caCertBundle ?? "", /block 1 is a "PUBLIC KEY", not a CERTIFICATE/);
  });

  it("names the name and type failures, and passes unknowns through", () => {
    assert.match(reasons({ ...github, name: "" }).name ?? "", /name must not be empty/);
    assert.match(reasons({ ...github, name: "a b" }).name ?? "", /may hold only letters/);
    assert.match(reasons({ ...github, forge: "gitlab" }).forge ?? "", /forge is "gitlab"; it must be one of "github", "gitea"/);
    assert.match(reasons({ ...github, colour: "red" }).colour ?? "", /unknown input "colour"/);
    const out = checkEndpointInputs({ ...github, name: UNKNOWN });
    assert.deepEqual(out.failures, []);
    assert.equal(out.inputs.name, UNKNOWN);
  });
});
