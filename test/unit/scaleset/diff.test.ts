import { strict as assert } from "node:assert";
import { diffScaleSet, updateBody, changedFields } from "../../../provider/kinds/scaleset/diff";
import { withDefaults } from "../../../provider/kinds/scaleset/inputs";
import { liveName } from "../../../provider/runners/naming";
import type { ScaleSetOutputs } from "../../../provider/kinds/scaleset/state";
import { UNKNOWN } from "../../../provider/common/unknown";
import { marks, withMarks } from "../../support/diff-marks";

const inputs = withDefaults({
  name: "ci-small",
  organization: "acme",
  providerName: "fake",
  image: "ubuntu",
  flavor: "small",
  labels: ["Linux", "x64"],
  maxRunners: 4,
  minIdleRunners: 1,
});

/** Outputs as toOutputs builds them from GARM's normalised read. */
const olds: ScaleSetOutputs = {
  ...inputs,
  extraSpecs: undefined,
  stateVersion: 1,
  scaleSetId: 12,
  liveName: liveName("ci-small", ["linux", "x64"], "fake", "hashed"),
  labels: ["linux", "x64"],
  githubScaleSetId: 5,
  entityKind: "organization",
  entityId: "8a2f6b1e-0000-4000-8000-000000000001",
  entityName: "acme",
  endpointName: "github.com",
  runnerPrefix: "garm",
  runnerGroup: "Default",
  runnerBootstrapTimeout: 20,
  enableShell: false,
};

const news = (overrides: Record<string, unknown> = {}) => ({ ...inputs, __provider: "shim", ...overrides });

describe("GarmScaleSet diff", () => {
  it("reports no change when the inputs match GARM's normalised view, labels compared ignoring case and order", () => {
    assert.deepEqual(diffScaleSet(olds, news({ labels: ["X64", "linux"] })), { changes: false, replaces: [], deleteBeforeReplace: false, fields: {} });
  });

  it("ignores optional inputs left to GARM's defaults", () => {
    assert.equal(diffScaleSet(olds, news({ runnerPrefix: undefined, runnerGroup: undefined })).changes, false);
  });

  for (const [field, value] of [
    ["labels", ["linux", "x64", "gpu"]],
    ["name", "ci-big"],
    ["providerName", "openstack"],
    ["naming", "exact"],
  ] as const) {
    it(`replaces on ${field}, new generation first`, () => {
      const d = diffScaleSet(olds, news({ [field]: value }));
      assert.deepEqual(d.replaces, [field]);
      assert.equal(d.deleteBeforeReplace, false);
      assert.deepEqual(marks(d), { [field]: "updateReplace" }, "only the field that replaces is marked");
    });
  }

  it("renames back in place a scale set a refresh read renamed in GARM, marking name as an update (issue 34 item 8)", () => {
    const d = diffScaleSet({ ...olds, liveName: "renamed-by-hand" }, news());
    assert.deepEqual(d.replaces, []);
    assert.equal(d.changes, true);
    assert.deepEqual(marks(d), { name: "update" });
  });

  it("replaces on a different entity and keeps the same one named by id or in other case", () => {
    assert.ok(diffScaleSet(olds, news({ organization: "other" })).replaces?.includes("organization"));
    assert.deepEqual(diffScaleSet(olds, news({ organization: "ACME" })).replaces, []);
    assert.deepEqual(diffScaleSet(olds, news({ organization: undefined, entityId: olds.entityId })).replaces, []);
    assert.deepEqual(diffScaleSet(olds, news({ endpoint: "github.com" })).replaces, []);
    assert.ok((diffScaleSet(olds, news({ endpoint: "ghes.example" })).replaces ?? []).length > 0);
  });

  it("deletes before replacing only when the new live name would collide (naming exact)", () => {
    const exact = { ...olds, naming: "exact" as const, liveName: "ci-small" };
    const d = diffScaleSet(exact, news({ naming: "exact", labels: ["linux", "x64", "gpu"] }));
    assert.deepEqual(d.replaces, ["labels"]);
    assert.equal(d.deleteBeforeReplace, true);
    const otherOrg = diffScaleSet(exact, news({ naming: "exact", organization: "other" }));
    assert.equal(otherOrg.deleteBeforeReplace, false, "another entity has its own name space");
  });

  for (const [field, value, key] of [
    ["maxRunners", 8, "max_runners"],
    ["minIdleRunners", 0, "min_idle_runners"],
    ["enabled", false, "enabled"],
    ["image", "ubuntu-26.04", "image"],
    ["flavor", "large", "flavor"],
    ["runnerGroup", "ci", "runner_group"],
    ["runnerPrefix", "acme", "runner_prefix"],
    ["runnerBootstrapTimeout", 30, "runner_bootstrap_timeout"],
    ["enableShell", true, "enable_shell"],
    ["templateId", 3, "template_id"],
  ] as const) {
    it(`updates ${field} in place, sending only ${key}`, () => {
      const d = diffScaleSet(olds, news({ [field]: value }));
      assert.deepEqual(withMarks(d), { changes: true, replaces: [], deleteBeforeReplace: false, fields: { [field]: field === "templateId" ? "add" : "update" } });
      const next = { ...inputs, [field]: value };
      assert.deepEqual(updateBody(next, changedFields(olds, next)), { [key]: value });
    });
  }

  it("compares extra specs as parsed JSON and sends them as sorted compact JSON (§3.7)", () => {
    const held = { ...olds, extraSpecs: { b: 1, a: { d: 2, c: 3 } } };
    assert.equal(diffScaleSet(held, news({ extraSpecs: '{"a":{"c":3,"d":2},"b":1}' })).changes, false);
    const next = { ...inputs, extraSpecs: { z: 1, a: 2 } };
    const body = updateBody(next, changedFields(held, next));
    assert.equal(JSON.stringify(body.extra_specs), '{"a":2,"z":1}');
  });

  it("stores a new drain timeout without calling GARM", () => {
    const next = news({ drain: { timeoutSeconds: 60, pollSeconds: 5, jobStaleAfterHours: 120 } });
    assert.equal(diffScaleSet(olds, next).changes, true);
    assert.deepEqual(marks(diffScaleSet(olds, next)), { drain: "update" }, "stored, so marked, though GARM gets nothing");
    assert.deepEqual(changedFields(olds, next), []);
  });

  it("treats unknown values as changes, and unknown replace fields as replacements", () => {
    assert.deepEqual(diffScaleSet(olds, news({ providerName: UNKNOWN })).replaces, ["providerName"]);
    assert.equal(diffScaleSet(olds, news({ maxRunners: UNKNOWN })).changes, true);
  });

  it("marks exactly the field GARM holds otherwise after a refresh: the outputs, not the old inputs, are compared", () => {
    // A refresh read maxRunners 9 from GARM; the program (and so the old inputs) still says 4.
    const refreshed = { ...olds, maxRunners: 9 };
    const d = diffScaleSet(refreshed, news());
    assert.deepEqual(withMarks(d), { changes: true, replaces: [], deleteBeforeReplace: false, fields: { maxRunners: "update" } });
    assert.deepEqual(d.fields.maxRunners, { kind: "update", replaces: false, oldFromInputs: false }, "the old value shown is GARM's, from the outputs");
  });

  it("marks only the real change when the labels are also reordered and recased", () => {
    assert.deepEqual(marks(diffScaleSet(olds, news({ labels: ["X64", "LINUX"], minIdleRunners: 2 }))), { minIdleRunners: "update" });
  });

  it("marks a label change as the replacement, and an updatable field that differs too as an update", () => {
    const d = diffScaleSet(olds, news({ labels: ["linux", "gpu"], maxRunners: 6 }));
    assert.deepEqual(marks(d), { labels: "updateReplace", maxRunners: "update" });
    assert.deepEqual(d.replaces, ["labels"]);
  });

  it("marks a move to another entity as the inputs that name it: the old one deleted, the new one added", () => {
    const stored = { ...olds, organization: "acme" };
    assert.deepEqual(marks(diffScaleSet(stored, news({ organization: undefined, repository: "acme/app" }))), {
      organization: "deleteReplace",
      repository: "addReplace",
    });
    assert.deepEqual(marks(diffScaleSet(stored, news({ organization: "ACME" }))), {}, "the same organization in other case is no change");
  });

  it("marks nothing for extra specs equal as JSON, and an unknown as an update", () => {
    const held = { ...olds, extraSpecs: { a: 1 } };
    assert.deepEqual(marks(diffScaleSet(held, news({ extraSpecs: '{"a":1}' }))), {});
    assert.deepEqual(marks(diffScaleSet(olds, news({ maxRunners: UNKNOWN }))), { maxRunners: "update" });
  });

  it("never sends state or extended_state", () => {
    const next = { ...inputs, maxRunners: 9, enabled: false };
    const body = updateBody(next, changedFields(olds, next)) as Record<string, unknown>;
    assert.ok(!("state" in body) && !("extended_state" in body));
  });

  for (const [field, held, key, sent] of [
    ["runnerPrefix", "team", "runner_prefix", "garm"],
    ["runnerGroup", "ci", "runner_group", "Default"],
    ["runnerBootstrapTimeout", 45, "runner_bootstrap_timeout", 20],
    ["enableShell", true, "enable_shell", false],
    ["extraSpecs", { disk: 40 }, "extra_specs", {}],
  ] as const) {
    it(`removing ${field} plans an update that sends its documented default (${JSON.stringify(sent)})`, () => {
      const before = { ...olds, [field]: held };
      const d = diffScaleSet(before, news({ [field]: undefined }));
      assert.deepEqual(withMarks(d), { changes: true, replaces: [], deleteBeforeReplace: false, fields: { [field]: "delete" } });
      assert.deepEqual(updateBody(inputs, changedFields(before, inputs)), { [key]: sent });
    });
  }

  it("counts a runner group GARM holds as default, in any case, as the omitted runnerGroup", () => {
    assert.equal(diffScaleSet({ ...olds, runnerGroup: "default" }, news()).changes, false);
  });

  it("an osType change without templateId also sends the system template of the new OS (§4.1, §4.4)", () => {
    const linux = { ...olds, templateId: 2, templateName: "github_linux" };
    const next = { ...inputs, osType: "windows" as const };
    assert.deepEqual(changedFields(linux, next), ["osType", "templateId"]);
    assert.deepEqual(updateBody(next, changedFields(linux, next), 1), { os_type: "windows", template_id: 1 });
  });

  it("an omitted templateId means the system template of osType: a held other template is a change", () => {
    const system = { ...olds, templateId: 2, templateName: "github_linux" };
    assert.equal(diffScaleSet(system, news()).changes, false);
    const custom = { ...system, templateId: 7, templateName: "my_linux" };
    assert.deepEqual(changedFields(custom, inputs), ["templateId"]);
    const unnamed = { ...system, templateName: undefined };
    assert.equal(diffScaleSet(unnamed, news()).changes, false, "state written before template names were kept");
  });

  it("sends a pinned templateId again with a new osType, so GARM checks they match", () => {
    const pinned = { ...olds, templateId: 7, templateName: "my_linux" };
    const next = { ...inputs, osType: "windows" as const, templateId: 7 };
    assert.deepEqual(updateBody(next, changedFields(pinned, next)), { os_type: "windows", template_id: 7 });
  });

  it("needs the system template id to send an omitted templateId", () => {
    const custom = { ...olds, templateId: 7, templateName: "my_linux" };
    assert.throws(() => updateBody(inputs, changedFields(custom, inputs)), /system template/);
  });
});
