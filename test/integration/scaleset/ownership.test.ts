// A GARM id names this resource's scale set only while GARM's scale set under it still has this resource's name,
// entity and provider; adoption takes only a scale set with the resource's labels (issue 10 items 10 and 12).
import { strict as assert } from "node:assert";
import { engineForGarm } from "../../../harness/engine-for-garm";
import type { Simulator } from "../../../simulator";
import { type Fixture, startFixture } from "./fixture";

/**
 * What a database restore does to ids: the scale set with `id` disappears and the next scale set GARM creates gets
 * `id` again. Done on the simulator's store, which keeps ids in a counter.
 */
function forgetAndReuseId(sim: Simulator, id: number): void {
  const store = (sim as unknown as { store: { scaleSets: Map<number, unknown>; nextScaleSetId: number } }).store;
  assert.ok(store.scaleSets.delete(id), `scale set ${id} exists`);
  store.nextScaleSetId = id;
}

describe("GarmScaleSet ownership of its GARM id", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  /** Stack "dev" manages "small" (org acme); after a restore, the other team's stack gets the same GARM id. */
  async function reusedByAnotherTeam() {
    fx = await startFixture();
    const up = await fx.engine.up([fx.scaleSet("small")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [ours] = fx.sim.scaleSets();
    forgetAndReuseId(fx.sim, ours.id);
    const other = engineForGarm(fx.sim, "scaleset-it", "team-b");
    const theirs = await other.up([fx.scaleSet("theirs", { name: "team-b", repository: "acme/app", organization: undefined })]);
    assert.ok(theirs.ok, JSON.stringify(theirs.errors));
    const [reused] = fx.sim.scaleSets();
    assert.equal(reused.id, ours.id, "the other team's scale set took the id");
    fx.sim.clearRequests();
    return reused;
  }

  const touched = (sim: Simulator, id: number) =>
    sim.requests().filter((r) => r.method !== "GET" && r.path === `/api/v1/scalesets/${id}`);

  it("refresh treats a reused id as gone instead of binding to the other team's scale set", async () => {
    const reused = await reusedByAnotherTeam();
    const refresh = await fx.engine.refresh();
    assert.ok(refresh.ok, JSON.stringify(refresh.errors));
    assert.equal(fx.engine.state().resources.find((r) => r.name === "small"), undefined, "dropped from state");
    assert.deepEqual(touched(fx.sim, reused.id), []);
  });

  it("destroy leaves the other team's scale set alone and warns that this one is already gone", async () => {
    const reused = await reusedByAnotherTeam();
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(touched(fx.sim, reused.id), []);
    assert.equal(fx.sim.scaleSets()[0]?.name, reused.name);
    assert.equal(fx.sim.scaleSets()[0]?.enabled, true);
    assert.ok(
      fx.engine.logs.some((l) => new RegExp(`GARM id ${reused.id} now holds scale set ${reused.name}.*already deleted`).test(l)),
      fx.engine.logs.join("\n"),
    );
  });

  it("an update refuses to change the other team's scale set", async () => {
    const reused = await reusedByAnotherTeam();
    const up = await fx.engine.up([fx.scaleSet("small", { maxRunners: 7 })]);
    assert.equal(up.ok, false);
    assert.match(String(up.errors.small), new RegExp(`GARM id ${reused.id} now holds scale set ${reused.name}.*pulumi refresh`));
    assert.deepEqual(touched(fx.sim, reused.id), []);
    assert.equal(fx.sim.scaleSets()[0]?.maxRunners, reused.maxRunners);
  });

  it("adoptExisting refuses a scale set whose labels differ, naming both label sets", async () => {
    fx = await startFixture();
    const exact = { naming: "exact", name: "ci-shared" };
    await fx.engine.up([fx.scaleSet("small", { ...exact, labels: ["linux", "x64"] })]);
    const second = engineForGarm(fx.sim, "scaleset-it", "adopter");
    fx.sim.clearRequests();
    const adopted = await second.up([fx.scaleSet("twin", { ...exact, labels: ["linux", "arm64"], adoptExisting: true })]);
    assert.equal(adopted.ok, false);
    assert.match(String(adopted.errors.twin), /its labels are \[linux, x64\], not \[arm64, linux\]/);
    assert.equal(second.state().resources.find((r) => r.name === "twin"), undefined);
    assert.deepEqual(
      fx.sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login")),
      [],
      "nothing was changed in GARM",
    );
  });
});
