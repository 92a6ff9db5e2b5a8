// `pulumi-garm import-plan --language typescript` as a user runs it (issue 26): the index.ts it writes for a simulated GARM
// populated over REST, in a project with the package installed from its npm tarball, then the
// README's walk-through run as written from the project directory with the real CLI (`pulumi up`, `pulumi preview
// --expect-no-changes`): nothing written to GARM, and the program compiles with tsc.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { importPlan } from "../../../cli/import-plan/command";
import { hasImporter } from "../../../cli/import-plan/import-ids";
import { type PopulatedGarm, importSecretsConfig, populateGarm } from "../../../harness/populated-garm";
import { locateLanguageHost, locatePulumi } from "../../../harness/pulumi-cli";
import { PulumiProject, REPO_ROOT, packOnce, run } from "../../../harness/pulumi-cli/project";
import { type Simulator, startSimulator } from "../../../simulator";
import { mutatingCalls } from "../../support/fixtures";
import { fencedBlock } from "../plugin/doc-blocks";
import { destroyLeavesGarmsOwn, populateClashes } from "../plugin/imported-lifecycle";

describe("import-plan --language typescript: the written index.ts, run with the real CLI (package from its tarball, simulator)", function () {
  this.timeout(600_000);
  let sim: Simulator;
  let made: PopulatedGarm;
  let source = "";
  let project: PulumiProject | undefined;

  before(async function () {
    try {
      locatePulumi();
      locateLanguageHost();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
    sim = await startSimulator({ tickMs: 0 });
    made = await populateGarm(sim);
    // Organization acme under a second endpoint, a pool with a null in its extra specs (issue 34).
    await populateClashes(sim);
    source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-import-ts-src-"));
  });
  after(async () => {
    project?.close();
    await sim?.stop();
    if (source) fs.rmSync(source, { recursive: true, force: true });
  });

  it("declares each importable object with the import option and references, secrets read from stack config, and comments the rest; reads lists, templates and pools", async () => {
    const out = path.join(source, "index.ts");
    sim.clearRequests();
    const outcome = await importPlan(["--url", sim.url, "--username", sim.username, "--password", sim.password, "--language", "typescript", "--out", out], {
      stdout: () => {},
      stderr: () => {},
      env: {},
    });
    const code = fs.readFileSync(out, "utf8");
    console.log(`      generated index.ts:\n${code.replace(/^/gm, "        ")}`);
    for (const { spec, object } of outcome!.plan.entries) {
      const declared = new RegExp(`^const \\w+ = new garm\\.Garm\\w+\\(${JSON.stringify(spec.name)}, \\{$[\\s\\S]*?^\\}, \\{ import: ${JSON.stringify(spec.id)}, protect: true \\}\\);$`, "m");
      if (object.kind === "garmProvider") assert.match(code, new RegExp(`^// GarmProvider ${JSON.stringify(spec.name)} \\(import id ${JSON.stringify(spec.id)}\\): not written, as its entry is in GARM's config file, which import-plan was not given: run it with --garm-config <path> --garm-restart-command <command>\\.$`, "m"), code);
      else if (hasImporter(object.kind)) assert.match(code, declared, `${spec.name} is declared`);
      else assert.match(code, new RegExp(`^// Garm\\w+ ${JSON.stringify(spec.name)} \\(import id ${JSON.stringify(spec.id)}\\): this version of pulumi-garm cannot import it yet; .+\\.$`, "m"), `${spec.name} is a comment`);
    }
    // A pool and a scale set run the custom template: a reference to it, so Pulumi imports the template first.
    assert.equal(code.match(/^ {2}templateId: templateCustomLinux\.templateId,$/gm)?.length, 2, "templateId refers to the imported template");
    assert.match(code, /^ {2}extraSpecs: \{\n {4}disk_gb: 50,\n {2}\},$/m, "the pool's extra specs, which only a read of the pool shows");
    // The dynamic provider gets no stack config: the program reads the secrets GARM never returns from the importers' keys.
    assert.match(code, /^ {2}token: garmConfig\.requireSecret\("credentials-acme-pat-token"\),$/m);
    assert.match(code, /^ {2}webhookSecret: garmConfig\.requireSecret\("organization-acme-webhook-secret"\),$/m);
    assert.match(code, /^ {2}credentials: credentialsAcmePat\.name,$/m);
    assert.doesNotMatch(code, /FromConfig/, "the dynamic provider cannot resolve a config key itself");
    // The lists, the controller and the login (13), and one read per user template (1) and per pool (3).
    assert.equal(outcome!.garmCalls, 13 + 1 + made.poolIds.length + 1);
    // Two organizations acme: each scale set names its endpoint and refers to the acme on it.
    assert.match(code, /^ {2}organization: orgAcme\w+\.name,\n {2}endpoint: endpointGhes\.name,$/m);
    assert.match(code, /^ {2}organization: orgAcme\w+\.name,\n {2}endpoint: "github\.com",$/m);
    assert.match(code, /^ {2}extraSpecs: "\{\\"disk_gb\\":10,\\"zone\\":null\}",$/m, "the null of the pool's extra specs, as its JSON string");
    assert.deepEqual(mutatingCalls(sim), []);
  });

  it("the README's TypeScript walk-through, run as written from the project: `pulumi up` imports every object with no write to GARM, then no change", async () => {
    const example = path.join(REPO_ROOT, "examples", "quickstart");
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), "name: garm-imported\nruntime: nodejs\n");
    for (const f of ["package.json", "tsconfig.json"]) fs.copyFileSync(path.join(example, f), path.join(source, f));
    project = await PulumiProject.fromExample({ example: "import-plan-typescript", source, tarball: await packOnce(), prefix: "pulumi-garm-import-ts-" });
    await project.initStack("dev", { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true }, ...(await importSecretsConfig(sim)) });
    const walkThrough = fencedBlock("README.md", "sh", "--language typescript");
    fs.rmSync(path.join(project.dir, "index.ts"), { force: true });
    sim.clearRequests();
    const env = { ...project.env, GARM_URL: sim.url, GARM_USERNAME: sim.username, GARM_PASSWORD: sim.password };
    // Asynchronously: the simulator answers from this process.
    const walked = await run("bash", ["-euo", "pipefail", "-c", walkThrough], { cwd: project.dir, env, timeoutMs: 300_000 });
    assert.equal(walked.code, 0, `the walk-through failed:\n${walked.stdout}\n${walked.stderr}`);
    assert.deepEqual(mutatingCalls(sim), [], "importing and previewing write nothing to GARM");
    // The program it wrote compiles on its own too, with the project's TypeScript and the package's types.
    execFileSync(path.join(project.dir, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", project.dir], { stdio: "pipe" });
    const declared = (fs.readFileSync(path.join(project.dir, "index.ts"), "utf8").match(/^const \w+ = new garm\./gm) ?? []).length;
    assert.ok(declared >= 11, `${declared} objects declared`);
    const preview = await project.preview();
    assert.deepEqual(preview.changeSummary, { same: declared + 1 }, "every declared object and the stack, unchanged");
    assert.deepEqual(mutatingCalls(sim), [], "a preview writes nothing to GARM");
    // One destroy, once unprotected, removes everything imported in dependency order (destroy runs no program).
    await project.cli(["state", "unprotect", "--all", "--yes"]);
    await destroyLeavesGarmsOwn(project, { url: sim.url, username: sim.username, password: sim.password });
  });
});
