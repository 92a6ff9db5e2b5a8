// What a scale set's name says about who made it (issue 13 item 6).
import { strict as assert } from "node:assert";
import { liveName } from "../../../provider/runners/naming";
import { makerOf } from "../../../provider/kinds/scaleset/provenance";

describe("who made a scale set", () => {
  it("is pulumi-garm when the name's hash matches its labels and provider, whatever their case and order", () => {
    const name = liveName("ci", ["linux", "x64"], "fake", "hashed");
    assert.equal(makerOf({ name, labels: ["X64", "linux"], providerName: "fake" }), "pulumi-garm");
  });

  it("is unknown for an exact name, or a hash that does not match the labels or provider", () => {
    const name = liveName("ci", ["linux", "x64"], "fake", "hashed");
    assert.equal(makerOf({ name: "ci", labels: ["linux", "x64"], providerName: "fake" }), "unknown");
    assert.equal(makerOf({ name, labels: ["linux"], providerName: "fake" }), "unknown");
    assert.equal(makerOf({ name, labels: ["linux", "x64"], providerName: "lxd" }), "unknown");
    assert.equal(makerOf({ name: "ci-deadbeef", labels: ["linux"], providerName: "fake" }), "unknown");
  });
});
