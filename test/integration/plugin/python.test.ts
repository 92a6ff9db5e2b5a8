// The Python quick start through the garm resource plugin: the real CLI, the Python language host v3.68.0 with the
// pulumi Python package from scripts/tools.sh python, the pulumi_garm wheel built from sdk/python (`make sdks`), the plugin installed
// from its tarball, against the GARM simulator.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulatedHost } from "../../../scripts/demo/host";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { PLUGIN_VERSION, PluginProject, PYTHON_HOST_DIR, PYTHON_VENV_BIN, buildPluginOnce, buildPythonWheel, installPythonWheel } from "./plugin-project";
import { runQuickstart } from "./quickstart-scenario";

describe("Python programs through the garm resource plugin (real CLI, Python host, simulator)", function () {
  this.timeout(300_000);
  let tarball: string;
  let wheel: string;
  let wheels: string;
  const cleanup: (() => unknown)[] = [];

  before(function () {
    if (!fs.existsSync(path.join(PYTHON_HOST_DIR, "pulumi-language-python")) || !fs.existsSync(path.join(PYTHON_VENV_BIN, "python3"))) {
      throw new Error(`the Python language host or its virtualenv is missing under ${path.dirname(PYTHON_HOST_DIR)}: run \`scripts/tools.sh python\``);
    }
    wheels = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-python-"));
    cleanup.push(() => fs.rmSync(wheels, { recursive: true, force: true }));
    wheel = buildPythonWheel(wheels);
    tarball = buildPluginOnce();
  });

  afterEach(async () => {
    for (const c of cleanup.splice(1).reverse()) await c();
  });

  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("quickstart: preview, up, label change (replace, new generation first), no-change preview, destroy", async () => {
    const host = await startSimulatedHost({ prefix: "pulumi-garm-plugin-host-" });
    cleanup.push(() => host.close());
    // The virtualenv's python3 first: the host runs the program with `python3` from PATH.
    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-python"), path.join(wheels, "home"), [PYTHON_VENV_BIN, PYTHON_HOST_DIR]);
    cleanup.push(() => p.close());
    installPythonWheel(p, wheel);
    await p.installPlugin(tarball);
    await runQuickstart(p, host, {
      project: "garm-quickstart-python",
      baseLabels: async () => undefined,
      addLabel: async (q) => void (await q.cli(["config", "set", "--path", "extraLabels[0]", "large"])),
    });
    console.log(`      plugin ${PLUGIN_VERSION}; ${p.timings()}`);
  });
});
