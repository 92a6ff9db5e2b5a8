// `pulumi-garm import-plan --language python` (issue 26): `pulumi import --out __main__.py` cannot write Python here
// (the Python host v3.68.0 answers GenerateProgram "not implemented"), so import-plan writes the program itself. Run as a
// user runs it: a Python project with the garm plugin from its tarball and the pulumi_garm wheel, the secrets set as
// import-plan's commands say, `pulumi up` importing every object with no write to GARM, then no change; against a
// simulated GARM populated over REST with a provider entry written by hand.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { importPlan } from "../../../cli/import-plan/command";
import { planned } from "../../../cli/import-plan/import-ids";
import { importSecretsConfig, populateGarm } from "../../../harness/populated-garm";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { startSimulatedHost } from "../../../scripts/demo/host";
import { PLUGIN_VERSION, PluginProject, PYTHON_HOST_DIR, PYTHON_VENV_BIN, buildPluginOnce, buildPythonWheel, installPythonWheel } from "./plugin-project";
import { writes } from "./quickstart-scenario";
import { destroyLeavesGarmsOwn, handWriteFakeProvider, populateClashes } from "./imported-lifecycle";

describe("import-plan --language python: the written __main__.py, run with the real CLI (garm plugin, Python host, simulator)", function () {
  this.timeout(600_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("declares every importable object with import_ and references; `pulumi up` imports them all writing nothing, then no change", async () => {
    if (!fs.existsSync(path.join(PYTHON_HOST_DIR, "pulumi-language-python")) || !fs.existsSync(path.join(PYTHON_VENV_BIN, "python3"))) {
      throw new Error(`the Python language host or its virtualenv is missing under ${path.dirname(PYTHON_HOST_DIR)}: run \`scripts/tools.sh python\``);
    }
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-import-py-"));
    cleanup.push(() => fs.rmSync(scratch, { recursive: true, force: true }));
    const wheel = buildPythonWheel(path.join(scratch, "wheels"));
    const tarball = buildPluginOnce();
    const host = await startSimulatedHost({ prefix: "pulumi-garm-import-py-host-", tickMs: 0 });
    cleanup.push(() => host.close());
    await handWriteFakeProvider(host);
    await populateGarm(host.sim);
    // Organization acme under a second endpoint, a pool with a null in its extra specs (issue 34).
    await populateClashes(host.sim);

    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-python"), path.join(scratch, "home"), [PYTHON_VENV_BIN, PYTHON_HOST_DIR]);
    cleanup.push(() => p.close());
    installPythonWheel(p, wheel);
    await p.installPlugin(tarball);
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: garm-import-plan-python\nruntime: python\n");
    await p.initStack("dev", { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true }, ...(await importSecretsConfig(host.sim)) });

    host.sim.clearRequests();
    const stderr: string[] = [];
    const outcome = await importPlan(["--url", host.sim.url, "--username", host.sim.username, "--password", host.sim.password, "--language", "python", "--out", path.join(p.dir, "__main__.py")], {
      stdout: () => {},
      stderr: (line) => void stderr.push(line),
      env: {},
    });
    const code = fs.readFileSync(path.join(p.dir, "__main__.py"), "utf8");
    console.log(`      generated __main__.py:\n${code.replace(/^/gm, "        ")}`);
    const declared = outcome!.plan.entries.filter((e) => planned(e.object));
    for (const { spec } of declared) {
      assert.match(code, new RegExp(`^\\w+ = garm\\.Garm\\w+\\(\\n    ${JSON.stringify(spec.name)},\\n[\\s\\S]*?^    opts=pulumi\\.ResourceOptions\\(import_=${JSON.stringify(spec.id)}, protect=True\\),\\n\\)$`, "m"), `${spec.name} is declared`);
    }
    // What names another declared object refers to it, so Pulumi orders them: the template, entities, credentials, endpoints.
    assert.equal(code.match(/^ {4}template_id=template_custom_linux\.template_id,$/gm)?.length, 2, "templateId refers to the imported template");
    // Two organizations acme: each scale set names its endpoint and refers to the acme on it.
    assert.match(code, /^ {4}organization=org_acme_\w+\.name,\n {4}endpoint=endpoint_ghes\.name,$/m);
    assert.match(code, /^ {4}organization=org_acme_\w+\.name,\n {4}endpoint="github\.com",$/m);
    assert.match(code, /^ {4}extra_specs="\{\\"disk_gb\\":10,\\"zone\\":null\}",$/m, "the null of the pool's extra specs, as its JSON string");
    assert.match(code, /^ {4}credentials=credentials_acme_pat\.name,$/m);
    assert.match(code, /^ {4}endpoint=endpoint_ghes\.name,$/m);
    assert.match(code, /^ {4}token_from_config="garm:credentials-acme-pat-token",$/m, "the secret is named by the config key the importer reads");
    assert.ok(stderr.some((l) => l.includes("__main__.py")), stderr.join("\n"));
    assert.deepEqual(writes(host.sim), [], "import-plan writes nothing to GARM");

    const up = await p.cli(["up", "--yes", "--skip-preview"]);
    assert.equal(up.code, 0, `pulumi up failed:\n${up.stdout}\n${up.stderr}`);
    assert.deepEqual(writes(host.sim), [], "importing changes nothing in GARM");
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { same: declared.length + 1 }, "every declared object and the stack, unchanged");
    assert.deepEqual(writes(host.sim), [], "a preview writes nothing to GARM");
    // One destroy, once unprotected, removes everything imported in dependency order (destroy runs no program).
    await p.cli(["state", "unprotect", "--all", "--yes"]);
    await destroyLeavesGarmsOwn(p, { url: host.sim.url, username: host.sim.username, password: host.sim.password });
    console.log(`      plugin ${PLUGIN_VERSION}; ${declared.length} objects; ${p.timings()}`);
  });
});
