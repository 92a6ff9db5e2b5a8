// examples/quickstart as a user runs it, against the REAL GARM v0.2.1 (mock GitHub, fake external provider): the package
// packed with `npm pack` and installed from the tarball into a copy of the project, then the real `pulumi` CLI (file
// backend, real Node language host) from that directory: preview, up, preview --expect-no-changes, an extra label,
// refresh, destroy. After each step the test reads GARM's own API and config file, not only the CLI's exit code.
// busy-destroy is not run here: on real GARM a job that completes while its scale set is disabled is only noticed by the
// 5-minute consolidation (garm-behaviour.md §7.5); test/e2e/scenarios.test.ts already pays that wait once.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { installFakeProvider, type FakeProvider } from "../../harness/fake-provider";
import { locateLanguageHost, locatePulumi } from "../../harness/pulumi-cli";
import { PulumiProject, packOnce, urnName } from "../../harness/pulumi-cli/project";
import { locateGarm, waitFor } from "../../harness/real-garm";
import { startE2eEnvironment, type E2eEnvironment } from "../../harness/real-garm/environment";
import { providerNamesIn, startRestartControl, type RestartControl } from "./scenario-support";

interface ScaleSet {
  id: number;
  name: string;
  provider_name?: string;
  enabled?: boolean;
  min_idle_runners?: number;
  org_name?: string;
}
interface Instance {
  name: string;
  status: string;
  runner_status?: string;
}

/** The GARM provider name the example's GarmProvider adds; the hand-written one startRealGarm writes is "fake". */
const PROVIDER = "pulumi-fake";

describe("e2e: examples/quickstart as users run it (npm tarball, `pulumi` from the project directory) against real GARM v0.2.1", function () {
  this.timeout(600_000);
  let env: E2eEnvironment | undefined;
  let control: RestartControl | undefined;
  let fake: FakeProvider;
  let agent: { stop(): void } | undefined;
  let project: PulumiProject | undefined;
  let originalConfig = "";
  let failed = false;

  const garm = () => env!.garm;
  const scaleSets = async () => (await garm().api<ScaleSet[]>("GET", "/scalesets")).body;
  const providerNames = async () => (await garm().api<{ name: string }[]>("GET", "/providers")).body.map((p) => p.name).sort();
  const idleRunner = (id: number) =>
    waitFor(
      `an idle runner in scale set ${id}`,
      async () => (await garm().api<Instance[]>("GET", `/scalesets/${id}/instances`)).body.find((i) => i.status === "running" && i.runner_status === "idle"),
      120_000,
    );

  before(async function () {
    locateGarm();
    locatePulumi();
    locateLanguageHost();
    const tarball = await packOnce();
    env = await startE2eEnvironment();
    originalConfig = fs.readFileSync(garm().configPath, "utf8");
    fake = installFakeProvider({ dir: path.join(env.workDir, "providers", PROVIDER), name: PROVIDER });
    // Acts as the runner: reports installing -> idle for each new instance, as a real runner agent would.
    agent = fake.startRunnerAgent({ intervalMs: 500 });
    control = await startRestartControl(env.garm);
    project = await PulumiProject.fromExample({ example: "quickstart", tarball, prefix: "pulumi-garm-e2e-quickstart-" });
    await project.initStack("dev", {
      "garm:url": garm().url,
      "garm:username": garm().username,
      "garm:password": { value: garm().password, secret: true },
      providerName: PROVIDER,
      providerExecutable: fake.executable,
      providerConfigFile: fake.configFile,
      garmConfigPath: garm().configPath,
      restartCommand: control.command,
    });
  });
  afterEach(function () {
    if (this.currentTest?.state === "failed") {
      failed = true;
      if (env) console.log(`    GARM log tail:\n${garm().logs().split("\n").slice(-40).join("\n")}`);
    }
  });
  after(async function () {
    if (project) console.log(`    (${project.timings()})`);
    agent?.stop();
    await control?.close();
    await env?.stop({ keep: failed });
    project?.close({ keep: failed });
  });

  it("preview, up, no-change preview, an extra label (replacement), refresh and destroy each leave GARM as the step says", async function () {
    const p = project!;
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { create: 3 });
    assert.deepEqual(await scaleSets(), [], "preview creates nothing");
    assert.deepEqual(await providerNames(), ["fake"]);
    assert.equal(fs.readFileSync(garm().configPath, "utf8"), originalConfig, "preview leaves GARM's config file alone");

    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    assert.deepEqual(await providerNames(), ["fake", PROVIDER]);
    assert.deepEqual(providerNamesIn(fs.readFileSync(garm().configPath, "utf8")).sort(), ["fake", PROVIDER]);
    assert.equal(control!.events.length, 1, "one GARM restart loads the new provider entry");
    const [set] = await scaleSets();
    assert.deepEqual(out, { providerName: PROVIDER, liveName: set.name, scaleSetId: set.id, labels: ["linux", "x64"] });
    assert.equal(set.provider_name, PROVIDER);
    assert.equal(set.org_name, "acme");
    assert.equal(set.min_idle_runners, 1);
    const first = await idleRunner(set.id);
    assert.deepEqual(fake.instances().map((i) => i.name), [first.name], "the runner comes from the provider the example added");

    await p.cli(["preview", "--expect-no-changes"]);

    await p.cli(["config", "set", "--path", "extraLabels[0]", "large"]);
    const change = await p.preview();
    assert.deepEqual(
      change.steps.filter((s) => s.op !== "same").map((s) => [urnName(s.urn), s.op, s.replaceReasons]),
      [["small", "replace", ["labels"]]],
    );
    assert.deepEqual((await scaleSets()).map((s) => s.id), [set.id], "preview changes nothing");
    await p.cli(["up", "--yes"]);
    const out2 = await p.outputs();
    assert.deepEqual(out2.labels, ["large", "linux", "x64"]);
    assert.deepEqual((await scaleSets()).map((s) => [s.id, s.name]), [[out2.scaleSetId, out2.liveName]], "only the new generation remains");
    assert.equal((await garm().api("GET", `/scalesets/${set.id}`)).status, 404);
    await idleRunner(Number(out2.scaleSetId));

    await p.cli(["refresh", "--yes"]);
    assert.deepEqual(await p.outputs(), out2, "refresh finds GARM as the stack recorded it");

    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(await scaleSets(), []);
    assert.deepEqual(await providerNames(), ["fake"]);
    assert.equal(fs.readFileSync(garm().configPath, "utf8"), originalConfig, "GARM's config file is back byte for byte");
    assert.deepEqual(await p.outputs(), {});
  });
});
