// retainOnDelete from a TypeScript class to a kind's create: carried as an input no kind declares, out of sight of
// check, diff, update and read, and answered by createOptions() within the create.
import { strict as assert } from "node:assert";
import type * as pulumi from "@pulumi/pulumi";
import { RETAIN_INPUT } from "../../provider/registry/kinds";
import { importedByCreate } from "../../provider/dynamic-import";
import { createOptions } from "../../provider/common/option-inputs";
import { resourceInputs } from "../../sdk/nodejs/resource-inputs";

describe("the retainOnDelete option carried to create", () => {
  it("is sent by the classes only when set", () => {
    assert.equal(resourceInputs("scaleSet", { name: "a" }, { retainOnDelete: true })[RETAIN_INPUT], true);
    assert.equal(RETAIN_INPUT in resourceInputs("scaleSet", { name: "a" }, { retainOnDelete: false }), false);
    assert.equal(RETAIN_INPUT in resourceInputs("scaleSet", { name: "a" }), false);
  });

  it("reaches create as createOptions(), never as a property; check keeps it for create, diff and update never see it", async () => {
    const seen: Record<string, unknown> = {};
    const kind: pulumi.dynamic.ResourceProvider = {
      check: async (_olds, news) => ({ inputs: { ...news } }),
      diff: async (_id, olds, news) => {
        seen.diff = [olds, news];
        return { changes: JSON.stringify(olds) !== JSON.stringify(news) };
      },
      create: async (props) => {
        seen.create = { props, retained: createOptions().retainOnDelete };
        return { id: "1", outs: props };
      },
      update: async (_id, olds, news) => {
        seen.update = [olds, news];
        return { outs: news };
      },
    };
    const entry = importedByCreate(kind, { instead: "n/a" }, () => undefined as never, "GarmScaleSet");
    const checked = await entry.check!({}, { name: "a", [RETAIN_INPUT]: true });
    assert.deepEqual(checked.inputs, { name: "a", [RETAIN_INPUT]: true });
    await entry.create(checked.inputs);
    assert.deepEqual(seen.create, { props: { name: "a" }, retained: true });
    await entry.create({ name: "b" });
    assert.deepEqual(seen.create, { props: { name: "b" }, retained: false });
    assert.equal(createOptions().retainOnDelete, false, "outside a create none is set");
    const planned = await entry.diff!("1", { name: "a" }, { name: "a", [RETAIN_INPUT]: true });
    assert.equal(planned.changes, false, "setting retainOnDelete plans no change");
    assert.deepEqual(seen.diff, [{ name: "a" }, { name: "a" }]);
    await entry.update!("1", { name: "a", [RETAIN_INPUT]: true }, { name: "c", [RETAIN_INPUT]: true });
    assert.deepEqual(seen.update, [{ name: "a" }, { name: "c" }]);
  });
});
