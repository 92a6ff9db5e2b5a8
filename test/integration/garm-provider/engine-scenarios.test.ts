// GarmProvider and GarmScaleSet together, through the engine harness, against the GARM simulator (issue:
// GarmProvider). The provider processes load this checkout through node_modules/pulumi-garm, edit a real GARM config
// file in a temp dir and restart the simulator with a real shell command (curl to its restart control), so what is
// checked here is what a `pulumi up` would do: the order the engine runs the two resources in, and what GARM sees.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import type { Engine, StepRecord } from "../../../harness/engine";
import type { Simulator } from "../../../simulator";
import { mutatingCalls } from "../scaleset/fixture";
import { Client } from "../simulator/helpers";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { BEGIN, blocksIn, type Fixture, HAND_WRITTEN, startFixture } from "./engine-fixture";

/** The RPCs of one operation: `engine.steps` from `from` on. */
function rpcsSince(engine: Engine, from: number, op?: StepRecord["op"]): StepRecord[] {
  return engine.steps.slice(from).filter((s) => op === undefined || s.op === op);
}

function seqOf(rpcs: StepRecord[], op: StepRecord["op"], name: string): number {
  const s = rpcs.find((r) => r.op === op && r.name === name && r.ok);
  assert.ok(s, `no successful ${op} of ${name} in\n${rpcs.map((r) => `${r.seq} ${r.op} ${r.name} ${r.ok}`).join("\n")}`);
  return s.seq;
}

const names = (sim: Simulator) => sim.providers().map((p) => p.name).sort();

describe("GarmProvider and GarmScaleSet through the engine against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: Fixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  it("1. keeps a departing provider until its draining scale set is gone, then deletes scale set before provider (§9.3)", async () => {
    fx = await startFixture();
    const { sim, engine } = fx;
    const alpha = [fx.provider("prov-alpha", "alpha"), fx.scaleSet("ss-alpha", "prov-alpha")];
    const beta = [fx.provider("prov-beta", "beta"), fx.scaleSet("ss-beta", "prov-beta")];

    // Both blocks are written, then GARM restarts once for both (it loads providers only at start, §9.2), and only
    // then are the scale sets created: GarmScaleSet refuses a provider GET /providers does not list (§9.3).
    let mark = engine.steps.length;
    const first = await engine.up([...alpha, ...beta]);
    assert.ok(first.ok, JSON.stringify(first.errors));
    assert.deepEqual([...first.created].sort(), ["prov-alpha", "prov-beta", "ss-alpha", "ss-beta"]);
    assert.equal(fx.restarts.length, 1, `one restart for both providers: ${JSON.stringify(fx.restarts)}`);
    assert.deepEqual(fx.restarts[0].blocks.sort(), ["alpha", "beta"]);
    const creates = rpcsSince(engine, mark, "create");
    for (const ss of ["ss-alpha", "ss-beta"]) {
      for (const p of ["prov-alpha", "prov-beta"]) {
        const provDone = creates.find((r) => r.name === p)!;
        assert.ok(seqOf(creates, "create", ss) > provDone.seq, `${ss} created before ${p}`);
      }
    }
    assert.deepEqual(names(sim), ["alpha", "beta"]);
    assert.ok((await fs.readFile(fx.file, "utf8")).startsWith(HAND_WRITTEN), "text outside the managed blocks is kept");
    const ssAlpha = sim.scaleSets().find((s) => s.providerName === "alpha")!;
    const ssBeta = sim.scaleSets().find((s) => s.providerName === "beta")!;
    assert.ok(ssAlpha && ssBeta, JSON.stringify(sim.scaleSets()));

    // A CI job runs on beta's scale set while beta is taken out of the program.
    const busy = sim.addRunner(ssBeta.id, { name: "garm-beta-busy" });
    sim.startJob(busy);
    sim.clearRequests();
    mark = engine.steps.length;
    const second = await engine.up(alpha);
    assert.equal(second.ok, false, "the run cannot finish while beta's runner is busy");
    assert.match(String(second.errors["ss-beta"]), /garm-beta-busy/);
    assert.equal(second.errors["prov-beta"], undefined, "the provider delete is not even attempted");
    assert.ok(
      second.steps.some((s) => s.name === "prov-beta" && s.op === "delete" && s.skipped),
      `prov-beta's delete is skipped: ${JSON.stringify(second.steps)}`,
    );
    assert.deepEqual(rpcsSince(engine, mark, "delete").map((r) => r.name), ["ss-beta"]);
    // Beta's scale set drains (disabled), and its provider stays in the file and loaded in GARM: without it GARM has
    // no worker to tear the runner down once the job ends, and the drain could never finish (§9.3).
    const draining = sim.scaleSets().find((s) => s.id === ssBeta.id);
    assert.equal(draining?.enabled, false);
    assert.equal(draining?.maxRunners, 0);
    assert.equal(sim.instances().find((i) => i.name === busy)?.runnerStatus, "active");
    const during = await fs.readFile(fx.file, "utf8");
    assert.deepEqual(blocksIn(during).sort(), ["alpha", "beta"]);
    assert.deepEqual(names(sim), ["alpha", "beta"]);
    assert.equal(fx.restarts.length, 1, "no restart while beta still has a scale set");
    // Alpha is untouched: both of its resources are unchanged and no write reached its scale set.
    assert.deepEqual([...second.same].sort(), ["prov-alpha", "ss-alpha"]);
    assert.deepEqual(mutatingCalls(sim).filter((r) => r.path.includes(`/scalesets/${ssAlpha.id}`)), []);
    assert.equal(sim.scaleSets().find((s) => s.id === ssAlpha.id)?.enabled, true);
    assert.deepEqual(engine.state().resources.map((r) => r.name).sort(), ["prov-alpha", "prov-beta", "ss-alpha", "ss-beta"]);

    // The job ends; beta's provider (still loaded) tears the runner down, and the next up finishes the retirement in
    // dependency order: the scale set first, then the provider block, with one restart to unload it.
    sim.completeJob(busy);
    sim.clearRequests();
    mark = engine.steps.length;
    const third = await engine.up(alpha);
    assert.ok(third.ok, JSON.stringify(third.errors));
    assert.deepEqual(third.deleted, ["ss-beta", "prov-beta"]);
    const deletes = rpcsSince(engine, mark, "delete");
    assert.ok(seqOf(deletes, "delete", "prov-beta") > seqOf(deletes, "delete", "ss-beta"));
    const calls = sim.requests().map((r) => `${r.method} ${r.path}`);
    const deletedAt = calls.indexOf(`DELETE /api/v1/scalesets/${ssBeta.id}`);
    assert.ok(deletedAt >= 0, calls.join("\n"));
    assert.equal(fx.restarts.length, 2, JSON.stringify(fx.restarts));
    assert.ok(fx.restarts[1].afterRequests > deletedAt, `the restart that unloads beta follows the scale set's delete:\n${calls.join("\n")}`);
    assert.deepEqual(fx.restarts[1].blocks, ["alpha"], "beta's block was removed before that restart");
    assert.equal(sim.scaleSets().find((s) => s.id === ssBeta.id), undefined);
    assert.deepEqual(names(sim), ["alpha"]);
    const after = await fs.readFile(fx.file, "utf8");
    assert.deepEqual(blocksIn(after), ["alpha"]);
    assert.ok(after.startsWith(HAND_WRITTEN));
    assert.equal(sim.scaleSets().find((s) => s.id === ssAlpha.id)?.enabled, true);
  });

  it("2. refuses to delete a provider an unmanaged scale set still names, listing it, and deletes it once it is gone", async () => {
    fx = await startFixture();
    const { sim, engine } = fx;
    const created = await engine.up([fx.provider("prov-gamma", "gamma")]);
    assert.ok(created.ok, JSON.stringify(created.errors));
    assert.deepEqual(names(sim), ["gamma"]);

    // A scale set this stack does not manage, made by someone else straight through GARM's API.
    const api = new Client(sim);
    await api.login();
    const foreign = await api.createScaleSet({ name: "someone-elses", provider_name: "gamma" });

    const refused = await engine.up([]);
    assert.equal(refused.ok, false);
    const message = String(refused.errors["prov-gamma"]);
    assert.match(message, new RegExp(`scale set "someone-elses" \\(id ${foreign.id}, organization acme\\)`));
    assert.match(message, /retry the delete on the next run/);
    // Issue 13 item 1: the message explains itself; it cites no document the user does not have.
    assert.doesNotMatch(message, /garm-api\.md|§/);
    assert.ok(blocksIn(await fs.readFile(fx.file, "utf8")).includes("gamma"), "the block stays");
    assert.deepEqual(names(sim), ["gamma"]);
    assert.equal(fx.restarts.length, 1, "no restart for a refused delete");
    assert.deepEqual(engine.state().resources.map((r) => r.name), ["prov-gamma"]);

    // Once its owner removes it (created disabled, so GARM deletes it directly, §5), the retried delete goes through.
    const del = await api.del(`/scalesets/${foreign.id}`);
    assert.equal(del.status, 200, del.text);
    const retried = await engine.up([]);
    assert.ok(retried.ok, JSON.stringify(retried.errors));
    assert.deepEqual(retried.deleted, ["prov-gamma"]);
    assert.deepEqual(names(sim), []);
    assert.equal(await fs.readFile(fx.file, "utf8"), HAND_WRITTEN, "the file is back to what the operator wrote");
  });

  it("3. a provider rename replaces provider and scale set: new block and restart first, old scale set drained, old block last", async () => {
    fx = await startFixture();
    const { sim, engine } = fx;
    const v1 = [fx.provider("prov", "alpha"), fx.scaleSet("ss", "prov")];
    const up1 = await engine.up(v1);
    assert.ok(up1.ok, JSON.stringify(up1.errors));
    const [old] = sim.scaleSets();
    assert.equal(old.providerName, "alpha");
    const restartsBefore = fx.restarts.length;
    const fileBefore = await fs.readFile(fx.file, "utf8");

    const v2 = [fx.provider("prov", "alpha2"), fx.scaleSet("ss", "prov")];
    sim.clearRequests();
    const preview = await engine.preview(v2);
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    assert.deepEqual(preview.diffs.prov?.replaces, ["name"]);
    assert.equal(preview.diffs.prov?.deleteBeforeReplace, false);
    assert.deepEqual(preview.diffs.ss?.replaces, ["providerName"]);
    assert.equal(preview.diffs.ss?.deleteBeforeReplace, false, "the new live name differs, so create-before-delete");
    assert.deepEqual([...preview.replaced].sort(), ["prov", "ss"]);
    // Preview changes nothing: no GARM write, no restart, no file edit.
    assert.deepEqual(mutatingCalls(sim), []);
    assert.equal(fx.restarts.length, restartsBefore);
    assert.equal(await fs.readFile(fx.file, "utf8"), fileBefore);

    sim.clearRequests();
    const mark = engine.steps.length;
    const up2 = await engine.up(v2);
    assert.ok(up2.ok, JSON.stringify(up2.errors));
    assert.deepEqual([...up2.replaced].sort(), ["prov", "ss"]);

    const [now] = sim.scaleSets();
    assert.equal(sim.scaleSets().length, 1);
    assert.notEqual(now.id, old.id);
    assert.equal(now.providerName, "alpha2");
    // The live name hashes the provider name with the labels, so the new generation never collides with the old one.
    assert.notEqual(now.name, old.name);
    assert.match(now.name, /^ci-ss-[0-9a-f]{8}$/);

    const calls = sim.requests().map((r) => `${r.method} ${r.path}`);
    const list = calls.join("\n");
    const createdAt = calls.indexOf(`POST /api/v1/organizations/${sim.organizationId}/scalesets`);
    const disabledAt = calls.indexOf(`PUT /api/v1/scalesets/${old.id}`);
    const deletedAt = calls.indexOf(`DELETE /api/v1/scalesets/${old.id}`);
    assert.ok(createdAt >= 0 && disabledAt > createdAt && deletedAt > disabledAt, list);
    const during = fx.restarts.slice(restartsBefore);
    assert.equal(during.length, 2, `one restart to load alpha2, one to unload alpha: ${JSON.stringify(during)}`);
    // First restart: the file holds both blocks, before the new scale set is created under alpha2.
    assert.deepEqual(during[0].blocks.sort(), ["alpha", "alpha2"]);
    assert.ok(during[0].afterRequests <= createdAt, list);
    // Last restart: alpha's block is gone, and only after its old scale set was deleted (§9.3).
    assert.deepEqual(during[1].blocks, ["alpha2"]);
    assert.ok(during[1].afterRequests > deletedAt, list);

    const rpcs = rpcsSince(engine, mark);
    const provCreate = rpcs.find((r) => r.op === "create" && r.name === "prov" && r.ok)!;
    const ssCreate = rpcs.find((r) => r.op === "create" && r.name === "ss" && r.ok)!;
    const deletes = rpcs.filter((r) => r.op === "delete" && r.ok);
    assert.deepEqual(deletes.map((d) => `${d.name}:${d.id}`), [`ss:${old.id}`, `prov:${fx.file}#alpha`]);
    assert.ok(provCreate.seq < ssCreate.seq && ssCreate.seq < deletes[0].seq);

    assert.deepEqual(names(sim), ["alpha2"]);
    const fileAfter = await fs.readFile(fx.file, "utf8");
    assert.deepEqual(blocksIn(fileAfter), ["alpha2"]);
    assert.ok(fileAfter.startsWith(HAND_WRITTEN));
    assert.ok(!fileAfter.includes(BEGIN("alpha")));
    assert.deepEqual(engine.state().resources.map((r) => `${r.name}:${r.id}:${r.pendingDelete}`).sort(), [
      `prov:${fx.file}#alpha2:false`,
      `ss:${now.id}:false`,
    ]);
  });

  it("4. a description change restarts GARM once and GET /providers shows it; an unchanged up changes nothing", async () => {
    fx = await startFixture();
    const { sim, engine } = fx;
    const up1 = await engine.up([fx.provider("prov", "alpha"), fx.scaleSet("ss", "prov")]);
    assert.ok(up1.ok, JSON.stringify(up1.errors));
    const [ss] = sim.scaleSets();
    const restartsBefore = fx.restarts.length;

    const v2 = [fx.provider("prov", "alpha", { description: "alpha runners, v2" }), fx.scaleSet("ss", "prov")];
    sim.clearRequests();
    const up2 = await engine.up(v2);
    assert.ok(up2.ok, JSON.stringify(up2.errors));
    assert.deepEqual(up2.updated, ["prov"]);
    assert.deepEqual(up2.same, ["ss"]);
    assert.deepEqual(up2.diffs.prov?.replaces, []);
    assert.equal(fx.restarts.length - restartsBefore, 1);
    assert.equal(sim.providers().find((p) => p.name === "alpha")?.description, "alpha runners, v2");
    // The scale set keeps running on the provider through the restart: nothing was written to it.
    assert.deepEqual(mutatingCalls(sim), []);
    assert.equal(sim.scaleSets().find((s) => s.id === ss.id)?.enabled, true);

    const fileBefore = await fs.readFile(fx.file, "utf8");
    const { mtimeMs } = await fs.stat(fx.file);
    sim.clearRequests();
    const up3 = await engine.up(v2);
    assert.ok(up3.ok, JSON.stringify(up3.errors));
    assert.deepEqual([...up3.same].sort(), ["prov", "ss"]);
    assert.equal(fx.restarts.length - restartsBefore, 1, "no restart for an unchanged up");
    assert.deepEqual(mutatingCalls(sim), []);
    assert.equal(await fs.readFile(fx.file, "utf8"), fileBefore);
    assert.equal((await fs.stat(fx.file)).mtimeMs, mtimeMs, "the config file is not rewritten");
  });

  it("5. restarts while beta's scale set drains (one by the same up, one from outside) keep beta loaded, so the drain can finish", async () => {
    fx = await startFixture();
    const { sim, engine } = fx;
    const alpha = (description?: string) => [
      fx!.provider("prov-alpha", "alpha", description ? { description } : {}),
      fx!.scaleSet("ss-alpha", "prov-alpha"),
    ];
    const beta = [fx.provider("prov-beta", "beta"), fx.scaleSet("ss-beta", "prov-beta")];
    const first = await engine.up([...alpha(), ...beta]);
    assert.ok(first.ok, JSON.stringify(first.errors));
    const ssBeta = sim.scaleSets().find((s) => s.providerName === "beta")!;
    const busy = sim.addRunner(ssBeta.id, { name: "garm-beta-busy" });
    sim.startJob(busy);

    // The same up changes alpha (a restart) and drops beta, whose runner is busy. GARM fixes its provider map per
    // process (§9.2): the restart must still find beta's block, or beta's runner could never be torn down (§9.3).
    const second = await engine.up(alpha("alpha runners, v2"));
    assert.equal(second.ok, false);
    assert.deepEqual(second.updated, ["prov-alpha"]);
    assert.match(String(second.errors["ss-beta"]), /garm-beta-busy/);
    assert.equal(fx.restarts.length, 2);
    assert.deepEqual(fx.restarts[1].blocks.sort(), ["alpha", "beta"]);
    assert.deepEqual(names(sim), ["alpha", "beta"]);
    assert.equal(sim.providers().find((p) => p.name === "alpha")?.description, "alpha runners, v2");

    // GARM restarted from outside mid-drain (host reboot, service restart): beta is still in the file, so still loaded.
    await sim.restart();
    assert.deepEqual(names(sim), ["alpha", "beta"]);

    // The job ends; beta's provider worker tears the runner down on its own, before any further pulumi run.
    sim.completeJob(busy);
    const deadline = Date.now() + 5_000;
    while (sim.instances().some((i) => i.name === busy) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(sim.instances().find((i) => i.name === busy), undefined, JSON.stringify(sim.instances()));

    const third = await engine.up(alpha("alpha runners, v2"));
    assert.ok(third.ok, JSON.stringify(third.errors));
    assert.deepEqual(third.deleted, ["ss-beta", "prov-beta"]);
    assert.deepEqual(names(sim), ["alpha"]);
    assert.deepEqual(blocksIn(await fs.readFile(fx.file, "utf8")), ["alpha"]);
  });

  it("6. a destroy whose restart failed removed the block but kept the provider; after another writer's restart the next up writes the block again, so the scale set can be created", async () => {
    fx = await startFixture();
    const { sim, engine } = fx;
    const failMark = `${fx.dir}/restart-fails`;
    // The service manager refuses while the mark exists, as a restart that failed on the host.
    const prov = fx.provider("prov", "alpha", { restartCommand: `test ! -e ${failMark} && ${fx.serviceRestart}` });
    const up1 = await engine.up([prov]);
    assert.ok(up1.ok, JSON.stringify(up1.errors));
    assert.deepEqual(names(sim), ["alpha"]);

    await fs.writeFile(failMark, "");
    const down = await engine.destroy();
    assert.equal(down.ok, false, "the restart after removing the block fails");
    assert.deepEqual(blocksIn(await fs.readFile(fx.file, "utf8")), [], "the block is gone, the provider stays in state");
    await fs.rm(failMark);
    // Another stack on the same GARM restarts it: GARM no longer loads alpha.
    await sim.restart();
    assert.deepEqual(names(sim), []);

    const up2 = await engine.up([prov, fx.scaleSet("ss", "prov")]);
    assert.ok(up2.ok, JSON.stringify(up2.errors));
    assert.deepEqual(up2.updated, ["prov"], "the provider is not planned as unchanged");
    assert.deepEqual(up2.created, ["ss"]);
    assert.deepEqual(blocksIn(await fs.readFile(fx.file, "utf8")), ["alpha"]);
    assert.deepEqual(names(sim), ["alpha"]);
    assert.equal(sim.scaleSets().length, 1);

    // The block back in the file but GARM restarted without it meanwhile (a hand edit): the next up restarts GARM.
    const text = await fs.readFile(fx.file, "utf8");
    await fs.writeFile(fx.file, HAND_WRITTEN);
    await sim.restart();
    await fs.writeFile(fx.file, text);
    assert.deepEqual(names(sim), []);
    const up3 = await engine.up([prov, fx.scaleSet("ss", "prov")]);
    assert.ok(up3.ok, JSON.stringify(up3.errors));
    assert.deepEqual(up3.updated, ["prov"]);
    assert.deepEqual(names(sim), ["alpha"]);
    assert.equal(await fs.readFile(fx.file, "utf8"), text, "the file is not rewritten");
  });

  it("7. another stack's restart of the same GARM is ridden out like one's own: a scale set created while GARM is down for it waits and is created", async () => {
    fx = await startFixture({ restartDownMs: 12_000 });
    const { sim, engine } = fx;
    const slow = { restartTimeoutSeconds: 40 };
    const alpha = fx.provider("prov", "alpha", slow);
    const up1 = await engine.up([alpha]);
    assert.ok(up1.ok, JSON.stringify(up1.errors));

    // Stack B (another project, its own provider process) adds beta to the same file and restarts GARM.
    const teamB = engineForGarm(sim, "team-b");
    const beta = fx.provider("prov-b", "beta", { ...slow, owner: { project: "team-b", stack: "dev", resource: "prov-b" } });
    const restartsBefore = fx.restarts.length;
    const upB = teamB.up([beta]);
    const deadline = Date.now() + 30_000;
    while (fx.restarts.length === restartsBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(fx.restarts.length, restartsBefore + 1, "stack B restarted GARM");

    // Meanwhile stack A adds a scale set: GARM refuses connections for seconds, longer than ordinary retries last.
    const upA = await engine.up([alpha, fx.scaleSet("ss", "prov")]);
    const b = await upB;
    assert.ok(b.ok, JSON.stringify(b.errors));
    assert.ok(upA.ok, JSON.stringify(upA.errors));
    assert.deepEqual(upA.created, ["ss"]);
    assert.equal(sim.scaleSets().length, 1);
    assert.deepEqual(names(sim), ["alpha", "beta"]);
    await assert.rejects(fs.stat(`${fx.dir}/.config.toml.pulumi-garm-restart`), "the announcement is withdrawn");
  });
});
