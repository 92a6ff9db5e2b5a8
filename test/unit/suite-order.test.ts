// The order `make test` gives its parallel workers the test files (test/support/suite-order.ts).
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { SLOWEST_FIRST, compiled, suiteOrder } from "../support/suite-order";

const ROOT = path.resolve(__dirname, "..", "..", "..");

describe("make test's file order", () => {
  it("starts the measured slowest files first, longest first, then the rest by path", () => {
    const files = ["dist/test/unit/a.test.js", compiled(SLOWEST_FIRST[2]!), "dist/test/e2e/b.test.js", compiled(SLOWEST_FIRST[0]!)];
    assert.deepEqual(suiteOrder(files), [compiled(SLOWEST_FIRST[0]!), compiled(SLOWEST_FIRST[2]!), "dist/test/e2e/b.test.js", "dist/test/unit/a.test.js"]);
  });

  it("names only test files that exist, once each (a renamed file would silently lose its early start)", () => {
    for (const f of SLOWEST_FIRST) assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} does not exist`);
    assert.equal(new Set(SLOWEST_FIRST).size, SLOWEST_FIRST.length);
  });
});
