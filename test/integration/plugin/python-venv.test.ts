// What docs/other-languages.md ("Python") tells users about the virtualenv, checked with the CLI v3.248.0 and the Python
// language host v3.68.0 the tests use: `runtime.options.virtualenv` in Pulumi.yaml is not read (the CLI starts the host
// with only the engine's address, and that host takes the virtualenv from a flag: docs/pulumi-behaviour.md §9.3), so
// a program runs with the `python3` first on PATH, and that must be the virtualenv's.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulatedHost } from "../../../scripts/demo/host";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { PluginProject, PYTHON_HOST_DIR, PYTHON_VENV_BIN, buildPluginOnce } from "./plugin-project";

describe("Python programs: the virtualenv comes from PATH, not from Pulumi.yaml (real CLI, Python host v3.68.0)", function () {
  this.timeout(300_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("a virtualenv option naming a directory that does not exist is not used: preview runs with PATH's python3", async () => {
    const tarball = buildPluginOnce();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-venv-"));
    cleanup.push(() => fs.rmSync(scratch, { recursive: true, force: true }));
    execFileSync(path.join(PYTHON_VENV_BIN, "python3"), ["-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation", "--no-index", "-w", scratch, path.join(REPO_ROOT, "sdk", "python")]);
    const wheel = path.join(scratch, fs.readdirSync(scratch).find((f) => f.endsWith(".whl"))!);
    const host = await startSimulatedHost({ prefix: "pulumi-garm-venv-host-" });
    cleanup.push(() => host.close());
    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-python"), path.join(scratch, "home"), [PYTHON_VENV_BIN, PYTHON_HOST_DIR]);
    cleanup.push(() => p.close());
    const yaml = path.join(p.dir, "Pulumi.yaml");
    fs.writeFileSync(yaml, fs.readFileSync(yaml, "utf8").replace(/^runtime: python$/m, "runtime:\n  name: python\n  options:\n    virtualenv: no-such-venv"));
    assert.match(fs.readFileSync(yaml, "utf8"), /virtualenv: no-such-venv/);
    const site = path.join(p.workDir, "site");
    execFileSync(path.join(PYTHON_VENV_BIN, "python3"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-index", "--target", site, wheel]);
    p.env.PYTHONPATH = site;
    await p.installPlugin(tarball);
    await p.initStack("dev", host.stackConfig);
    // A host that read the option would stop here: the directory does not exist.
    const preview = await p.preview();
    assert.equal(preview.changeSummary.create, 3, JSON.stringify(preview.changeSummary));
  });
});
