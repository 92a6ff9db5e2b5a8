import { strict as assert } from "node:assert";
import type { ScaleSetView } from "../../../provider/garm/client";
import { type ScaleSetOutputs, describeHolder, isSameScaleSet } from "../../../provider/kinds/scaleset/state";

const ORG = "8a2f6b1e-0000-4000-8000-000000000001";
const stored = { liveName: "ci-small-42e04976", name: "ci-small", entityId: ORG, providerName: "fake", labels: ["linux", "x64"] } as ScaleSetOutputs;
const view = (overrides: Partial<ScaleSetView> = {}) =>
  ({
    id: 4,
    name: "ci-small-42e04976",
    providerName: "fake",
    entity: { kind: "organization", id: ORG.toUpperCase(), name: "acme" },
    labels: ["X64", "linux"],
    ...overrides,
  }) as ScaleSetView;

describe("whether a GARM id still names this scale set", () => {
  it("matches on live name, entity (ids in any case) and provider", () => {
    assert.equal(isSameScaleSet(stored, view()), true);
  });

  for (const [what, overrides] of [
    ["another name", { name: "team-b" }],
    ["another entity", { entity: { kind: "repository", id: "8a2f6b1e-0000-4000-8000-000000000002", name: "acme/app" } }],
    ["no entity", { entity: undefined }],
    ["another provider", { providerName: "openstack" }],
  ] as const) {
    it(`does not match a scale set with ${what}`, () => {
      assert.equal(isSameScaleSet(stored, view(overrides as Partial<ScaleSetView>)), false);
    });
  }

  it("takes a scale set renamed in GARM as this one only in the GARM the outputs record, with its entity, provider and labels (issue 34 item 8)", () => {
    const renamed = view({ name: "renamed-by-hand" });
    assert.equal(isSameScaleSet(stored, renamed, true), true);
    assert.equal(isSameScaleSet(stored, renamed, false), false, "another GARM, or one not known, keeps the name rule");
    assert.equal(isSameScaleSet(stored, view({ name: "renamed-by-hand", labels: ["linux", "gpu"] }), true), false);
    assert.equal(isSameScaleSet(stored, view({ name: "renamed-by-hand", providerName: "openstack" }), true), false);
    assert.equal(isSameScaleSet(stored, view({ name: "renamed-by-hand", entity: undefined }), true), false);
  });

  it("names the scale set that holds the id now", () => {
    assert.equal(describeHolder(view({ name: "team-b" })), "GARM id 4 now holds scale set team-b under organization acme");
  });
});
