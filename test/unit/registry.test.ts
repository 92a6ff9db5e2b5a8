// The registry of kinds is the one list both front doors, the package schema and the SDK read: these checks keep its
// light half (kinds.ts, which the SDK loads in the user's program) true to the implementations and to schema.json, and
// keep the layers apart: no kind imports the registry, and the SDK reaches provider/ only through kinds.ts.
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { packageSchema } from "../../provider/package-schema";
import { IMPLEMENTATIONS } from "../../provider/registry/implementations";
import { KINDS, tokenOf } from "../../provider/registry/kinds";

const ROOT = join(__dirname, "..", "..", "..");
// As the serialized shim loads it: a CommonJS module whose exports are the providers by key.
const dynamicProvider = require("../../provider") as Record<string, { delete?: unknown }>;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}
const importsOf = (file: string) => [...readFileSync(file, "utf8").matchAll(/from\s+"([^"]+)"|require\("([^"]+)"\)/g)].map((m) => m[1] ?? m[2]);

describe("the registry of kinds", () => {
  const resources = packageSchema("0.0.0").resources as Record<string, { properties: Record<string, { secret?: boolean }> }>;

  it("lists for each kind exactly the properties its schema resource has, so the SDK's placeholders cannot drift", () => {
    for (const row of KINDS) {
      const spec = resources[tokenOf(row)];
      assert.ok(spec, `schema.json has no ${tokenOf(row)}`);
      assert.deepEqual([...row.outputs].sort(), Object.keys(spec.properties).sort(), `${row.key}: kinds.ts outputs against its input schema and computed outputs`);
    }
  });

  it("marks each kind's secrets secret in the schema, and every secret is one of its outputs", () => {
    for (const row of KINDS) {
      const spec = resources[tokenOf(row)];
      for (const name of row.secrets) assert.equal(spec.properties[name]?.secret, true, `${row.key}.${name}`);
      const marked = Object.entries(spec.properties).filter(([, p]) => p.secret).map(([k]) => k);
      assert.deepEqual(marked.sort(), [...row.secrets].sort(), `${row.key}: secret in the schema`);
    }
  });

  it("has an importer exactly for the kinds it calls importable", () => {
    for (const row of KINDS) assert.equal(IMPLEMENTATIONS[row.key].importer !== undefined, row.importable === true, row.key);
  });

  it("gives every kind its own token, and no legacy token names another kind's", () => {
    const tokens = KINDS.flatMap((row) => [tokenOf(row), ...row.legacyTokens]);
    assert.equal(new Set(tokens).size, tokens.length, tokens.join(", "));
    assert.deepEqual(KINDS.map((row) => tokenOf(row)), KINDS.map((row) => `garm:index:${row.sdkClass}`));
  });

  it("is what pulumi-garm/provider exports, under the keys state names", () => {
    assert.deepEqual(Object.keys(dynamicProvider).sort(), KINDS.map((row) => row.key).sort());
    for (const key of ["scaleSet", "garmProvider", "endpoint", "credentials", "organization", "repository", "enterprise", "controller", "template", "pool"]) {
      assert.equal(typeof dynamicProvider[key]?.delete, "function", key);
    }
  });

  it("sits above the kinds: no file under provider/kinds imports provider/registry", () => {
    const offenders = sources("provider/kinds").filter((file) => importsOf(file).some((spec) => /(^|\/)registry(\/|$)/.test(spec)));
    assert.deepEqual(offenders.map((f) => relative(ROOT, f)), []);
  });

  it("keeps the SDK off the implementation: sdk/nodejs reaches provider/ only through the registry's data, which imports nothing", () => {
    const reached = sources("sdk/nodejs").flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith(".") && relative(ROOT, join(file, "..", spec)).startsWith("provider"))
        .map((spec) => relative(ROOT, join(file, "..", spec))),
    );
    assert.deepEqual([...new Set(reached)], ["provider/registry/kinds"]);
    assert.deepEqual(importsOf(join(ROOT, "provider", "registry", "kinds.ts")), []);
  });
});
