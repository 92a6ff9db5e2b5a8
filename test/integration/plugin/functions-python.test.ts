// A Python program calling the garm plugin's functions (examples/functions-python), run by the real CLI and Python
// language host with the pulumi_garm wheel built from sdk/python, against the GARM simulator.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { type Simulator, startSimulator } from "../../../simulator";
import { assertFunctionsOutputs } from "../../support/functions-outputs";
import { PYTHON_HOST_DIR, PYTHON_VENV_BIN, PluginProject, buildPluginOnce, buildPythonWheel, installPythonWheel } from "./plugin-project";

describe("Python calls of the garm plugin's functions (real CLI, Python host, simulator)", function () {
  this.timeout(300_000);
  let work: string;
  let sim: Simulator;
  let p: PluginProject;

  before(async function () {
    if (!fs.existsSync(path.join(PYTHON_HOST_DIR, "pulumi-language-python")) || !fs.existsSync(path.join(PYTHON_VENV_BIN, "python3"))) {
      throw new Error(`the Python language host or its virtualenv is missing under ${path.dirname(PYTHON_HOST_DIR)}: run \`scripts/tools.sh python\``);
    }
    work = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-functions-python-"));
    const wheel = buildPythonWheel(work);
    const tarball = buildPluginOnce();
    sim = await startSimulator({ tickMs: 100 });
    p = new PluginProject(path.join(REPO_ROOT, "examples", "functions-python"), path.join(work, "home"), [PYTHON_VENV_BIN, PYTHON_HOST_DIR]);
    installPythonWheel(p, wheel);
    await p.installPlugin(tarball);
    await p.initStack("dev", { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });
  });

  after(async () => {
    p?.close();
    await sim?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("up builds a scale set from what the functions answer; destroy; a name GARM lacks fails preview naming what it holds", async () => {
    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    assertFunctionsOutputs(out, sim);
    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(sim.scaleSets(), []);

    await p.cli(["config", "set", "organization", "acne"]);
    const r = await p.cli(["preview"], { expectOk: false });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /getOrganization: GARM has no organization named "acne"; nearest it holds: acme \(endpoint github\.com\)/);
  });
});
