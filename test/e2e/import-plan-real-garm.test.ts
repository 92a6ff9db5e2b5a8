// The whole-GARM import against the REAL GARM v0.2.1 (issue 26): a GARM populated through its REST API only, as a
// team's is, with the fixture's provider entry written by hand in GARM's config file; then `pulumi-garm import-plan
// --garm-config`, `pulumi import --file` in a YAML project with the garm plugin, no object of GARM and no byte of its
// file changed by any of it; the first up only puts the markers around the provider entry, without a restart, and the
// program then previews no change; then a label change on one imported scale set and one `pulumi destroy`, which GARM
// lets through only in dependency order, leaving GARM's default endpoint and system templates.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { importPlan } from "../../cli/import-plan/command";
import { IMPORT_IDS, type ListedKind, hasImporter, tokenFor } from "../../cli/import-plan/import-ids";
import type { ImportFile } from "../../cli/import-plan/plan";
import { importSecretsConfig, populateGarm } from "../../harness/populated-garm";
import { REPO_ROOT } from "../../harness/pulumi-cli/project";
import { locateGarm } from "../../harness/real-garm";
import { type E2eEnvironment, startE2eEnvironment } from "../../harness/real-garm/environment";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "../integration/plugin/plugin-project";
import { withoutManagedBlocks } from "../../provider/kinds/garm-provider/managed-block";
import { blocksIn, startRestartControl } from "./scenario-support";
import { assertEndpointReferences, changeLabels, destroyLeavesGarmsOwn, unprotect } from "../integration/plugin/imported-lifecycle";

/** The file without the lines pulumi-garm's markers add around a block. */
function unmarked(text: string): string {
  return text
    .split(/(?<=\n)/)
    .filter((l) => !/^# (BEGIN|END) pulumi-garm provider "[^"]+"\n$/.test(l) && !l.startsWith("# pulumi-garm owner: ") && !l.startsWith("# Managed by pulumi-garm (GarmProvider)"))
    .join("");
}

/** The first place two JSON texts differ, for a failure message. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i >= a.length && i >= b.length ? "none" : `…${a.slice(Math.max(0, i - 160), i + 80)}… became …${b.slice(Math.max(0, i - 160), i + 80)}…`;
}
const kindOfToken = (token: string) => (Object.keys(IMPORT_IDS) as ListedKind[]).find((k) => tokenFor(k) === token)!;
/** What GARM holds, as its lists answer: unchanged by an import. */
const LISTS = ["/github/endpoints", "/gitea/endpoints", "/github/credentials", "/organizations", "/repositories", "/enterprises", "/templates", "/pools", "/scalesets", "/controller"];

describe("e2e: import-plan and pulumi import --file against real GARM v0.2.1 (garm plugin, YAML)", function () {
  this.timeout(600_000);
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
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await env?.stop();
  });

  it("imports what a team made over REST with no change to GARM, leaving GARM's own objects out; the written program previews no change, takes a label change and destroys in one run", async () => {
    env = await startE2eEnvironment();
    const login = { url: env.garm.url, username: env.garm.username, password: env.garm.password };
    await populateGarm(login);
    // The fixture wrote GARM's provider entry "fake" by hand, as an operator does; GarmProvider's import and delete run
    // this restart command (the fixture restarting GARM, with a record of each restart).
    const control = await startRestartControl(env.garm);
    cleanup.push(() => control.close());
    const handWritten = fs.readFileSync(env.garm.configPath, "utf8");
    // What GARM's own workers change on their own (GitHub's rate limit, pool manager status, the agent release cache, their timestamps) is
    // left out; every field a write could set stays.
    const volatile = new Set(["rate_limit", "pool_manager_status", "updated_at", "cached_garm_agent_release_fetched_at"]);
    const snapshot = async () =>
      JSON.stringify(await Promise.all(LISTS.map(async (p) => (await env!.garm.api("GET", p)).body)), (key, value) => (volatile.has(key) ? undefined : value));
    const before = await snapshot();

    let text = "";
    let progress = "";
    const garmConfig = ["--garm-config", env.garm.configPath, "--garm-restart-command", control.command];
    await importPlan(["--url", login.url, "--username", login.username, "--password", login.password, ...garmConfig], { stdout: (t) => (text += t), stderr: (t) => (progress += t), env: {} });
    const whole = JSON.parse(text) as ImportFile;
    assert.ok(!whole.resources.some((r) => r.type.endsWith("GarmEndpoint") && r.id === "github.com"), "GARM's default endpoint is referenced, not imported");
    const file: ImportFile = { resources: whole.resources.filter((r) => hasImporter(kindOfToken(r.type))) };
    console.log(`      import-plan: ${whole.resources.length} objects, ${file.resources.length} with an importer; ${progress.trim().split("\n").pop()}`);

    const home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
    cleanup.push(() => fs.rmSync(home, { recursive: true, force: true }));
    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-yaml"), home, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(buildPluginOnce());
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: garm-import-real\nruntime: yaml\n");
    await p.initStack("dev", {
      "garm:url": login.url,
      "garm:username": login.username,
      "garm:password": { value: login.password, secret: true },
      "garm:garmRestartCommand": control.command,
      ...(await importSecretsConfig(login)),
    });
    const planPath = path.join(p.workDir, "plan.json");
    fs.writeFileSync(planPath, JSON.stringify(file));
    const generated = path.join(p.workDir, "generated.yaml");
    await p.cli(["import", "--file", planPath, "--yes", "--out", generated]);
    const afterImport = await snapshot();
    assert.ok(afterImport === before, `importing changed nothing in GARM: ${firstDifference(before, afterImport)}`);
    assert.equal(fs.readFileSync(env.garm.configPath, "utf8"), handWritten, "importing changed nothing in GARM's config file");
    fs.appendFileSync(path.join(p.dir, "Pulumi.yaml"), fs.readFileSync(generated, "utf8"));

    // The one change an import leaves: the provider entry, written by hand, gets pulumi-garm's markers on the first up,
    // which restarts nothing.
    assert.ok(file.resources.some((r) => r.type === "garm:index:GarmProvider" && r.id === `${env!.garm.configPath}#fake`), "the plan imports the hand-written provider entry");
    const first = await p.preview();
    assert.deepEqual(first.changeSummary, { update: 1, same: file.resources.length }, JSON.stringify(first.changeSummary));
    assert.deepEqual(first.steps.filter((s) => s.op === "update").map((s) => s.urn.split("::").pop()), ["provider-fake"]);
    const said = await p.cli(["preview"]);
    assert.ok(said.stdout.includes(`GarmProvider "fake": this update puts pulumi-garm's markers around the hand-written block in ${env.garm.configPath}, byte for byte otherwise; GARM is not restarted`), said.stdout);
    const afterPreview = await snapshot();
    assert.ok(afterPreview === before, `the previews changed nothing in GARM: ${firstDifference(before, afterPreview)}`);
    await p.cli(["up", "--yes"]);
    const marked = fs.readFileSync(env.garm.configPath, "utf8");
    assert.equal(withoutManagedBlocks(marked).length < marked.length, true, "the entry is in a managed block now");
    assert.equal(blocksIn(marked).join(","), "fake");
    assert.equal(unmarked(marked), handWritten, "the up only put the markers around the hand-written entry");
    assert.deepEqual(control.events, [], "GARM is not restarted: it already runs the entry");
    await p.cli(["preview", "--expect-no-changes"]);
    assertEndpointReferences(fs.readFileSync(generated, "utf8"), file);

    await unprotect(p);
    await changeLabels(p, file.resources.find((r) => r.type === "garm:index:GarmScaleSet" && r.name.startsWith("scaleset-ci-small"))!, "relabelled", login);
    await destroyLeavesGarmsOwn(p, login);
    assert.equal(control.events.length, 1, "the provider entry's delete restarted GARM once");
    assert.ok(!fs.readFileSync(env.garm.configPath, "utf8").includes("[[provider]]"), "its entry is gone from GARM's config file");
  });
});
