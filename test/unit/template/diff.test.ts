// GarmTemplate's diff and update body: what changes in place, what replaces, and what the PUT carries.
import { strict as assert } from "node:assert";
import { diffTemplate, templateUpdateBody } from "../../../provider/kinds/template/diff";
import type { TemplateOutputs } from "../../../provider/kinds/template/state";
import { UNKNOWN } from "../../../provider/common/unknown";
import { marks } from "../../support/diff-marks";

const olds: TemplateOutputs = {
  name: "ci-linux",
  description: "",
  osType: "linux",
  forgeType: "github",
  body: "echo 1",
  adoptExisting: false,
  templateId: 7,
  owner: "admin",
  stateVersion: 1,
};

describe("GarmTemplate diff", () => {
  type Expected = { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean; marks: Record<string, string> };
  const cases: [string, Record<string, unknown>, Expected][] = [
    ["nothing changed", {}, { changes: false, replaces: [], deleteBeforeReplace: false, marks: {} }],
    ["the body, in place", { body: "echo 2" }, { changes: true, replaces: [], deleteBeforeReplace: false, marks: { body: "update" } }],
    ["the name, in place (UpdateTemplateParams.Name)", { name: "ci-linux-2" }, { changes: true, replaces: [], deleteBeforeReplace: false, marks: { name: "update" } }],
    ["the description, in place", { description: "x" }, { changes: true, replaces: [], deleteBeforeReplace: false, marks: { description: "update" } }],
    ["an unknown body, in place", { body: UNKNOWN }, { changes: true, replaces: [], deleteBeforeReplace: false, marks: { body: "update" } }],
    ["osType under the same name: replaced, old one first", { osType: "windows" }, { changes: true, replaces: ["osType"], deleteBeforeReplace: true, marks: { osType: "updateReplace" } }],
    [
      "forgeType with a new name: replaced, new one first",
      { forgeType: "gitea", name: "x" },
      { changes: true, replaces: ["forgeType"], deleteBeforeReplace: false, marks: { forgeType: "updateReplace", name: "update" } },
    ],
    ["a body read from a file now: the file is stored", { bodyFile: "/t/b.sh" }, { changes: true, replaces: [], deleteBeforeReplace: false, marks: { bodyFile: "add" } }],
  ];
  for (const [what, change, expected] of cases) {
    it(what, () => {
      const result = diffTemplate(olds, { ...olds, ...change });
      assert.equal(result.changes, expected.changes);
      assert.deepEqual(result.replaces, expected.replaces);
      assert.equal(result.deleteBeforeReplace, expected.deleteBeforeReplace);
      assert.deepEqual(marks(result), expected.marks);
    });
  }

  it("marks exactly the field GARM holds otherwise after a refresh", () => {
    assert.deepEqual(marks(diffTemplate({ ...olds, body: "echo edited in GARM" }, { ...olds })), { body: "update" });
  });

  it("the PUT carries only the changed fields, the body as base64", () => {
    assert.deepEqual(templateUpdateBody({ ...olds, body: "echo 2" }, ["body"]), { data: Buffer.from("echo 2").toString("base64") });
    assert.deepEqual(templateUpdateBody({ ...olds, description: "" }, ["description"]), { description: "" });
  });
});
