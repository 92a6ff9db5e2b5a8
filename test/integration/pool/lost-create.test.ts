// A GarmPool create whose answer was lost (issue 23 item 1): the pool GARM made is found and kept, never made twice,
// and a pool that was under the entity before the create is never taken for it.
import { strict as assert } from "node:assert";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Fixture, poolDecl, startFixture, startFixtureGoneAfterLostAnswer } from "../scaleset/fixture";

const pool = poolDecl;

describe("GarmPool create whose answer is lost", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const loseNextPoolCreate = () => fx.sim.loseNextResponse("POST", /\/pools$/);
  const stateOf = (name: string) => fx.engine.state().resources.find((r) => r.name === name);

  it("finds the pool GARM made and keeps it: one pool, in state, and the next up plans nothing", async () => {
    fx = await startFixture();
    loseNextPoolCreate();
    const up = await fx.engine.up([pool("p")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(fx.sim.pools().length, 1);
    assert.equal(stateOf("p")?.id, fx.sim.pools()[0]?.id);
    assert.ok(up.logs.some((l) => /answer to the create was lost, but GARM has it/.test(l)), up.logs.join("\n"));
    const again = await fx.engine.up([pool("p")]);
    assert.ok(again.ok, JSON.stringify(again.errors));
    assert.deepEqual(again.same, ["p"]);
    assert.equal(fx.sim.pools().length, 1, "no duplicate");
  });

  it("records it as unconfirmed when GARM cannot be asked; the next up binds it, refresh and destroy settle it", async () => {
    fx = await startFixtureGoneAfterLostAnswer();
    loseNextPoolCreate();
    const first = await fx.engine.up([pool("p")]);
    assert.equal(first.ok, false);
    assert.match(String(first.errors.p), /may or may not have created the pool/);
    await fx.sim.resumeServing();
    assert.equal(fx.sim.pools().length, 1, "GARM carried out the create");

    const second = await fx.engine.up([pool("p", { maxRunners: 4 })]);
    assert.ok(second.ok, JSON.stringify(second.errors));
    assert.equal(fx.sim.pools().length, 1, "no duplicate");
    const [made] = fx.sim.pools();
    assert.equal(stateOf("p")?.outputs.poolId, made?.id);
    assert.equal(made?.maxRunners, 4, "brought to the inputs");
    assert.equal(stateOf("p")?.initErrors, undefined);

    const refresh = await fx.engine.refresh();
    assert.ok(refresh.ok, JSON.stringify(refresh.errors));
    assert.equal(stateOf("p")?.id, made?.id, "refresh records GARM's id as the resource id");
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(fx.sim.pools(), [], "the entity is left with no unmanaged pool");
  });

  it("destroy right after an unconfirmed create deletes the pool it made", async () => {
    fx = await startFixtureGoneAfterLostAnswer();
    loseNextPoolCreate();
    assert.equal((await fx.engine.up([pool("p")])).ok, false);
    await fx.sim.resumeServing();
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(fx.sim.pools(), []);
  });

  it("never takes an identical pool that was under the entity before its create", async () => {
    fx = await startFixtureGoneAfterLostAnswer();
    const other = engineForGarm(fx.sim, "scaleset-it", "team-b");
    assert.ok((await other.up([pool("theirs")])).ok);
    const [theirs] = fx.sim.pools();
    loseNextPoolCreate();
    assert.equal((await fx.engine.up([pool("p")])).ok, false);
    await fx.sim.resumeServing();
    const ours = fx.sim.pools().find((p) => p.id !== theirs!.id);
    assert.ok(ours, "GARM carried out the create");

    const up = await fx.engine.up([pool("p")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(stateOf("p")?.outputs.poolId, ours.id);
    assert.equal(fx.sim.pools().length, 2);
    const destroy = await fx.engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(fx.sim.pools().map((p) => p.id), [theirs!.id], "the other stack's pool stays");
  });
});
