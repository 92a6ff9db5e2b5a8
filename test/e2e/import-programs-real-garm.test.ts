// The programs `pulumi-garm import-plan --language python|typescript` writes, against the REAL GARM v0.2.1 (issue 26),
// each through its front door from a project directory: a GARM populated through its REST API only, as a team's is; the
// written program's `pulumi up` imports every object with no change to GARM, then previews no change, also once the
// import and protect options are taken out; a label change on an imported scale set is a replacement whose new
// generation comes first; and `pulumi destroy` deletes everything in one run in the order the references give, leaving
// GARM's default github.com endpoint and its system templates.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { importPlan } from "../../cli/import-plan/command";
import { planned } from "../../cli/import-plan/import-ids";
import { importSecretsConfig, populateGarm } from "../../harness/populated-garm";
import { PulumiProject, REPO_ROOT, packOnce } from "../../harness/pulumi-cli/project";
import { locateGarm } from "../../harness/real-garm";
import { type E2eEnvironment, startE2eEnvironment } from "../../harness/real-garm/environment";
import { changeLabels, destroyLeavesGarmsOwn, garmHoldings, type ImportedProject } from "../integration/plugin/imported-lifecycle";
import { PluginProject, PYTHON_HOST_DIR, PYTHON_VENV_BIN, buildPluginOnce, buildPythonWheel, installPythonWheel } from "../integration/plugin/plugin-project";

type Login = { url: string; username: string; password: string };
type Config = Record<string, string | { value: string; secret: boolean }>;

/** What both project harnesses offer. */
interface Project extends ImportedProject {
  initStack(stack: string, config: Config): Promise<void>;
  preview(extra?: readonly string[]): Promise<{ changeSummary: Record<string, number>; steps: { op: string; urn: string }[] }>;
  timings(): string;
}

/** The program without its `import`/`import_` and `protect` options, as a user edits it once the import is done. */
function withoutImportOptions(code: string): string {
  return code.replace(/, \{ import: "[^"]*", protect: true \}\);$/gm, ");").replace(/^ {4}opts=pulumi\.ResourceOptions\(import_="[^"]*", protect=True\),\n/gm, "");
}

describe("e2e: the programs import-plan writes, run against real GARM v0.2.1 (import, no change, label change, destroy)", function () {
  this.timeout(900_000);
  let env: E2eEnvironment | undefined;
  const cleanup: (() => unknown)[] = [];

  before(function () {
    try {
      locateGarm();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await env?.stop();
    env = undefined;
  });

  /** A real GARM populated over REST, as the team's would be. */
  async function populatedGarm(): Promise<Login> {
    env = await startE2eEnvironment();
    const login = { url: env.garm.url, username: env.garm.username, password: env.garm.password };
    await populateGarm(login);
    return login;
  }

  /**
   * The written program's life: `pulumi up` imports with no change to GARM, no change after; a label added to the
   * hashed scale set ci-small replaces it, new generation first; destroy leaves only GARM's own objects.
   */
  async function runLifecycle(p: Project, login: Login, program: string, addLabel: (code: string) => string): Promise<void> {
    const before = await garmHoldings(login);
    await p.initStack("dev", { "garm:url": login.url, "garm:username": login.username, "garm:password": { value: login.password, secret: true }, ...(await importSecretsConfig(login)) });
    let progress = "";
    const outcome = await importPlan(["--url", login.url, "--username", login.username, "--password", login.password, "--language", path.extname(program) === ".py" ? "python" : "typescript", "--out", path.join(p.dir, program)], {
      stdout: () => {},
      stderr: (l) => void (progress += `${l}\n`),
      env: {},
    });
    const declared = outcome!.plan.entries.filter((e) => planned(e.object)).length;
    console.log(`      ${program}: ${declared} objects declared; ${progress.trim().split("\n").pop()}`);

    await p.cli(["up", "--yes", "--skip-preview"]);
    assert.deepEqual(await garmHoldings(login), before, "importing changes nothing in GARM");
    const same = await p.preview(["--expect-no-changes"]);
    assert.deepEqual(same.changeSummary, { same: declared + 1 }, "every declared object and the stack, unchanged");

    // Once imported, the import and protect options go, as the program's opening comment says: Pulumi replaces neither
    // a resource still naming its import id nor a protected one.
    const code = withoutImportOptions(fs.readFileSync(path.join(p.dir, program), "utf8"));
    fs.writeFileSync(path.join(p.dir, program), code);
    await p.preview(["--expect-no-changes"]);
    const ciSmall = outcome!.plan.file.resources.find((r) => r.name === "scaleset-ci-small")!;
    await changeLabels(p, ciSmall, "gpu", login, { program, edit: addLabel });
    await destroyLeavesGarmsOwn(p, login);
    console.log(`      ${p.timings()}`);
  }

  it("Python, through the garm plugin: the written __main__.py imports, previews no change, replaces on a label change and destroys in order", async function () {
    if (!fs.existsSync(path.join(PYTHON_HOST_DIR, "pulumi-language-python")) || !fs.existsSync(path.join(PYTHON_VENV_BIN, "python3"))) {
      throw new Error(`the Python language host or its virtualenv is missing under ${path.dirname(PYTHON_HOST_DIR)}: run \`scripts/tools.sh python\``);
    }
    const login = await populatedGarm();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-import-py-real-"));
    cleanup.push(() => fs.rmSync(scratch, { recursive: true, force: true }));
    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-python"), path.join(scratch, "home"), [PYTHON_VENV_BIN, PYTHON_HOST_DIR]);
    cleanup.push(() => p.close());
    installPythonWheel(p, buildPythonWheel(path.join(scratch, "wheels")));
    await p.installPlugin(buildPluginOnce());
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: garm-import-python-real\nruntime: python\n");
    await runLifecycle(p, login, "__main__.py", (code) => code.replace(/(\n {4}"scaleset-ci-small",\n[\s\S]*?\n {4}labels=\["linux", "x64")\]/, '$1, "gpu"]'));
  });

  it("TypeScript, through the dynamic provider: the written index.ts imports, previews no change, replaces on a label change and destroys in order", async function () {
    const login = await populatedGarm();
    const source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-import-ts-real-src-"));
    cleanup.push(() => fs.rmSync(source, { recursive: true, force: true }));
    const example = path.join(REPO_ROOT, "examples", "quickstart");
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), "name: garm-import-typescript-real\nruntime: nodejs\n");
    for (const f of ["package.json", "tsconfig.json"]) fs.copyFileSync(path.join(example, f), path.join(source, f));
    const p = await PulumiProject.fromExample({ example: "import-typescript-real", source, tarball: await packOnce(), prefix: "pulumi-garm-import-ts-real-" });
    cleanup.push(() => p.close());
    fs.rmSync(path.join(p.dir, "index.ts"), { force: true });
    await runLifecycle(p, login, "index.ts", (code) => code.replace(/(\nconst scalesetCiSmall = [\s\S]*?\n {2}labels: \["linux", "x64")\]/, '$1, "gpu"]'));
  });
});
