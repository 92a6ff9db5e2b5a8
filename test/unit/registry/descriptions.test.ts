// The schema's resource descriptions come from the docs pages: one text, read in one place.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { openingParagraph, resourcePagePath } from "../../../provider/registry/descriptions";
import { KINDS } from "../../../provider/registry/kinds";
import { packageSchema } from "../../../provider/package-schema";

describe("resource descriptions", () => {
  const schema = packageSchema("0.0.0") as { resources: Record<string, { description: string }> };

  for (const row of KINDS) {
    it(`${row.sdkClass}: the schema says what the first paragraph of docs/resources/${row.sdkClass.toLowerCase()}.md says`, () => {
      const page = fs.readFileSync(resourcePagePath(row.sdkClass), "utf8");
      const first = page.split(/\n\s*\n/)[1]!.replace(/\s*\n\s*/g, " ").trim();
      assert.equal(schema.resources[`garm:index:${row.sdkClass}`]!.description, first);
    });
  }

  it("a page is read from the package's own docs/resources", () => {
    assert.equal(path.basename(path.dirname(resourcePagePath("GarmPool"))), "resources");
    assert.ok(fs.existsSync(resourcePagePath("GarmPool")));
  });

  it("refuses a page whose title is not the class, and a first paragraph with a link, naming the page", () => {
    assert.throws(() => openingParagraph("# Pool\n\nA pool.\n", "GarmPool", "docs/resources/garmpool.md"), /docs\/resources\/garmpool\.md must open with "# GarmPool"/);
    assert.throws(() => openingParagraph("# GarmPool\n\nSee [drains](../concepts/drains.md).\n", "GarmPool", "docs/resources/garmpool.md"), /garmpool\.md.s first paragraph holds a link/);
    assert.throws(() => openingParagraph("# GarmPool\n\n## Example\n", "GarmPool", "docs/resources/garmpool.md"), /garmpool\.md has no paragraph/);
    assert.equal(openingParagraph("# GarmPool\n\nA classic\npool.\n\nMore.\n", "GarmPool", "docs/resources/garmpool.md"), "A classic pool.");
  });
});
