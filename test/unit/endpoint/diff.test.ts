// GarmEndpoint's diff: in-place updates for what UpdateGithubEndpointParams carries (params/requests.go L383-389),
// replacement for the name and forge and for a removed CA bundle (runner/github_endpoints.go L90: an empty one is
// never sent), and no change for a CA bundle that differs only in how GARM re-encodes it.
import { strict as assert } from "node:assert";
import { diffEndpoint } from "../../../provider/kinds/endpoint/diff";
import { toEndpointOutputs } from "../../../provider/kinds/endpoint/inputs";
import { CA_CERT_1, CA_CERT_2 } from "../../../harness/forge-pem";
import { withMarks } from "../../support/diff-marks";

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
    assert.deepEqual(withMarks(diffEndpoint(olds, inputs)), { changes: false, replaces: [], deleteBeforeReplace: false, fields: {} });
    const reencoded = `${CA_CERT_1.replace(/\n/g, "\r\n")}${CA_CERT_1}`;
    assert.equal(diffEndpoint(olds, { ...inputs, caCertBundle: reencoded }).changes, false);
  });

  it("updates description, URLs and a changed CA bundle in place", () => {
    for (const change of [{ description: "d" }, { apiBaseUrl: "https://x.test/" }, { uploadBaseUrl: "https://x.test/u/" }, { baseUrl: "https://x.test" }, { caCertBundle: CA_CERT_2 }]) {
      const fields = Object.fromEntries(Object.keys(change).map((f) => [f, "update"]));
      assert.deepEqual(withMarks(diffEndpoint(olds, { ...inputs, ...change })), { changes: true, replaces: [], deleteBeforeReplace: false, fields }, JSON.stringify(change));
    }
  });

  it("replaces on a new name (new one first), on another forge or a removed CA bundle (old one first)", () => {
    assert.deepEqual(withMarks(diffEndpoint(olds, { ...inputs, name: "ghe2" })), { changes: true, replaces: ["name"], deleteBeforeReplace: false, fields: { name: "updateReplace" } });
    assert.deepEqual(withMarks(diffEndpoint(olds, { ...inputs, forge: "gitea" })), { changes: true, replaces: ["forge"], deleteBeforeReplace: true, fields: { forge: "updateReplace" } });
    assert.deepEqual(withMarks(diffEndpoint(olds, { ...inputs, caCertBundle: "" })), { changes: true, replaces: ["caCertBundle"], deleteBeforeReplace: true, fields: { caCertBundle: "updateReplace" } });
  });

  it("deletes first on a rename that only changes case, or a forge change under such a name: GARM's endpoint key ignores case", () => {
    assert.deepEqual(withMarks(diffEndpoint(olds, { ...inputs, name: "GHE" })), { changes: true, replaces: ["name"], deleteBeforeReplace: true, fields: { name: "updateReplace" } });
    assert.deepEqual(withMarks(diffEndpoint(olds, { ...inputs, name: "Ghe", forge: "gitea" })), {
      changes: true,
      replaces: ["name", "forge"],
      deleteBeforeReplace: true,
      fields: { name: "updateReplace", forge: "updateReplace" },
    });
  });

  it("counts a changed adoptExisting as a change that GARM never sees", () => {
    assert.deepEqual(withMarks(diffEndpoint(olds, { ...inputs, adoptExisting: true })), { changes: true, replaces: [], deleteBeforeReplace: false, fields: { adoptExisting: "update" } });
  });

  it("marks the field GARM holds otherwise after a refresh, and nothing for a bundle only re-encoded beside it", () => {
    const refreshed = { ...olds, description: "set in GARM" };
    const reencoded = `${CA_CERT_1.replace(/\n/g, "\r\n")}`;
    assert.deepEqual(withMarks(diffEndpoint(refreshed, { ...inputs, caCertBundle: reencoded })).fields, { description: "update" });
  });
});
