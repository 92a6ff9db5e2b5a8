// A GarmProvider whose block is written but not confirmed by GARM (issue 10 item 4), through the engine harness: the
// failed create is recorded as a partial create, so the next up finishes it and destroy can take the block out,
// also when the block is what keeps GARM from starting.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { blocksIn, type Fixture, HAND_WRITTEN, startFixture } from "./engine-fixture";

describe("GarmProvider partial creates through the engine", function () {
  this.timeout(60_000);
  let fx: Fixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  it("keeps a create whose restart failed in state, and the next up restarts GARM to finish it", async () => {
    fx = await startFixture();
    const broken = path.join(fx.dir, "restart-broken");
    await fs.writeFile(broken, "");
    const restartCommand = `if test -e ${broken}; then echo "garm.service is masked" >&2; exit 1; fi; ${fx.serviceRestart}`;
    const program = [fx.provider("prov-alpha", "alpha", { restartCommand })];

    const failed = await fx.engine.up(program);
    assert.equal(failed.ok, false);
    assert.match(String(failed.errors["prov-alpha"]), /garm\.service is masked/);
    const [kept] = fx.engine.state().resources;
    assert.equal(kept?.name, "prov-alpha", "the resource is recorded although its restart failed");
    assert.equal(kept.id, `${fx.file}#alpha`, "the id is the file and the name");
    assert.ok((kept.initErrors ?? []).length > 0, "as a partial create");
    assert.deepEqual(blocksIn(await fs.readFile(fx.file, "utf8")), ["alpha"]);
    assert.deepEqual(fx.sim.providers().map((p) => p.name), []);

    // The operator fixes the restart; the unchanged program's up restarts GARM and confirms the provider.
    await fs.rm(broken);
    const restartsBefore = fx.restarts.length;
    const retried = await fx.engine.up(program);
    assert.ok(retried.ok, JSON.stringify(retried.errors));
    assert.deepEqual(retried.updated, ["prov-alpha"]);
    assert.equal(fx.restarts.length - restartsBefore, 1);
    assert.deepEqual(fx.sim.providers().map((p) => p.name), ["alpha"]);
    assert.equal(fx.engine.state().resources[0].initErrors, undefined);

    // Once confirmed, an unchanged up does nothing.
    const same = await fx.engine.up(program);
    assert.ok(same.ok, JSON.stringify(same.errors));
    assert.deepEqual(same.same, ["prov-alpha"]);
    assert.equal(fx.restarts.length - restartsBefore, 1);
  });

  it("lets destroy remove a block that keeps GARM from starting, and GARM starts again", async () => {
    fx = await startFixture();
    // The executable exists when pulumi checks it, and is gone when GARM starts (removed by an upgrade, say): GARM
    // refuses to start with a provider whose executable is missing (§9.1).
    const vanishing = path.join(fx.dir, "garm-provider-vanishing");
    await fs.writeFile(vanishing, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const program = [fx.provider("prov-alpha", "alpha", { executable: vanishing, restartCommand: `rm -f ${vanishing}; ${fx.serviceRestart}`, restartTimeoutSeconds: 3 })];

    const failed = await fx.engine.up(program);
    assert.equal(failed.ok, false);
    assert.match(String(failed.errors["prov-alpha"]), /GARM refused to start/);
    assert.deepEqual(fx.engine.state().resources.map((r) => r.name), ["prov-alpha"]);
    assert.deepEqual(blocksIn(await fs.readFile(fx.file, "utf8")), ["alpha"]);
    await assert.rejects(fetch(`${fx.sim.url}/api/v1/providers`), "GARM is down");

    const destroyed = await fx.engine.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
    assert.deepEqual(fx.engine.state().resources, []);
    assert.equal(await fs.readFile(fx.file, "utf8"), HAND_WRITTEN, "the block is gone, the rest of the file kept");
    assert.deepEqual(fx.sim.providers().map((p) => p.name), []);
    const listed = await fetch(`${fx.sim.url}/api/v1/providers`);
    assert.equal(listed.status, 401, "GARM answers again (it wants a login)");
  });
});
