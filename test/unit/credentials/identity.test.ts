// What identifies GarmCredentials (issue 23 item 3): GARM numbers GitHub and Gitea credentials separately, so an id
// names credentials only with its forge, and the holder of an id must have this resource's name and endpoint.
import { strict as assert } from "node:assert";
import type { CredentialsView } from "../../../provider/garm/client";
import { describeCredentialsHolder, isSameCredentials, parseCredentialsId } from "../../../provider/kinds/credentials/identity";

const view = (over: Partial<CredentialsView> = {}): CredentialsView => ({
  id: 1,
  name: "ci-bot",
  description: "",
  authType: "pat",
  forge: "github",
  endpoint: "github.com",
  repositories: [],
  organizations: [],
  enterprises: [],
  ...over,
});
const stored = { credentialsId: 1, forge: "github" as const, name: "ci-bot", endpoint: "github.com" };

describe("GarmCredentials identity", () => {
  it("takes the holder of its id only with the same forge, name (ignoring case, as GARM does) and endpoint", () => {
    assert.equal(isSameCredentials(stored, view(), "github"), true);
    assert.equal(isSameCredentials(stored, view({ name: "CI-Bot" }), "github"), true);
    assert.equal(isSameCredentials(stored, view({ name: "team-b" }), "github"), false);
    assert.equal(isSameCredentials(stored, view({ endpoint: "ghe" }), "github"), false);
    // Gitea credentials 1 beside GitHub credentials 1: same id and name, another table.
    assert.equal(isSameCredentials(stored, view({ forge: "gitea" }), "gitea"), false);
    assert.equal(isSameCredentials({ ...stored, forge: "gitea" }, view({ forge: "gitea" }), "gitea"), true);
  });

  it("an import id names the forge; a bare number is refused, saying why", () => {
    assert.deepEqual(parseCredentialsId("gitea/3"), { forge: "gitea", credentialsId: 3 });
    assert.deepEqual(parseCredentialsId("github/12"), { forge: "github", credentialsId: 12 });
    assert.throws(() => parseCredentialsId("3"), /GARM numbers GitHub and Gitea credentials separately.*github\/3 or gitea\/3/);
    assert.throws(() => parseCredentialsId("gitlab/3"), /does not say which forge/);
  });

  it("names the holder with its forge", () => {
    assert.equal(describeCredentialsHolder("gitea", view({ forge: "gitea", name: "team-b" })), "GARM's gitea credentials id 1 now holds team-b on endpoint github.com");
  });
});
