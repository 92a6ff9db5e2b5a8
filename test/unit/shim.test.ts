// The provider the SDK classes hand to Pulumi: a module reference when the package is installed under node_modules (a
// short line in every resource's state), the forwarding object anywhere else. The installed case is built here as a
// copy of the package's files under <tmp>/node_modules/pulumi-garm, as npm installs it.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { garmProviderProvider, namedByPackage, providerFor, scaleSetProvider } from "../../sdk/nodejs/shim";

const REPO = path.resolve(__dirname, "..", "..", "..");
const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"];

const serialized = async (provider: pulumi.dynamic.ResourceProvider) =>
  (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;

describe("the provider the SDK classes serialize", () => {
  let installed: string;
  before(() => {
    installed = fs.mkdtempSync(path.join(os.tmpdir(), "shim-test-"));
    const pkg = path.join(installed, "node_modules", "pulumi-garm");
    fs.mkdirSync(pkg, { recursive: true });
    fs.copyFileSync(path.join(REPO, "package.json"), path.join(pkg, "package.json"));
    for (const dir of ["dist/sdk", "dist/provider", "dist/bundle"]) fs.cpSync(path.join(REPO, dir), path.join(pkg, dir), { recursive: true });
    // Its dependencies, as npm would place them beside it.
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const dep of [...Object.keys(dependencies), "@pulumi"]) {
      const link = path.join(installed, "node_modules", dep);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      if (!fs.existsSync(link)) fs.symlinkSync(path.join(REPO, "node_modules", dep), link);
    }
  });
  after(() => fs.rmSync(installed, { recursive: true, force: true }));

  it("is named by package only where the first node_modules segment is followed by pulumi-garm", () => {
    const file = (p: string) => path.join(...p.split("/"));
    assert.ok(namedByPackage(file("/p/node_modules/pulumi-garm/dist/sdk/nodejs/dynamic/scaleset.js"), "/p"));
    assert.ok(namedByPackage(file("/repo/node_modules/pulumi-garm/dist/sdk/nodejs/dynamic/scaleset.js"), "/repo/packages/infra"), "hoisted above the project");
    assert.ok(!namedByPackage(file("/p/node_modules/.pnpm/pulumi-garm@0.1.0/node_modules/pulumi-garm/dist/sdk/nodejs/dynamic/scaleset.js"), "/p"), "pnpm's store");
    assert.ok(!namedByPackage(file("/work/pulumi-garm/dist/sdk/nodejs/dynamic/scaleset.js"), "/work/pulumi-garm"), "this repository");
  });

  it("in this repository is the forwarding object, serialized by value as before", () => {
    assert.equal(providerFor("scaleSet"), scaleSetProvider);
    assert.equal(providerFor("garmProvider"), garmProviderProvider);
  });

  for (const [kind, file] of [["scaleSet", "scaleset"], ["garmProvider", "garm-provider"]] as const) {
    it(`installed under node_modules, for ${kind} is a require of an exported path, a tenth of the forwarding object's size`, async () => {
      const shim = require(path.join(installed, "node_modules", "pulumi-garm", "dist", "sdk", "nodejs", "shim.js")) as typeof import("../../sdk/nodejs/shim");
      const provider = shim.providerFor(kind);
      assert.notEqual(provider, kind === "scaleSet" ? scaleSetProvider : garmProviderProvider);
      const text = await serialized(provider);
      const byValue = await serialized(kind === "scaleSet" ? scaleSetProvider : garmProviderProvider);
      const required = /require\("(pulumi-garm\/[^"]+)"\)/.exec(text)?.[1];
      assert.ok(required, text);
      assert.ok(text.length * 5 < byValue.length, `${text.length} bytes against ${byValue.length}`);
      assert.ok(!text.includes(installed), "no path of this machine in the state");
      // What the dynamic-provider host does with it: evaluate from the project directory and call handler().
      const module = { exports: {} as { handler?: () => Record<string, unknown> } };
      // Resolved as from a file of the project: a require from this repository would find the repository itself.
      const fromProject = createRequire(path.join(installed, "index.js"));
      new Function("exports", "require", "module", text)(module.exports, fromProject, module);
      const hosted = module.exports.handler!();
      assert.deepEqual(METHODS.filter((m) => typeof hosted[m] !== "function"), []);
      assert.equal(fromProject(required), hosted, `${required} is the module the program handed over`);
      assert.equal(fromProject.resolve(required), path.join(installed, "node_modules", "pulumi-garm", "dist", "sdk", "nodejs", "dynamic", `${file}.js`));
      // State written before the SDK moved to sdk/nodejs names the old path; the package still exports it.
      assert.equal(fromProject(`pulumi-garm/dist/sdk/dynamic/${file}.js`), hosted, "the path older state names");
    });
  }

  it("forwards each method to the implementation, loaded only at the first call", async () => {
    const dynamic = createRequire(path.join(installed, "index.js"))("pulumi-garm/dist/sdk/dynamic/scaleset.js") as Record<string, (...a: unknown[]) => unknown>;
    const implPath = path.join(installed, "node_modules", "pulumi-garm", "dist", "bundle", "provider.js");
    assert.ok(!(implPath in require.cache), "naming the module does not load the implementation");
    const checked = (await dynamic.check({}, { name: "ci" })) as { failures?: { property: string }[] };
    assert.ok(implPath in require.cache);
    assert.ok(checked.failures?.some((f) => f.property === "providerName"), JSON.stringify(checked));
  });
});
