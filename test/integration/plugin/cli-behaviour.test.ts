// The garm plugin as a Pulumi user meets it in the CLI, through the real CLI and the real YAML host against the GARM
// simulator: bad connection settings fail preview naming the setting, a refused login is warned about at preview, the
// plugin's progress lines show under their resource, outputs that follow from the inputs are known at preview, and a
// preview after drift marks exactly the fields that differ from what GARM holds.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Simulator, startSimulator } from "../../../simulator";
import { GarmClient } from "../../../provider/garm/client";
import { liveName } from "../../../provider/runners/naming";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";
import { writes } from "./quickstart-scenario";

/** One scale set through the default provider; `drain` keeps destroys short. */
const PROGRAM = `name: garm-cli-behaviour
runtime: yaml
resources:
  small:
    type: garm:index:GarmScaleSet
    properties:
      name: ci-small
      organization: acme
      providerName: fake
      image: ubuntu-24.04
      flavor: small
      labels: [linux, x64]
      maxRunners: 2
      drain:
        timeoutSeconds: 60
        pollSeconds: 1
outputs:
  liveName: \${small.liveName}
`;

/** The lines the CLI's Diagnostics section shows under one resource (`garm:index:GarmScaleSet (small)`). */
function diagnosticsOf(stdout: string, resource: string): string {
  const section = stdout.split("\nDiagnostics:\n")[1] ?? "";
  const start = section.indexOf(`  ${resource}:\n`);
  if (start < 0) return "";
  const lines: string[] = [];
  for (const line of section.slice(start).split("\n").slice(1)) {
    if (!line.startsWith("    ")) break;
    lines.push(line.trim());
  }
  return lines.join("\n");
}

/**
 * Waits until GARM has `count` runners up and idle: a job started on a runner still booting would be overwritten by
 * its boot finishing (idle), which on a loaded machine happened after the job began.
 */
async function waitForRunners(sim: Simulator, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (sim.instances().filter((i) => i.status === "running" && i.runnerStatus === "idle").length < count) {
    if (Date.now() > deadline) throw new Error(`GARM never had ${count} runner(s)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the garm plugin in the CLI (real CLI, YAML host, simulator)", function () {
  this.timeout(300_000);
  let tarball: string;
  let home: string;
  const cleanup: (() => unknown)[] = [];

  before(function () {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) {
      throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    }
    tarball = buildPluginOnce();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
  });

  after(() => fs.rmSync(home, { recursive: true, force: true }));

  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function simulator(): Promise<Simulator> {
    const sim = await startSimulator({ tickMs: 25 });
    cleanup.push(() => sim.stop());
    return sim;
  }

  async function project(program = PROGRAM): Promise<PluginProject> {
    const source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-cli-src-"));
    cleanup.push(() => fs.rmSync(source, { recursive: true, force: true }));
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), program);
    const p = new PluginProject(source, home, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(tarball);
    return p;
  }

  const login = (sim: Simulator) => ({ "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });

  it("fails preview on bad connection settings, naming each setting", async () => {
    const sim = await simulator();
    const p = await project();
    await p.initStack("dev", { "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });
    const noUrl = await p.cli(["preview"], { expectOk: false });
    assert.notEqual(noUrl.code, 0, `preview without garm:url fails:\n${noUrl.stdout}`);
    assert.match(noUrl.stdout + noUrl.stderr, /garm:url is not set: run `pulumi config set garm:url/);

    await p.cli(["config", "set", "garm:url", `${sim.url}/api/v1`]);
    const apiV1 = await p.cli(["preview"], { expectOk: false });
    assert.notEqual(apiV1.code, 0);
    assert.match(apiV1.stdout + apiV1.stderr, /garm:url ".*\/api\/v1" ends in \/api\/v1, which pulumi-garm adds itself/);

    await p.cli(["config", "set", "garm:url", "ftp://x/api/v1"]);
    await p.cli(["config", "set", "garm:insecure", "maybe"]);
    const both = await p.cli(["preview"], { expectOk: false });
    assert.notEqual(both.code, 0);
    assert.match(both.stdout + both.stderr, /garm:url "ftp:\/\/x\/api\/v1" must start with https:\/\/ or http:\/\//);
    assert.match(both.stdout + both.stderr, /garm:insecure "maybe" must be true or false/);
    assert.deepEqual(sim.scaleSets(), []);
  });

  it("warns at preview when GARM refuses the login, and the preview still shows the plan", async () => {
    const sim = await simulator();
    const p = await project();
    await p.initStack("dev", { ...login(sim), "garm:password": { value: "not-the-password", secret: true } });
    const r = await p.cli(["preview"]);
    assert.match(r.stdout, /warning: GARM refused the login; preview goes on, but `pulumi up` will fail until it is fixed/);
    assert.match(r.stdout, /\+ 2 to create/);
    assert.ok(!r.stdout.includes("not-the-password"), "the password is not shown");
  });

  it("shows the plugin's lines in the CLI, under the resource they are about", async () => {
    const sim = await simulator();
    const p = await project();
    await p.initStack("dev", login(sim));
    await p.cli(["up", "--yes"]);
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), PROGRAM.replace("maxRunners: 2", "maxRunners: 3\n      minIdleRunners: 1"));
    const preview = await p.cli(["preview"]);
    assert.match(diagnosticsOf(preview.stdout, "garm:index:GarmScaleSet (small)"), /GarmScaleSet ci-small-\w+ \(id \d+\): will update maxRunners 2 → 3, minIdleRunners 0 → 1/, preview.stdout);
    await p.cli(["up", "--yes"]);
    await waitForRunners(sim, 1);
    const down = await p.cli(["destroy", "--yes"]);
    const lines = diagnosticsOf(down.stdout, "garm:index:GarmScaleSet (small)");
    assert.match(lines, /GarmScaleSet ci-small-\w+ \(id \d+\): draining: .*1.*; checking every 1s/, down.stdout);
    assert.match(lines, /GarmScaleSet ci-small-\w+ \(id \d+\): drained and deleted from GARM/, down.stdout);
  });

  it("knows liveName at preview, before GARM has the scale set, and asks GARM nothing to know it", async () => {
    const sim = await simulator();
    const p = await project();
    await p.initStack("dev", login(sim));
    sim.clearRequests();
    const preview = await p.cli(["preview"]);
    const expected = liveName("ci-small", ["linux", "x64"], "fake", "hashed");
    assert.match(preview.stdout, new RegExp(`liveName: "${expected}"`), preview.stdout);
    assert.deepEqual(writes(sim), [], "preview changes nothing in GARM");
    await p.cli(["up", "--yes"]);
    assert.equal((await p.outputs()).liveName, expected, "what preview showed is what up made");
    await p.cli(["destroy", "--yes"]);
  });

  it("follows a garm:url move: the same GARM is no change, another GARM replaces each resource there and deletes it here", async () => {
    const first = await simulator();
    const p = await project();
    await p.initStack("dev", login(first));
    await p.cli(["up", "--yes"]);
    const [ours] = first.scaleSets();

    await p.cli(["config", "set", "garm:url", first.url.replace("127.0.0.1", "localhost")]);
    await p.cli(["preview", "--expect-no-changes"]);

    const second = await simulator();
    await p.cli(["config", "set", "garm:url", second.url]);
    await p.cli(["config", "set", "--secret", "garm:password", second.password]);
    const plan = await p.preview();
    const step = plan.steps.find((s) => s.urn.endsWith("::small"));
    assert.equal(step?.op, "replace", JSON.stringify(plan.steps));
    const said = await p.cli(["preview"]);
    assert.match(said.stdout, new RegExp(`reaches another GARM \\(controller ${second.controllerId()}\\) than the one this provider's resources live in \\(controller ${first.controllerId()}`), said.stdout);
    await p.cli(["up", "--yes"]);
    assert.deepEqual(first.scaleSets(), [], `${ours.name} was drained and deleted from the GARM it lived in`);
    assert.equal(second.scaleSets()[0]?.name, ours.name, "and made in the new one");
    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(second.scaleSets(), []);
  });

  it("refuses, naming both GARMs, a move whose old GARM does not answer, and keeps the scale set in state", async () => {
    const first = await simulator();
    const p = await project();
    await p.initStack("dev", login(first));
    await p.cli(["up", "--yes"]);
    first.stopServing("refuse");
    const second = await simulator();
    await p.cli(["config", "set", "garm:url", second.url]);
    await p.cli(["config", "set", "--secret", "garm:password", second.password]);
    const refusal = new RegExp(`lives in GARM ${first.controllerId()}, but garm:url ${second.url.replace(/[.:/]/g, "\\$&")} reaches GARM ${second.controllerId()}`);
    const preview = await p.cli(["preview"], { expectOk: false });
    assert.notEqual(preview.code, 0);
    assert.match(preview.stdout + preview.stderr, refusal);
    // A refresh reads through the provider as state records it (the old GARM's URL), which does not answer.
    const refresh = await p.cli(["refresh", "--yes"], { expectOk: false });
    assert.notEqual(refresh.code, 0, "refresh fails instead of dropping the scale set");
    const state = JSON.parse((await p.cli(["stack", "export"])).stdout) as { deployment: { resources: { urn: string }[] } };
    assert.ok(state.deployment.resources.some((r) => r.urn.endsWith("::small")), "the scale set is still in state");
    assert.deepEqual(second.scaleSets(), []);
    await first.resumeServing();
  });

  /** The detailed diff the engine holds for the scale set's step of `pulumi preview --json`: field → kind. */
  async function scaleSetMarks(p: PluginProject): Promise<{ op: string; marks: Record<string, string>; diffReasons: string[] }> {
    const { steps } = await p.preview();
    const step = steps.find((s) => s.urn.endsWith("::small"));
    assert.ok(step, `preview has a step for the scale set: ${JSON.stringify(steps)}`);
    const marks = Object.fromEntries(Object.entries(step.detailedDiff ?? {}).map(([field, d]) => [field, d.kind]));
    return { op: step.op, marks, diffReasons: step.diffReasons ?? [] };
  }

  it("after a refresh picked up drift in GARM, preview marks exactly the drifted field", async () => {
    const sim = await simulator();
    const p = await project();
    await p.initStack("dev", login(sim));
    await p.cli(["up", "--yes"]);
    const [held] = sim.scaleSets();
    // Someone changes the scale set in GARM itself.
    await new GarmClient({ url: sim.url, username: sim.username, password: sim.password }).updateScaleSet(held!.id, { max_runners: 5 });
    await p.cli(["refresh", "--yes"]);
    assert.deepEqual(await scaleSetMarks(p), { op: "update", marks: { maxRunners: "update" }, diffReasons: ["maxRunners"] });
    // The CLI shows GARM's value (from the refreshed outputs) going back to the program's.
    const shown = await p.cli(["preview", "--diff"]);
    assert.match(shown.stdout, /~ maxRunners\s*: 5 => 2/, shown.stdout);
    await p.cli(["up", "--yes"]);
    assert.equal(sim.scaleSets()[0]!.maxRunners, 2, "up puts the program's value back");
    assert.deepEqual((await p.preview()).changeSummary, { same: 2 }, "and then nothing is left to change");
  });

  it("marks only the real change when the program also reorders the labels", async () => {
    const sim = await simulator();
    const p = await project();
    await p.initStack("dev", login(sim));
    await p.cli(["up", "--yes"]);
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), PROGRAM.replace("labels: [linux, x64]", "labels: [X64, linux]").replace("maxRunners: 2", "maxRunners: 3"));
    assert.deepEqual(await scaleSetMarks(p), { op: "update", marks: { maxRunners: "update" }, diffReasons: ["maxRunners"] });
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), PROGRAM.replace("labels: [linux, x64]", "labels: [x64, linux, gpu]"));
    const relabelled = await scaleSetMarks(p);
    assert.deepEqual([relabelled.op, relabelled.marks], ["replace", { labels: "update-replace" }], "a real label change replaces, marked on labels alone");
  });

  it("says in one warning line when GARM's version is not one this release was tested against", async () => {
    const sim = await startSimulator({ tickMs: 25, behaviour: "head" });
    cleanup.push(() => sim.stop());
    const p = await project();
    await p.initStack("dev", login(sim));
    const r = await p.cli(["preview"]);
    // The CLI shows a diagnostic as it comes and again in the summary: one line there, under the provider.
    const lines = diagnosticsOf(r.stdout, "pulumi:providers:garm (default)").split("\n").filter((l) => l.includes("GARM reports version"));
    assert.equal(lines.length, 1, r.stdout);
    assert.match(lines[0]!, /warning: GARM reports version "v0.2.1-96-gafda4e76", but this pulumi-garm release was tested against v0.2.1 only/);
    const tested = await simulator();
    const q = await project();
    await q.initStack("dev", login(tested));
    assert.ok(!(await q.cli(["preview"])).stdout.includes("GARM reports version"), "a tested GARM gets no warning");
  });

  it("stops a drain on Ctrl-C: the run ends within 30 s, the busy runner is untouched, and the next destroy finishes the drain", async () => {
    // A disabled scale set has no listener, so GARM learns that the job ended from its consolidation (§7.5): soon here.
    const sim = await startSimulator({ tickMs: 25, consolidationMs: 1000 });
    cleanup.push(() => sim.stop());
    // A drain that would wait an hour, checking every 30 s: only the cancellation ends it within the test's bound.
    const program = PROGRAM.replace("maxRunners: 2", "maxRunners: 2\n      minIdleRunners: 1").replace(
      "timeoutSeconds: 60\n        pollSeconds: 1",
      "timeoutSeconds: 3600\n        pollSeconds: 30",
    );
    const p = await project(program);
    await p.initStack("dev", login(sim));
    await p.cli(["up", "--yes"]);
    await waitForRunners(sim, 1);
    const busy = sim.instances()[0]!.name;
    sim.startJob(busy);

    let signalledAt = 0;
    let exitedAt = 0;
    const down = await p.cli(["destroy", "--yes"], {
      expectOk: false,
      timeoutMs: 180_000,
      onStart: (child) => {
        let seen = "";
        child.stdout?.on("data", (chunk: string) => {
          seen += chunk;
          // The drain has started: its first pass found the runner busy. One Ctrl-C, as a user presses it.
          if (signalledAt === 0 && /draining: 1 busy \[/.test(seen)) {
            signalledAt = Date.now();
            sim.clearRequests();
            child.kill("SIGINT");
          }
        });
        child.on("exit", () => (exitedAt = Date.now()));
      },
    });
    assert.ok(signalledAt > 0, `the drain started before the run ended:\n${down.stdout}`);
    assert.ok(exitedAt - signalledAt < 30_000, `the run ended ${exitedAt - signalledAt} ms after Ctrl-C:\n${down.stdout}`);
    assert.notEqual(down.code, 0, "the destroy did not finish");
    // The destroy's preview has a Diagnostics section of its own: look at the whole output.
    assert.match(
      down.stdout,
      /error: GarmScaleSet ci-small-\w+ \(id \d+\): cancelled while draining: the scale set stays disabled, its runners as last seen: 1 busy \[[^\n]*; running jobs are not interrupted\. Pulumi keeps it in its state: the next `pulumi destroy` retries the delete/,
      down.stdout,
    );
    assert.deepEqual(writes(sim), [], "no GARM change after Ctrl-C");

    const runner = sim.instances().find((r) => r.name === busy);
    assert.ok(runner, "the busy runner is still in GARM");
    assert.equal(runner.runnerStatus, "active", "and still running its job");
    assert.equal(sim.scaleSets().length, 1);
    assert.equal(sim.scaleSets()[0]!.enabled, false, "the scale set stays disabled");

    sim.completeJob(busy);
    const again = await p.cli(["destroy", "--yes"]);
    assert.match(again.stdout, /- 2 deleted/, again.stdout);
    assert.deepEqual(sim.scaleSets(), []);
  });
});
