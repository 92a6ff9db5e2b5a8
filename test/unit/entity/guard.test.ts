// The delete guard's message (provider/kinds/entity/guard.ts): GARM refuses an entity with pools or scale sets
// (runner/organizations.go L138-159) naming only pool ids; the guard names every dependent and the way out.
import { strict as assert } from "node:assert";
import { refusal } from "../../../provider/kinds/entity/guard";

describe("entity delete guard", () => {
  it("says nothing without dependents", () => {
    assert.equal(refusal("GarmOrganization acme", { scaleSets: [], pools: [] }), undefined);
  });

  it("names each scale set and pool on one line with what to do", () => {
    const line = refusal("GarmOrganization acme (id x)", {
      scaleSets: [{ id: "3", name: "ci-small-1a2b3c4d", providerName: "fake" }],
      pools: [{ id: "7f3c0e2a", name: "", providerName: "lxd" }],
    });
    assert.ok(line);
    assert.ok(!line.includes("\n"));
    assert.match(line, /still has scale set "ci-small-1a2b3c4d" \(id 3, provider fake\), pool 7f3c0e2a \(provider lxd\); it was not deleted/);
    assert.match(line, /never deletes them for you/);
  });
});
