// The whole-GARM import with the real Pulumi CLI, as the README's walk-through tells it and run as written: `pulumi-garm
// import-plan` on a simulated GARM populated over REST, `pulumi import --file` in a YAML project with the garm plugin,
// the written program appended to Pulumi.yaml, then a preview with no change; then what a team does next with it: a
// label change on one imported scale set, and one `pulumi destroy` that deletes in dependency order and leaves GARM's
// own objects. The plan holds the kinds whose importers have landed (the registry's `importable`); the secrets of
// credentials and entities are set in stack config first.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { IMPORT_IDS, type ListedKind, hasImporter, tokenFor } from "../../../cli/import-plan/import-ids";
import type { ImportFile } from "../../../cli/import-plan/plan";
import { importSecretsConfig, populateGarm } from "../../../harness/populated-garm";
import { REPO_ROOT, installTarball, packOnce, run } from "../../../harness/pulumi-cli/project";
import { startSimulatedHost } from "../../../scripts/demo/host";
import { fencedBlock } from "./doc-blocks";
import { assertDeletedInOrder, changeLabels, populateClashes, dependencyEdges, destroyLeavesGarmsOwn, handWriteFakeProvider, unprotect, withIdleRunner } from "./imported-lifecycle";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";
import { writes } from "./quickstart-scenario";


/** The program holds the endpoint of each acme scale set and pool, and the null of the pool's extra specs. */
function assertClashesImported(code: string, file: ImportFile, clashes: { scaleSet: number; nullPool: string }): void {
  const entry = (type: string, id: string) => file.resources.find((r) => r.type === `garm:index:${type}` && r.id === id)!;
  const block = (name: string) => {
    const start = code.indexOf(`\n  ${name}:\n`);
    assert.ok(start >= 0, `the program declares ${name}`);
    const body = code.indexOf("\n", start + 1) + 1;
    const next = code.slice(body).search(/^  \S/m);
    return code.slice(start, next < 0 ? undefined : body + next);
  };
  const ghesSet = block(entry("GarmScaleSet", String(clashes.scaleSet)).name);
  assert.match(ghesSet, /^ {6}organization: acme\n(?:.*\n)*? {6}endpoint: ghes$|^ {6}endpoint: ghes\n(?:.*\n)*? {6}organization: acme$/m, `the scale set of acme on ghes names its endpoint:\n${ghesSet}`);
  // Each object the plan gives a parent (what it uses) has it in the program, which Pulumi orders destroy by.
  const withParent = file.resources.filter((r) => r.parent !== undefined);
  assert.ok(withParent.some((r) => r.type === "garm:index:GarmCredentials") && withParent.some((r) => r.type === "garm:index:GarmScaleSet"), JSON.stringify(file.resources));
  for (const r of withParent) assert.match(block(r.name), new RegExp(`^ {6}parent: \\$\\{\\["${r.parent}"\\]\\}$`, "m"), `${r.name} has its parent ${r.parent}`);
  const nullPool = block(entry("GarmPool", clashes.nullPool).name);
  assert.match(nullPool, /extraSpecs: .*"zone":null/, `the null of the pool's extra specs is in the program:\n${nullPool}`);
  for (const r of file.resources.filter((r) => r.type === "garm:index:GarmCredentials")) assert.match(r.id, /^(github|gitea)\/\d+$/, "credentials' ids name their forge");
}

const kindOfToken = (token: string) => (Object.keys(IMPORT_IDS) as ListedKind[]).find((k) => tokenFor(k) === token)!;

describe("import-plan, then pulumi import --file in a YAML project (real CLI, garm plugin, simulator)", function () {
  this.timeout(600_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("the README's YAML walk-through imports every object whose kind has an importer; the program Pulumi writes previews with no change, takes a label change and destroys in dependency order", async () => {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    const tarball = buildPluginOnce();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
    cleanup.push(() => fs.rmSync(home, { recursive: true, force: true }));
    // GARM's workers run, so an enabled pool gets its idle runner and a destroy drains it.
    const host = await startSimulatedHost({ prefix: "pulumi-garm-import-plan-" });
    cleanup.push(() => host.close());
    await handWriteFakeProvider(host);
    const populated = await populateGarm(host.sim);
    const clashes = await populateClashes(host.sim);
    // The pool on the template has an idle runner: destroy drains it while the template's delete runs beside it.
    await withIdleRunner(host.sim, populated.poolIds[1]!);

    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-yaml"), home, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(tarball);
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: garm-import-plan-yaml\nruntime: yaml\n");
    // The README has the package installed in the project for its command: here from its npm tarball.
    await installTarball(p.dir, await packOnce());
    await p.initStack("dev", { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true }, ...(await importSecretsConfig(host.sim)) });

    const walkThrough = fencedBlock("README.md", "sh", "import-plan --out plan.json");
    host.sim.clearRequests();
    const env = { ...p.env, GARM_URL: host.sim.url, GARM_USERNAME: host.sim.username, GARM_PASSWORD: host.sim.password };
    // Asynchronously: the simulator answers from this process.
    const walked = await run("bash", ["-euo", "pipefail", "-c", walkThrough], { cwd: p.dir, env, timeoutMs: 300_000 });
    assert.equal(walked.code, 0, `the walk-through failed:\n${walked.stdout}\n${walked.stderr}`);
    assert.deepEqual(writes(host.sim), [], "importing and previewing change nothing in GARM");

    const file = JSON.parse(fs.readFileSync(path.join(p.dir, "plan.json"), "utf8")) as ImportFile;
    assert.deepEqual(file.resources.filter((r) => !hasImporter(kindOfToken(r.type))), [], "the plan holds only kinds with an importer");
    const kinds = new Set(file.resources.map((r) => r.type));
    for (const t of ["garm:index:GarmController", "garm:index:GarmEndpoint", "garm:index:GarmPool", "garm:index:GarmScaleSet", "garm:index:GarmTemplate", "garm:index:GarmCredentials", "garm:index:GarmOrganization", "garm:index:GarmRepository", "garm:index:GarmEnterprise"]) assert.ok(kinds.has(t), `${t} is in the plan`);
    const code = fs.readFileSync(path.join(p.dir, "imported.yaml"), "utf8");
    console.log(`      generated program:\n${code.replace(/^/gm, "        ")}`);
    // YAML writes the token without its module: garm:GarmPool.
    for (const r of file.resources) assert.match(code, new RegExp(`^  ${r.name}:\\n    type: ${r.type.replace("garm:index:", "garm:(index:)?")}\\n`, "m"), `the program declares ${r.name}:\n${code}`);
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { same: file.resources.length + 1 }, `after import the written program has no change:\n${code}`);
    assert.deepEqual(writes(host.sim), []);
    // Two organizations acme: Pulumi's codegen meets a circular reference and writes none; the parents order destroy.
    assertClashesImported(code, file, clashes);

    const login = { url: host.sim.url, username: host.sim.username, password: host.sim.password };
    await unprotect(p);
    await changeLabels(p, file.resources.find((r) => r.type === "garm:index:GarmScaleSet" && r.name.startsWith("scaleset-ci-small"))!, "relabelled", login);
    const edges = await dependencyEdges(login);
    host.sim.clearRequests();
    await destroyLeavesGarmsOwn(p, login);
    // GARM refuses each delete while a user of the object remains; the log shows each came after its users'.
    const deletes = writes(host.sim).filter((r) => r.method === "DELETE").map((r) => r.path.replace(/^\/api\/v1/, ""));
    console.log(`      deletes GARM got: ${deletes.join(", ")}`);
    assertDeletedInOrder(deletes, edges);
  });
});
