// The SDKs in sdk/ are generated from schema.json by `make sdks` (provider-plugin/gen-sdks.sh); a schema change (a new
// resource, or a reworded description) that is not followed by `make sdks` would ship SDKs that disagree with the
// plugin. This runs the same script into a scratch directory and compares the result file by file with sdk/, the Go
// module's go.mod and go.sum included; then it compiles the plugin's Node SDK as `make sdks` does.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/engine-for-garm";

/** Relative paths and contents of every file under `dir`, skipping the build outputs pip leaves beside the sources. */
async function tree(dir: string, skip: ReadonlySet<string>): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  async function walk(rel: string): Promise<void> {
    for (const entry of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (skip.has(child) || entry.name === "__pycache__") continue;
      if (entry.isDirectory()) await walk(child);
      else files.set(child, await fs.readFile(path.join(dir, child), "utf8"));
    }
  }
  await walk("");
  return files;
}

describe("sdk/python, sdk/go and sdk/nodejs-plugin are what `make sdks` generates from schema.json", function () {
  this.timeout(300_000);
  let scratch: string;

  before(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-sdks-"));
    execFileSync(path.join(REPO_ROOT, "provider-plugin", "gen-sdks.sh"), [scratch], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"] });
  });
  after(() => fs.rm(scratch, { recursive: true, force: true }));

  for (const language of ["python", "go", "nodejs-plugin"] as const) {
    it(`sdk/${language} matches a fresh generation (run \`make sdks\` when this fails)`, async () => {
      const skip = new Set(language === "python" ? ["build", "pulumi_garm.egg-info"] : language === "nodejs-plugin" ? ["bin", "node_modules"] : []);
      const want = await tree(path.join(scratch, language), skip);
      const have = await tree(path.join(REPO_ROOT, "sdk", language), skip);
      assert.ok(want.size > 0, `the generator wrote nothing for ${language}`);
      const stale = [...want].filter(([file, text]) => have.get(file) !== text).map(([file]) => file);
      const extra = [...have.keys()].filter((file) => !want.has(file));
      assert.deepEqual({ stale, extra }, { stale: [], extra: [] });
    });
  }

  it("sdk/nodejs-plugin compiles against this checkout's @pulumi/pulumi", async () => {
    const out = path.join(scratch, "nodejs-plugin-out");
    execFileSync("npx", ["--no-install", "tsc", "-p", path.join(REPO_ROOT, "sdk", "nodejs-plugin", "tsconfig.json"), "--outDir", out], { cwd: REPO_ROOT });
    const index = await fs.readFile(path.join(out, "index.d.ts"), "utf8");
    assert.match(index, /GarmScaleSet/);
    const pkg = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "sdk", "nodejs-plugin", "package.json"), "utf8")) as { name: string; pulumi: { server?: string } };
    assert.equal(pkg.name, "@pulumi-garm/garm");
    assert.equal(pkg.pulumi.server, "github://api.github.com/pulumi-garm/pulumi-garm");
  });
});
