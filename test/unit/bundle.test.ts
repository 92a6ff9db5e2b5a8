// The provider bundle the dynamic provider loads (sdk/nodejs/dynamic/forward.ts): built by `make build` from the same sources
// as dist/provider, so it must serve the same resource kinds and be no older than what tsc wrote.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";

const DIST = path.resolve(__dirname, "..", "..");
const BUNDLE = path.join(DIST, "bundle", "provider.js");

function newestJs(dir: string): { file: string; mtimeMs: number } {
  let newest = { file: "", mtimeMs: 0 };
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const { mtimeMs } = fs.statSync(file);
    if (mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

describe("the provider bundle", () => {
  it("exists and is no older than dist/provider (run `make build`, not tsc alone)", () => {
    assert.ok(fs.existsSync(BUNDLE), `${BUNDLE} is missing: run \`make build\``);
    const newest = newestJs(path.join(DIST, "provider"));
    assert.ok(fs.statSync(BUNDLE).mtimeMs >= newest.mtimeMs, `${BUNDLE} is older than ${newest.file}: run \`make build\``);
  });

  it("serves the same resource kinds, each with the seven provider methods, as dist/provider (package.json exports it as pulumi-garm/provider)", () => {
    const bundle = require(BUNDLE) as Record<string, Record<string, unknown>>;
    const modules = require(path.join(DIST, "provider", "index.js")) as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(bundle).sort(), Object.keys(modules).sort());
    for (const [kind, provider] of Object.entries(bundle)) {
      if (typeof provider !== "object" || provider === null || !("delete" in provider)) continue;
      for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"]) {
        assert.equal(typeof provider[method], "function", `${kind}.${method}`);
      }
    }
  });
});
