// The whole-GARM import with the real Pulumi CLI: `pulumi-garm import-plan` on a simulated GARM populated over REST, then
// `pulumi import --file` in a YAML project with the garm plugin, then a preview with no change. The plan is cut to the
// kinds whose importers have landed (the registry's `importable`); GarmProvider waits for its own; the secrets of credentials and entities are set in stack config first.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { importPlan } from "../../../cli/import-plan/command";
import { IMPORT_IDS, type ListedKind, hasImporter, tokenFor } from "../../../cli/import-plan/import-ids";
import type { ImportFile } from "../../../cli/import-plan/plan";
import { importSecretsConfig, populateGarm } from "../../../harness/populated-garm";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { startSimulatedHost } from "../../../scripts/demo/host";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";
import { writes } from "./quickstart-scenario";


const kindOfToken = (token: string) => (Object.keys(IMPORT_IDS) as ListedKind[]).find((k) => tokenFor(k) === token)!;

describe("import-plan, then pulumi import --file in a YAML project (real CLI, garm plugin, simulator)", function () {
  this.timeout(600_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("imports every object whose kind has an importer; the program Pulumi writes previews with no change", async () => {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    const tarball = buildPluginOnce();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
    cleanup.push(() => fs.rmSync(home, { recursive: true, force: true }));
    const host = await startSimulatedHost({ prefix: "pulumi-garm-import-plan-", tickMs: 0 });
    cleanup.push(() => host.close());
    // GARM checks a pool's provider: an entry written by hand into GARM's config, as an operator would.
    fs.appendFileSync(host.garmConfigPath, `\n[[provider]]\nname = "fake"\nprovider_type = "external"\n[provider.external]\nprovider_executable = "${host.providerExecutable}"\nconfig_file = ""\n`);
    await host.sim.restart();
    await populateGarm(host.sim);

    let text = "";
    await importPlan(["--url", host.sim.url, "--username", host.sim.username, "--password", host.sim.password], { stdout: (t) => (text += t), stderr: () => {}, env: {} });
    const whole = JSON.parse(text) as ImportFile;
    const file: ImportFile = { resources: whole.resources.filter((r) => hasImporter(kindOfToken(r.type))) };
    const kinds = new Set(file.resources.map((r) => r.type));
    for (const t of ["garm:index:GarmController", "garm:index:GarmEndpoint", "garm:index:GarmPool", "garm:index:GarmScaleSet", "garm:index:GarmTemplate", "garm:index:GarmCredentials", "garm:index:GarmOrganization", "garm:index:GarmRepository", "garm:index:GarmEnterprise"]) assert.ok(kinds.has(t), `${t} is in the plan`);

    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-yaml"), home, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(tarball);
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: garm-import-plan-yaml\nruntime: yaml\n");
    await p.initStack("dev", { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true }, ...(await importSecretsConfig(host.sim)) });
    const planPath = path.join(p.workDir, "plan.json");
    fs.writeFileSync(planPath, JSON.stringify(file));
    const generated = path.join(p.workDir, "generated.yaml");
    host.sim.clearRequests();
    await p.cli(["import", "--file", planPath, "--yes", "--out", generated]);
    assert.deepEqual(writes(host.sim), [], "importing changes nothing in GARM");
    const code = fs.readFileSync(generated, "utf8");
    // YAML writes the token without its module: garm:GarmPool.
    for (const r of file.resources) assert.match(code, new RegExp(`^  ${r.name}:\\n    type: ${r.type.replace("garm:index:", "garm:(index:)?")}\\n`, "m"), `the program declares ${r.name}:\n${code}`);
    console.log(`      generated program:\n${code.replace(/^/gm, "        ")}`);
    fs.appendFileSync(path.join(p.dir, "Pulumi.yaml"), code);
    host.sim.clearRequests();
    await p.cli(["preview", "--expect-no-changes"]);
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { same: file.resources.length + 1 }, `after import the written program has no change:\n${code}`);
    assert.deepEqual(writes(host.sim), []);
  });
});
