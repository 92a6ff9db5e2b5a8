// A scale set renamed in GARM behind Pulumi's back (issue 34 item 8): the same id in the same GARM (the outputs record
// its controller id, garm-behaviour.md §1.8) with the same entity, provider and labels is still this one. Refresh keeps
// it with the name as drift, and `up` renames it back instead of making a second one beside it.
import { strict as assert } from "node:assert";
import { type Fixture, mutatingCalls, startFixture } from "./fixture";

describe("GarmScaleSet renamed in GARM outside Pulumi", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("refresh keeps it with the name as drift, and up renames it back", async () => {
    fx = await startFixture();
    const program = [fx.scaleSet("small")];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [made] = fx.sim.scaleSets();
    await fx.garm().updateScaleSet(made.id, { name: "renamed-by-hand" });

    const refresh = await fx.engine.refresh();
    assert.ok(refresh.ok, JSON.stringify(refresh.errors));
    const kept = fx.engine.state().resources.find((r) => r.name === "small");
    assert.equal(kept?.id, String(made.id), "refresh keeps it");
    assert.equal(kept?.outputs.liveName, "renamed-by-hand");

    const preview = await fx.engine.preview(program);
    assert.equal(preview.diffs.small?.changes, "some", JSON.stringify(preview.diffs));
    assert.deepEqual(preview.diffs.small?.replaces, []);
    assert.ok(preview.logs.some((l) => l.includes(`name renamed-by-hand → ${made.name}`)), preview.logs.join("\n"));

    fx.sim.clearRequests();
    const again = await fx.engine.up(program);
    assert.ok(again.ok, JSON.stringify(again.errors));
    assert.deepEqual(mutatingCalls(fx.sim).map((r) => `${r.method} ${r.path}`), [`PUT /api/v1/scalesets/${made.id}`], "renamed in place, nothing created");
    const now = fx.sim.scaleSets();
    assert.equal(now.length, 1);
    assert.equal(now[0].id, made.id);
    assert.equal(now[0].name, made.name);
    assert.equal(fx.engine.state().resources.find((r) => r.name === "small")?.outputs.liveName, made.name);
  });
});
