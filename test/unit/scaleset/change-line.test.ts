// The diff line's pieces (issue 13 items 4 and 5): fields old → new, labels as a set, extra specs without values.
import { strict as assert } from "node:assert";
import { labelChange, replaceReasons, updateChanges } from "../../../provider/kinds/scaleset/change-line";
import type { ScaleSetOutputs } from "../../../provider/kinds/scaleset/state";
import { UNKNOWN } from "../../../provider/common/unknown";

const olds = {
  name: "ci",
  liveName: "ci-12345678",
  providerName: "fake",
  labels: ["linux", "small", "x64"],
  maxRunners: 3,
  enabled: false,
  extraSpecs: { disk: 50, token: "s3cret-old" },
  entityKind: "organization",
  entityName: "acme",
} as unknown as ScaleSetOutputs;

describe("the diff line", () => {
  it("names updated fields old → new, and an unknown value as known at up", () => {
    assert.deepEqual(updateChanges(olds, { maxRunners: 10, enabled: true }, ["enabled", "maxRunners"]), ["enabled false → true", "maxRunners 3 → 10"]);
    assert.deepEqual(updateChanges(olds, { maxRunners: UNKNOWN }, ["maxRunners"]), ["maxRunners 3 → (known at up)"]);
  });

  it("names changed extra-spec keys, never their values", () => {
    const [line] = updateChanges(olds, { extraSpecs: { disk: 50, token: "s3cret-new", zone: "b" } }, ["extraSpecs"]);
    assert.equal(line, "extraSpecs keys token, zone changed (values not shown)");
    assert.doesNotMatch(line, /s3cret/);
  });

  it("compares labels as a set, ignoring case, order and spaces", () => {
    assert.equal(labelChange(olds.labels, ["X64", " linux", "gpu"]), "+gpu -small");
    assert.equal(labelChange(olds.labels, ["x64", "small", "Linux"]), undefined);
    assert.deepEqual(replaceReasons(olds, { labels: ["linux", "gpu", "x64"], providerName: "lxd" }, ["providerName", "labels"]), [
      { field: "providerName", why: "fake → lxd" },
      { field: "labels", why: "+gpu -small" },
    ]);
  });
});
