// Runs each program of examples/ with the real Pulumi CLI (Automation API inline mode, local file backend) against the
// GARM simulator, and checks what GARM ends up holding, not only what Pulumi printed.
import * as assert from "node:assert/strict";
import type { ExampleConfig, ExampleProgram } from "../../../examples/config";
import { program as busyDestroy } from "../../../examples/busy-destroy";
import { program as labelChange } from "../../../examples/label-change";
import { program as quickstart } from "../../../examples/quickstart";
import { program as twoProviders } from "../../../examples/two-providers";
import { INITIAL_GARM_CONFIG, type SimulatedHost, startSimulatedHost, waitFor } from "../../../scripts/demo/host";
import { diagnosticsErrors, providerMessages, summarizeCalls } from "../../../scripts/demo/transcript";
import { type PulumiOp, type RunPulumiResult, locatePulumi, runPulumi } from "../../support/pulumi-cli";

describe("examples/ with the real Pulumi CLI and the GARM simulator", function () {
  this.timeout(120_000);
  let host: SimulatedHost;

  before(function () {
    try {
      locatePulumi();
    } catch (err) {
      // The only reason to skip: these tests exist to drive the real CLI (make test builds it via make tools).
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    host = await startSimulatedHost({ prefix: "pulumi-garm-examples-it-" });
  });
  afterEach(async function () {
    const failed = this.currentTest?.state === "failed";
    if (failed) console.log(`      simulator log:\n        ${host.simLog.slice(-30).join("\n        ")}`);
    await host.close({ keep: failed && process.env.KEEP_E2E_DIRS === "1" });
  });

  /** One CLI operation on the test's stack; resets the simulator's request log first. */
  async function pulumi(op: PulumiOp, prog: ExampleProgram, expectOk = true): Promise<RunPulumiResult> {
    host.sim.clearRequests();
    const r = await runPulumi({ workDir: host.pulumiDir, stackName: "it", projectName: "examples-it", program: prog, config: host.stackConfig, op });
    if (expectOk) assert.ok(r.exitOk, `pulumi ${op} failed: ${r.error?.message}\n${r.stdout}\n${r.stderr}`);
    return r;
  }
  const writes = () => summarizeCalls(host.sim.requests()).writes;
  const idleRunner = (scaleSetId: number) =>
    waitFor(`an idle runner in scale set ${scaleSetId}`, () =>
      host.sim.instances().find((i) => i.scaleSetId === scaleSetId && i.status === "running" && i.runnerStatus === "idle"),
    );
  /** After a destroy: GARM holds nothing the example made, and the operator's config file is back byte for byte. */
  function assertAllGone() {
    assert.deepEqual(host.sim.scaleSets(), []);
    assert.deepEqual(host.sim.providers(), []);
    assert.deepEqual(host.sim.instances(), []);
    assert.equal(host.garmConfig(), INITIAL_GARM_CONFIG);
  }

  it("quickstart: preview changes nothing, up creates the provider and a scale set with an idle runner, destroy removes both", async () => {
    const prog = quickstart(host.cfg);
    const preview = await pulumi("preview", prog);
    assert.equal(preview.changeSummary?.create, 3); // stack, GarmProvider, GarmScaleSet
    assert.deepEqual(writes(), [], "preview must not change GARM");

    const up = await pulumi("up", prog);
    assert.deepEqual(host.sim.providers().map((p) => p.name), ["fake"]);
    assert.equal(host.sim.scaleSets().length, 1);
    const [set] = host.sim.scaleSets();
    assert.equal(set.id, up.outputs.scaleSetId);
    assert.equal(set.name, up.outputs.liveName);
    assert.match(set.name, /^ci-small-[0-9a-f]{8}$/);
    assert.equal(set.entityId, host.sim.organizationId);
    assert.equal(set.providerName, "fake");
    assert.equal(set.minIdleRunners, 1);
    await idleRunner(set.id);

    const again = await pulumi("up", prog);
    assert.equal(again.changeSummary?.same, 3, `an unchanged up must be a no-op: ${JSON.stringify(again.changeSummary)}`);
    assert.deepEqual(writes(), [], "an unchanged up must not change GARM");

    await pulumi("destroy", prog);
    assertAllGone();
  });

  it("label-change: the new generation is created before the old one is disabled, drained and deleted", async () => {
    const v1: ExampleConfig & { labels: string[] } = { ...host.cfg, labels: ["linux", "x64", "gpu"] };
    const up1 = await pulumi("up", labelChange(v1));
    const oldId = Number(up1.outputs.scaleSetId);
    const oldName = String(up1.outputs.liveName);
    assert.equal(host.sim.scaleSets().find((s) => s.id === oldId)?.entityId, host.sim.repositoryId);
    const oldRunner = await idleRunner(oldId);

    const v2 = labelChange({ ...v1, labels: ["linux", "x64", "gpu", "CUDA"] });
    const preview = await pulumi("preview", v2);
    assert.equal(preview.changeSummary?.replace, 1, `a label change must show as a replacement: ${JSON.stringify(preview.changeSummary)}`);
    assert.match(preview.stdout, /GarmScaleSet gpu replace \[diff: ~labels\]/);
    assert.deepEqual(writes(), []);

    const up2 = await pulumi("up", v2);
    const newId = Number(up2.outputs.scaleSetId);
    assert.notEqual(String(up2.outputs.liveName), oldName);
    assert.deepEqual(up2.outputs.labels, ["cuda", "gpu", "linux", "x64"]);
    assert.deepEqual(host.sim.scaleSets().map((s) => s.id), [newId], "only the new generation remains");
    assert.ok(!host.sim.instances().some((i) => i.name === oldRunner.name), "the old generation's runner is gone");
    const order = writes();
    const created = order.findIndex((w) => /^POST \/repositories\/\{id\}\/scalesets$/.test(w));
    const disabled = order.indexOf(`PUT /scalesets/${oldId}`);
    assert.ok(created >= 0 && disabled > created, `new generation first, then the old one disabled: ${order.join(", ")}`);
    assert.ok(order.indexOf(`DELETE /scalesets/${oldId}`) > disabled, order.join(", "));
    await idleRunner(newId);

    await pulumi("destroy", v2);
    assertAllGone();
  });

  it("two-providers: both entries land in GARM's config, a scale set on each; destroy removes scale sets before providers", async () => {
    const prog = twoProviders(host.cfg);
    const restarts = host.restarts();
    const up = await pulumi("up", prog);
    assert.deepEqual(host.sim.providers().map((p) => p.name).sort(), ["east", "west"]);
    const upRestarts = host.restarts() - restarts;
    // Both creates run in the one provider process; the restart is coalesced when they land together.
    assert.ok(upRestarts >= 1 && upRestarts <= 2, `GARM restarts during up: ${upRestarts}`);
    const byProvider = Object.fromEntries(host.sim.scaleSets().map((s) => [s.providerName, s.name]));
    assert.deepEqual(byProvider, { east: up.outputs.eastLiveName, west: up.outputs.westLiveName });
    const config = host.garmConfig();
    assert.ok(config.startsWith(INITIAL_GARM_CONFIG), "the operator's part of the config file is kept");
    assert.match(config, /name = "east"[\s\S]*name = "west"|name = "west"[\s\S]*name = "east"/);

    const logFrom = host.simLog.length;
    await pulumi("destroy", prog);
    const destroyLog = host.simLog.slice(logFrom);
    const lastScaleSetDelete = Math.max(...destroyLog.map((l, i) => (/^deleted scale set/.test(l) ? i : -1)));
    const firstRestart = destroyLog.indexOf("restarting");
    assert.ok(lastScaleSetDelete >= 0 && firstRestart > lastScaleSetDelete, `scale sets deleted before providers:\n${destroyLog.join("\n")}`);
    assertAllGone();
    console.log(`      (GARM restarts: ${upRestarts} for up, ${host.restarts() - restarts - upRestarts} for destroy)`);
  });

  it("busy-destroy: a busy runner fails the destroy by name and keeps everything; after the job completes destroy succeeds", async () => {
    const prog = busyDestroy({ ...host.cfg, drain: { timeoutSeconds: 3, pollSeconds: 1 } });
    const up = await pulumi("up", prog);
    const id = Number(up.outputs.scaleSetId);
    const runner = (await idleRunner(id)).name;
    host.sim.startJob(runner);

    const failed = await pulumi("destroy", prog, false);
    assert.equal(failed.exitOk, false, "destroy must fail while a job runs");
    const errors = diagnosticsErrors(`${failed.stdout}\n${failed.stderr}`).join("\n");
    assert.match(errors, new RegExp(`${runner}.*(job|busy)`), `the error names the busy runner:\n${failed.stdout}`);
    assert.match(errors, /the next `pulumi destroy` retries the delete/);
    assert.ok(providerMessages(failed.stdout).some((m) => m.includes("draining") && m.includes(runner)), "progress lines name the runner");
    // Nothing was cut short: the scale set is kept disabled, the runner still runs its job, the provider entry stays.
    const set = host.sim.scaleSets().find((s) => s.id === id);
    assert.ok(set, "the scale set must survive a failed drain");
    assert.equal(set.enabled, false);
    assert.equal(host.sim.instances().find((i) => i.name === runner)?.runnerStatus, "active");
    assert.ok(host.sim.jobs().some((j) => j.status === "in_progress"));
    assert.deepEqual(host.sim.providers().map((p) => p.name), ["fake"]);

    host.sim.completeJob(runner);
    await pulumi("destroy", prog);
    assertAllGone();
    console.log(`      (the failed destroy said: ${errors.split("\n")[0]})`);
  });
});
