// Issue 34's gate, one scenario on the simulator and on real GARM v0.2.1 alike: a team's GARM filled over REST only
// (populateTeamGarm), taken over by the README's "Bring an existing GARM" walk-through run as written, in YAML (the
// garm plugin, `pulumi import --file`) and in the TypeScript program import-plan writes; then what the team does next in
// the YAML program: a label change on a hashed and on an exact scale set, an extra-specs change on a pool, a template
// body edit, and one `pulumi destroy` that leaves GARM's own objects only.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ImportFile } from "../../../cli/import-plan/plan";
import { type TeamGarm, importSecretsConfig, populateTeamGarm } from "../../../harness/populated-garm";
import { PulumiProject, REPO_ROOT, packOnce, run } from "../../../harness/pulumi-cli/project";
import { GarmClient } from "../../../provider/garm/client";
import { fencedBlock } from "./doc-blocks";
import { changeLabels, destroyLeavesGarmsOwn, editAndUp, garmHoldings, garmsOwn, inYamlBlock, unprotect } from "./imported-lifecycle";
import { PYTHON_HOST_DIR, PYTHON_VENV_BIN, PluginProject, YAML_HOST_DIR, buildPluginOnce, buildPythonWheel, installPythonWheel } from "./plugin-project";

type Login = { url: string; username: string; password: string };

/** The README's walk-through `script` (a block of it), run by bash from the project with GARM's login in its env. */
async function walkThrough(dir: string, env: NodeJS.ProcessEnv, login: Login, script: string): Promise<void> {
  const walked = await run("bash", ["-euo", "pipefail", "-c", script], {
    cwd: dir,
    env: { ...env, GARM_URL: login.url, GARM_USERNAME: login.username, GARM_PASSWORD: login.password },
    timeoutMs: 400_000,
  });
  assert.equal(walked.code, 0, `the README's walk-through failed:\n${script}\n${walked.stdout}\n${walked.stderr}`);
}

/** The lines of `name`'s block in a YAML program. */
function yamlBlock(code: string, name: string): string {
  let block = "";
  inYamlBlock(name, (b) => (block = b))(code);
  return block;
}

/** The team's cases as the written YAML program holds them. */
function assertTeamCasesImported(code: string, file: ImportFile, made: TeamGarm): void {
  const nameOf = (type: string, id: string | number) => {
    const entry = file.resources.find((r) => r.type === `garm:index:${type}` && r.id === String(id));
    assert.ok(entry, `the plan imports ${type} ${id}: ${JSON.stringify(file.resources)}`);
    return entry.name;
  };
  const parked = yamlBlock(code, nameOf("GarmScaleSet", made.scaleSets[made.names.parked]!));
  assert.match(parked, /^ {6}maxRunners: 0$/m, `the parked scale set is imported at 0 runners:\n${parked}`);
  assert.match(parked, /^ {6}osType: windows$/m, parked);
  const lookalike = yamlBlock(code, nameOf("GarmScaleSet", made.scaleSets[made.names.lookalike]!));
  assert.match(lookalike, /^ {6}naming: exact$/m, `a name that only looks hashed is kept exactly:\n${lookalike}`);
  const nullPool = yamlBlock(code, nameOf("GarmPool", made.nullPool));
  assert.match(nullPool, /"zone":null/, `the null of the pool's extra specs is in the program:\n${nullPool}`);
  assert.match(nullPool, /^ {6}endpoint: /m, `the pool of the acme on ghes names its endpoint:\n${nullPool}`);
  for (const forge of ["github", "gitea"]) assert.ok(file.resources.some((r) => r.type === "garm:index:GarmCredentials" && r.id.startsWith(`${forge}/`) && r.name.includes("ci")), `credentials ci on ${forge} are imported`);
  nameOf("GarmTemplate", made.templates.crlf);
  nameOf("GarmTemplate", made.templates.longLine);
  nameOf("GarmScaleSet", made.scaleSets[made.names.hostile]!);
}

/** A TypeScript project as in the README's Example, with the package installed from its tarball and no program yet. */
async function typescriptProject(): Promise<PulumiProject> {
  const source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-team-ts-src-"));
  try {
    const example = path.join(REPO_ROOT, "examples", "quickstart");
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), "name: team-garm-typescript\nruntime: nodejs\n");
    for (const f of ["package.json", "tsconfig.json"]) fs.copyFileSync(path.join(example, f), path.join(source, f));
    const p = await PulumiProject.fromExample({ example: "team-garm-typescript", source, tarball: await packOnce(), prefix: "pulumi-garm-team-ts-" });
    fs.rmSync(path.join(p.dir, "index.ts"), { force: true });
    return p;
  } finally {
    fs.rmSync(source, { recursive: true, force: true });
  }
}

/** The TypeScript walk-through in its own stack: the written index.ts imports every object and previews no change. */
async function typescriptTakesOver(p: PulumiProject, login: Login, secrets: Record<string, { value: string; secret: boolean }>, before: Record<string, string[]>, log: (line: string) => void): Promise<void> {
  await p.initStack("dev", { "garm:url": login.url, "garm:username": login.username, "garm:password": { value: login.password, secret: true }, ...secrets });
  await walkThrough(p.dir, p.env, login, fencedBlock("README.md", "sh", "--language typescript"));
  assert.deepEqual(await garmHoldings(login), before, "the TypeScript import changes nothing in GARM");
  const declared = (fs.readFileSync(path.join(p.dir, "index.ts"), "utf8").match(/^const \w+ = new garm\./gm) ?? []).length;
  log(`TypeScript: ${declared} objects imported, no change after; ${p.timings()}`);
  // The YAML stack goes on with these objects: this stack lets go of them, deleting nothing.
  await p.cli(["stack", "rm", "dev", "--force", "--yes"]);
}

/**
 * The README's Python line, as it says: the TypeScript walk-through with `--language python --out __main__.py`, in a
 * Python project with the garm plugin and the pulumi_garm wheel, `pulumi-garm` npm-installed (the YAML project's).
 */
async function pythonTakesOver(home: string, nodeModules: string, login: Login, secrets: Record<string, { value: string; secret: boolean }>, before: Record<string, string[]>, log: (line: string) => void): Promise<void> {
  if (!fs.existsSync(path.join(PYTHON_HOST_DIR, "pulumi-language-python")) || !fs.existsSync(path.join(PYTHON_VENV_BIN, "python3"))) {
    throw new Error(`the Python language host or its virtualenv is missing under ${path.dirname(PYTHON_HOST_DIR)}: run \`scripts/tools.sh python\``);
  }
  const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-python"), home, [PYTHON_VENV_BIN, PYTHON_HOST_DIR]);
  try {
    installPythonWheel(p, buildPythonWheel(path.join(p.workDir, "wheels")));
    await p.installPlugin(buildPluginOnce());
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: team-garm-python\nruntime: python\n");
    fs.symlinkSync(nodeModules, path.join(p.dir, "node_modules"));
    await p.initStack("dev", { "garm:url": login.url, "garm:username": login.username, "garm:password": { value: login.password, secret: true }, ...secrets });
    const typescript = fencedBlock("README.md", "sh", "--language typescript");
    const python = typescript.replace("--language typescript --out index.ts", "--language python --out __main__.py");
    assert.notEqual(python, typescript, "the README's TypeScript block holds the options its Python line replaces");
    await walkThrough(p.dir, p.env, login, python);
    assert.deepEqual(await garmHoldings(login), before, "the Python import changes nothing in GARM");
    const declared = (fs.readFileSync(path.join(p.dir, "__main__.py"), "utf8").match(/^\w+ = garm\.Garm\w+\($/gm) ?? []).length;
    log(`Python: ${declared} objects imported, no change after; ${p.timings()}`);
    await p.cli(["stack", "rm", "dev", "--force", "--yes"]);
  } finally {
    p.close();
  }
}

/** "name 12.3s" for each phase `mark` closes, for the test's log: where the scenario's wall time goes. */
function phases(): { mark(name: string): void; toString(): string } {
  let last = Date.now();
  const done: string[] = [];
  return {
    mark(name) {
      done.push(`${name} ${((Date.now() - last) / 1000).toFixed(1)}s`);
      last = Date.now();
    },
    toString: () => done.join(", "),
  };
}

export async function runTeamScenario(login: Login, log: (line: string) => void = (l) => console.log(`      ${l}`)): Promise<void> {
  const phase = phases();
  if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
  const made = await populateTeamGarm(login);
  const before = await garmHoldings(login);
  const secrets = await importSecretsConfig(login);
  phase.mark("fill GARM");
  // The TypeScript project's npm install runs while the YAML project is set up and imports.
  const tsProject = typescriptProject();
  tsProject.catch(() => {});
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-team-home-"));
  const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-yaml"), home, [YAML_HOST_DIR]);
  try {
    await p.installPlugin(buildPluginOnce());
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: team-garm-yaml\nruntime: yaml\n");
    await p.initStack("dev", { "garm:url": login.url, "garm:username": login.username, "garm:password": { value: login.password, secret: true }, ...secrets });
    // The README has the package installed in the project for its command: the TypeScript project's, installed from its
    // npm tarball (one npm install for the three projects).
    fs.symlinkSync(path.join((await tsProject).dir, "node_modules"), path.join(p.dir, "node_modules"));
    phase.mark("YAML project");
    await walkThrough(p.dir, p.env, login, fencedBlock("README.md", "sh", "import-plan --out plan.json"));
    phase.mark("YAML walk-through");
    assert.deepEqual(await garmHoldings(login), before, "the YAML import changes nothing in GARM");
    const file = JSON.parse(fs.readFileSync(path.join(p.dir, "plan.json"), "utf8")) as ImportFile;
    const code = fs.readFileSync(path.join(p.dir, "imported.yaml"), "utf8");
    assertTeamCasesImported(code, file, made);
    log(`YAML: ${file.resources.length} objects imported, no change after; ${p.timings()}`);

    const ts = await tsProject;
    await typescriptTakesOver(ts, login, secrets, before, log);
    phase.mark("TypeScript project and walk-through");
    await pythonTakesOver(home, path.join(ts.dir, "node_modules"), login, secrets, before, log);
    phase.mark("Python project and walk-through");

    await unprotect(p);
    const entry = (type: string, id: string | number) => file.resources.find((r) => r.type === `garm:index:${type}` && r.id === String(id))!;
    const hashedName = Object.keys(made.scaleSets).find((n) => n.startsWith("ci-small-"))!;
    const hashed = await changeLabels(p, entry("GarmScaleSet", made.scaleSets[hashedName]!), "relabelled", login);
    assert.notEqual(hashed.name, hashedName, "the hashed scale set's new generation has a new live name");
    const exact = await changeLabels(p, entry("GarmScaleSet", made.scaleSets["hand-made"]!), "exact-relabelled", login, { deleteFirst: true });
    assert.equal(exact.name, "hand-made", "the exact scale set comes up under its name with the new labels");

    const poolName = entry("GarmPool", made.nullPool).name;
    await editAndUp(p, poolName, "update", ["extraSpecs"], inYamlBlock(poolName, (b) => b.replace('"disk_gb":10', '"disk_gb":20')));
    const templateName = entry("GarmTemplate", made.templates.crlf).name;
    await editAndUp(p, templateName, "update", ["body"], inYamlBlock(templateName, (b) => b.replace("exit 0", "exit 1")));
    const rest = new GarmClient(login);
    try {
      const pool = await rest.getPool(made.nullPool);
      assert.deepEqual(pool.extraSpecs, { disk_gb: 20, zone: null }, "GARM holds the pool's new extra specs, its null kept");
      const template = await rest.getTemplate(made.templates.crlf);
      assert.equal(template.body, "#ps1_sysnative\r\nWrite-Host \"runner {{ .RunnerName }} 🚀\"\r\nexit 1\r\n", "GARM holds the edited body, CRLF and emoji kept");
    } finally {
      await rest.close();
    }
    await p.cli(["preview", "--expect-no-changes"]);
    phase.mark("changes");

    await destroyLeavesGarmsOwn(p, login);
    assert.deepEqual(await garmHoldings(login), garmsOwn(before), "after one destroy GARM holds what it held of its own before the import");
    phase.mark("destroy");
    log(`changes and destroy: ${p.timings()}`);
    log(`wall time: ${phase}`);
  } finally {
    p.close();
    fs.rmSync(home, { recursive: true, force: true });
    await tsProject.then((ts) => ts.close(), () => {});
  }
}
