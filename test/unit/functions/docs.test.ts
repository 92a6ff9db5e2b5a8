// Each function has its page under docs/functions, linked from the functions index, naming every argument and result
// property the schema declares, so a page cannot fall behind its function.
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { FUNCTIONS } from "../../../provider/functions";

const ROOT = path.resolve(__dirname, "..", "..", "..", "..");
const read = (rel: string) => readFileSync(path.join(ROOT, rel), "utf8");

function propertiesOf(schema: z.ZodType): string[] {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, { items?: { properties?: Record<string, unknown> } }> };
  return Object.entries(json.properties ?? {}).flatMap(([k, v]) => [k, ...Object.keys(v.items?.properties ?? {})]);
}

describe("docs of the functions", () => {
  const index = read("docs/functions/_index.md");
  for (const fn of Object.values(FUNCTIONS)) {
    it(`${fn.name}: a page, linked from docs/functions/_index.md, naming every argument and result property`, () => {
      const page = read(`docs/functions/${fn.name.toLowerCase()}.md`);
      assert.ok(index.includes(`(${fn.name.toLowerCase()}.md)`), `docs/functions/_index.md links ${fn.name}`);
      const missing = [...propertiesOf(fn.args), ...propertiesOf(fn.result)].filter((p) => !page.includes(`\`${p}\``));
      assert.deepEqual(missing, [], `docs/functions/${fn.name.toLowerCase()}.md does not name these`);
    });
  }
});
