// The Python SDK as a package: sdk/python's pyproject.toml (generated, `make sdks`) builds the pulumi_garm wheel offline
// with the virtualenv's setuptools, as gen-sdks.sh does, and the wheel carries its name, version, requirement on the
// pulumi package, typing marker and pulumi-plugin.json (the plugin's name, version and download URL), and imports.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { PLUGIN_DOWNLOAD_URL } from "../../../provider-plugin/schema";
import { PLUGIN_VERSION, PYTHON_VENV_BIN } from "./plugin-project";

const python = path.join(PYTHON_VENV_BIN, "python3");

describe("sdk/python builds the pulumi_garm wheel offline", function () {
  this.timeout(180_000);
  let dir: string;
  let wheel: string;

  before(() => {
    if (!fs.existsSync(python)) throw new Error(`the Python virtualenv is missing at ${PYTHON_VENV_BIN}: run \`scripts/tools.sh python\``);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-wheel-"));
    // A copy, so the build leaves nothing in sdk/python.
    fs.cpSync(path.join(REPO_ROOT, "sdk", "python"), path.join(dir, "src"), { recursive: true, filter: (p) => !/(^|\/)(build|[^/]*\.egg-info|__pycache__)$/.test(p) });
    execFileSync(python, ["-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation", "--no-index", "-w", path.join(dir, "wheels"), path.join(dir, "src")], { stdio: ["ignore", "ignore", "pipe"] });
    wheel = path.join(dir, "wheels", `pulumi_garm-${PLUGIN_VERSION}-py3-none-any.whl`);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("from pyproject.toml alone (no setup.py), with the package's metadata and data files", () => {
    assert.ok(fs.existsSync(path.join(REPO_ROOT, "sdk", "python", "pyproject.toml")) && !fs.existsSync(path.join(REPO_ROOT, "sdk", "python", "setup.py")));
    const read = (member: string) =>
      execFileSync(python, ["-c", "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())", wheel, member], { encoding: "utf8" });
    const names = execFileSync(python, ["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", wheel], { encoding: "utf8" }).split("\n");
    const metadata = read(`pulumi_garm-${PLUGIN_VERSION}.dist-info/METADATA`);
    assert.match(metadata, /^Name: pulumi[-_]garm$/m);
    assert.match(metadata, /^Summary: Manage GARM/m);
    assert.match(metadata, /pulumi_garm: the GARM resource plugin/, "the long description is the SDK README");
    assert.match(metadata, new RegExp(`^Version: ${PLUGIN_VERSION.replace(/\./g, "\\.")}$`, "m"));
    assert.match(metadata, /^Requires-Dist: pulumi<4\.0\.0,>=3\.\d+\.\d+$/m);
    for (const file of ["pulumi_garm/__init__.py", "pulumi_garm/garm_scale_set.py", "pulumi_garm/py.typed", "pulumi_garm/pulumi-plugin.json"]) {
      assert.ok(names.includes(file), `the wheel holds ${file}`);
    }
    assert.deepEqual(JSON.parse(read("pulumi_garm/pulumi-plugin.json")), { resource: true, name: "garm", version: PLUGIN_VERSION, server: PLUGIN_DOWNLOAD_URL });
  });

  it("installs and imports with the pulumi package, naming the plugin's version and download URL", () => {
    const site = path.join(dir, "site");
    execFileSync(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-index", "--target", site, wheel]);
    const out = execFileSync(python, ["-c", "import pulumi_garm, pulumi_garm._utilities as u; print(u.get_version(), u.get_plugin_download_url(), pulumi_garm.GarmScaleSet.__name__)"], {
      encoding: "utf8",
      env: { ...process.env, PYTHONPATH: site },
    });
    assert.equal(out.trim(), `${PLUGIN_VERSION} ${PLUGIN_DOWNLOAD_URL} GarmScaleSet`);
  });
});
