// GarmEndpoint's diff: in-place updates for what UpdateGithubEndpointParams carries (params/requests.go L383-389),
// replacement for the name and forge and for a removed CA bundle (runner/github_endpoints.go L90: an empty one is
// never sent), and no change for a CA bundle that differs only in how GARM re-encodes it.
import { strict as assert } from "node:assert";
import { diffEndpoint } from "../../../provider/kinds/endpoint/diff";
import { toEndpointOutputs } from "../../../provider/kinds/endpoint/inputs";
import { CA_CERT_1, CA_CERT_2 } from "../../support/forge-pem";

const inputs = {
  forge: "github" as const,
  name: "ghe",
  description: "",
  baseUrl: "https://ghe.test",
  apiBaseUrl: "https://ghe.test/api/v3/",
  uploadBaseUrl: "https://ghe.test/api/uploads/",
  caCertBundle: CA_CERT_1,
  adoptExisting: false,
};
const olds = toEndpointOutputs(inputs);

describe("GarmEndpoint diff", () => {
  it("sees no change for the same inputs, or a bundle GARM re-encoded (CRLF, duplicates)", () => {
    assert.deepEqual(diffEndpoint(olds, inputs), { changes: false, replaces: [], deleteBeforeReplace: false });
    const reencoded = `${CA_CERT_1.replace(/\n/g, "\r\n")}${CA_CERT_1}`;
    assert.equal(diffEndpoint(olds, { ...inputs, caCertBundle: reencoded }).changes, false);
  });

  it("updates description, URLs and a changed CA bundle in place", () => {
    for (const change of [{ description: "d" }, { apiBaseUrl: "https://x.test/" }, { uploadBaseUrl: "https://x.test/u/" }, { baseUrl: "https://x.test" }, { caCertBundle: CA_CERT_2 }]) {
      assert.deepEqual(diffEndpoint(olds, { ...inputs, ...change }), { changes: true, replaces: [], deleteBeforeReplace: false }, JSON.stringify(change));
    }
  });

  it("replaces on a new name (new one first), on another forge or a removed CA bundle (old one first)", () => {
    assert.deepEqual(diffEndpoint(olds, { ...inputs, name: "ghe2" }), { changes: true, replaces: ["name"], deleteBeforeReplace: false });
    assert.deepEqual(diffEndpoint(olds, { ...inputs, forge: "gitea" }), { changes: true, replaces: ["forge"], deleteBeforeReplace: true });
    assert.deepEqual(diffEndpoint(olds, { ...inputs, caCertBundle: "" }), { changes: true, replaces: ["caCertBundle"], deleteBeforeReplace: true });
  });

  it("deletes first on a rename that only changes case, or a forge change under such a name: GARM's endpoint key ignores case", () => {
    assert.deepEqual(diffEndpoint(olds, { ...inputs, name: "GHE" }), { changes: true, replaces: ["name"], deleteBeforeReplace: true });
    assert.deepEqual(diffEndpoint(olds, { ...inputs, name: "Ghe", forge: "gitea" }), { changes: true, replaces: ["name", "forge"], deleteBeforeReplace: true });
  });

  it("counts a changed adoptExisting as a change that GARM never sees", () => {
    assert.deepEqual(diffEndpoint(olds, { ...inputs, adoptExisting: true }), { changes: true, replaces: [], deleteBeforeReplace: false });
  });
});
