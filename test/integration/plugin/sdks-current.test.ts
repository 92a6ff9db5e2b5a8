// The Python and Go SDKs in sdk/ are generated from schema.json by `make sdks`; a schema change (a new resource, or a
// reworded description) that is not followed by `make sdks` would ship SDKs that disagree with the plugin. This
// regenerates both into a temporary directory with the same generator and compares them file by file with sdk/.
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

describe("sdk/python and sdk/go are what `make sdks` generates from schema.json", function () {
  this.timeout(120_000);
  let scratch: string;
  let sdkgen: string;

  before(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-sdks-"));
    const bin = execFileSync(path.join(REPO_ROOT, "scripts", "tools.sh"), ["sdkgen"], { encoding: "utf8" }).trim().split("\n").pop() ?? "";
    sdkgen = path.join(bin, "pulumi-garm-sdkgen");
  });
  after(() => fs.rm(scratch, { recursive: true, force: true }));

  for (const language of ["python", "go"] as const) {
    it(`sdk/${language} matches a fresh generation (run \`make sdks\` when this fails)`, async () => {
      const fresh = path.join(scratch, language);
      execFileSync(sdkgen, [path.join(REPO_ROOT, "schema.json"), language, fresh]);
      const skip = new Set(language === "python" ? ["build", "pulumi_garm.egg-info"] : []);
      const want = await tree(fresh, skip);
      const have = await tree(path.join(REPO_ROOT, "sdk", language), skip);
      assert.ok(want.size > 0, `the generator wrote nothing for ${language}`);
      const stale = [...want].filter(([file, text]) => have.get(file) !== text).map(([file]) => file);
      const extra = [...have.keys()].filter((file) => !want.has(file));
      assert.deepEqual({ stale, extra }, { stale: [], extra: [] });
    });
  }
});
