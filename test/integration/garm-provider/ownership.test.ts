// Two stacks naming the same GARM provider, through the engine harness (issue 10 item 5): the second is refused at
// preview and at up, and the first keeps its block and its state.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { readBlock, readBlockOwner } from "../../../provider/kinds/garm-provider/managed-block";
import { blocksIn, type Fixture, PROJECT, startFixture } from "./engine-fixture";

describe("GarmProvider block owners through the engine", function () {
  this.timeout(60_000);
  let fx: Fixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  it("refuses a second stack's GarmProvider of the same name, and the first stack keeps its provider", async () => {
    fx = await startFixture();
    const first = await fx.engine.up([fx.provider("prov-alpha", "alpha")]);
    assert.ok(first.ok, JSON.stringify(first.errors));
    const before = await fs.readFile(fx.file, "utf8");
    assert.deepEqual(readBlockOwner(before, "alpha"), { project: PROJECT, stack: "dev", resource: "prov-alpha" });

    const other = engineForGarm(fx.sim, PROJECT, "other");
    const theirs = [fx.provider("prov-alpha", "alpha", { description: "other stack", owner: { project: PROJECT, stack: "other", resource: "prov-alpha" } })];
    const preview = await other.preview(theirs);
    assert.equal(preview.ok, false, "refused at preview");
    assert.match(String(preview.errors["prov-alpha"]), /already managed in .* by Pulumi project "garm-engine-it", stack "dev", resource "prov-alpha"/);
    const up = await other.up(theirs);
    assert.equal(up.ok, false);
    assert.equal(await fs.readFile(fx.file, "utf8"), before, "the first stack's block is untouched");
    assert.deepEqual(other.state().resources, []);

    const destroyed = await other.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
    assert.deepEqual(blocksIn(await fs.readFile(fx.file, "utf8")), ["alpha"]);

    const refreshed = await fx.engine.refresh();
    assert.ok(refreshed.ok, JSON.stringify(refreshed.errors));
    assert.deepEqual(refreshed.dropped, []);
    assert.equal(readBlock(await fs.readFile(fx.file, "utf8"), "alpha")?.description, "alpha runners");
    assert.deepEqual(fx.sim.providers().map((p) => p.name), ["alpha"]);
  });

  it("refuses a second resource of the same stack naming the same GARM provider", async () => {
    fx = await startFixture();
    const up = await fx.engine.up([fx.provider("prov-a", "alpha"), fx.provider("prov-b", "alpha", { description: "b" })]);
    assert.equal(up.ok, false);
    const failed = Object.keys(up.errors);
    assert.equal(failed.length, 1, JSON.stringify(up.errors));
    const winner = failed[0] === "prov-a" ? "prov-b" : "prov-a";
    assert.deepEqual(readBlockOwner(await fs.readFile(fx.file, "utf8"), "alpha")?.resource, winner);
    assert.deepEqual(fx.engine.state().resources.map((r) => r.name), [winner]);
  });
});
