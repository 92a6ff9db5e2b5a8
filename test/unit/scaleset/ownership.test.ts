import { strict as assert } from "node:assert";
import type { ScaleSetView } from "../../../provider/garm/client";
import { type ScaleSetOutputs, describeHolder, isSameScaleSet } from "../../../provider/kinds/scaleset/state";

const ORG = "8a2f6b1e-0000-4000-8000-000000000001";
const stored = { liveName: "ci-small-42e04976", name: "ci-small", entityId: ORG, providerName: "fake" } as ScaleSetOutputs;
const view = (overrides: Partial<ScaleSetView> = {}) =>
  ({
    id: 4,
    name: "ci-small-42e04976",
    providerName: "fake",
    entity: { kind: "organization", id: ORG.toUpperCase(), name: "acme" },
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

  it("names the scale set that holds the id now", () => {
    assert.equal(describeHolder(view({ name: "team-b" })), "GARM id 4 now holds scale set team-b under organization acme");
  });
});
