// GarmPool creates whose answers are lost while other creates run (issue 34 item 7): a lost answer never takes a pool
// a sibling in the same stack or another stack made, and when two creates cannot be told apart none is taken.
// A proxy in front of the simulator stands in for a connection that drops: it can drop a create before GARM sees it
// (the answer is lost and nothing landed), or hold it back until another create has been answered.
import { strict as assert } from "node:assert";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Fixture, poolDecl as pool, startFixture } from "../scaleset/fixture";
import { type OnCreate, type Proxy, startProxy } from "../../support/dropping-proxy";

/** Resolves once `n` of the proxy's creates have been forwarded and answered. */
function counter() {
  let answered = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    bump() {
      answered++;
      for (const w of waiters.filter((x) => x.n <= answered)) w.resolve();
    },
    async atLeast(n: number) {
      if (answered >= n) return;
      await new Promise<void>((resolve) => waiters.push({ n, resolve }));
    },
  };
}

describe("GarmPool creates whose answers are lost beside other creates", function () {
  this.timeout(120_000);
  let fx: Fixture;
  let proxy: Proxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await fx?.close();
  });

  const viaProxy = async (onCreate: OnCreate, stack = "dev") => {
    proxy = await startProxy(fx.sim.url, /\/pools$/, onCreate);
    return engineForGarm({ url: proxy.url, username: fx.sim.username, password: fx.sim.password }, "scaleset-it", stack);
  };
  const poolIdOf = (engine: ReturnType<typeof engineForGarm>, name: string) => engine.state().resources.find((r) => r.name === name)?.outputs.poolId;
  const maxRunnersOf = (id: unknown) => fx.sim.pools().find((p) => p.id === id)?.maxRunners;

  it("one stack: a create lost before it landed never takes its sibling's pool (another maxRunners)", async () => {
    fx = await startFixture();
    let siblingAnswered: () => void = () => undefined;
    const sibling = new Promise<void>((resolve) => (siblingAnswered = resolve));
    let dropped = false;
    const engine = await viaProxy(async ({ body }) => {
      if (body.max_runners === 5) {
        setTimeout(siblingAnswered, 300);
        return "forward";
      }
      if (dropped) return "forward";
      dropped = true;
      await sibling; // the sibling lands first, after this create took the entity's pools
      return "drop";
    });
    const up = await engine.up([pool("p"), pool("s", { maxRunners: 5 })]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.ok(dropped, "the proxy dropped p's create");
    const [p, s] = [poolIdOf(engine, "p"), poolIdOf(engine, "s")];
    assert.notEqual(p, s, "each resource holds its own pool");
    assert.equal(fx.sim.pools().length, 2);
    assert.equal(maxRunnersOf(p), 3);
    assert.equal(maxRunnersOf(s), 5);
    const again = await engine.up([pool("p"), pool("s", { maxRunners: 5 })]);
    assert.ok(again.ok, JSON.stringify(again.errors));
    assert.deepEqual([...again.same].sort(), ["p", "s"], "nothing to fight over");
  });

  it("two stacks: a create lost before it landed never takes the pool another stack made meanwhile", async () => {
    fx = await startFixture();
    const other = engineForGarm(fx.sim, "scaleset-it", "team-b");
    let theirs: Promise<unknown> | undefined;
    const engine = await viaProxy(async () => {
      if (theirs) return "forward";
      // Another stack makes its pool (another priority) after this create took the entity's pools.
      theirs = other.up([pool("q", { priority: 10 })]);
      const result = (await theirs) as { ok: boolean };
      assert.ok(result.ok);
      return "drop";
    });
    const up = await engine.up([pool("p")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [p, q] = [poolIdOf(engine, "p"), poolIdOf(other, "q")];
    assert.ok(p && q);
    assert.notEqual(p, q, "this stack made its own pool");
    assert.equal(fx.sim.pools().find((x) => x.id === q)?.priority, 10, "the other stack's pool is left as it was");
    const destroy = await engine.destroy();
    assert.ok(destroy.ok, JSON.stringify(destroy.errors));
    assert.deepEqual(fx.sim.pools().map((x) => x.id), [q], "the other stack's pool stays");
  });

  it("one stack, identical inputs, both answers lost and one landed: each resource ends up with its own pool", async () => {
    fx = await startFixture();
    const answered = counter();
    let creates = 0;
    fx.sim.loseNextResponse("POST", /\/pools$/);
    const engine = await viaProxy(async () => {
      creates++;
      if (creates === 1) {
        setTimeout(() => answered.bump(), 300); // its answer is lost by the simulator, after it landed
        return "forward";
      }
      if (creates === 2) {
        await answered.atLeast(1);
        return "drop"; // lost before it landed
      }
      return "forward";
    });
    const up = await engine.up([pool("a"), pool("b")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [a, b] = [poolIdOf(engine, "a"), poolIdOf(engine, "b")];
    assert.ok(a && b);
    assert.notEqual(a, b, "the one pool that landed is taken once, and the other create is sent again");
    assert.equal(fx.sim.pools().length, 2);
  });

  it("one stack, identical inputs, both answers lost and both landed: none is taken, and no up makes a third", async () => {
    fx = await startFixture();
    fx.sim.loseNextResponse("POST", /\/pools$/);
    fx.sim.loseNextResponse("POST", /\/pools$/);
    const engine = fx.engine;
    const up = await engine.up([pool("a"), pool("b")]);
    assert.equal(up.ok, false);
    const ids = fx.sim.pools().map((p) => p.id);
    assert.equal(ids.length, 2);
    for (const name of ["a", "b"]) {
      const error = String(up.errors[name]);
      assert.match(error, /none of them is taken/, error);
      for (const id of ids) assert.ok(error.includes(id), `${name}'s error names ${id}: ${error}`);
    }
    fx.sim.clearRequests();
    const again = await engine.up([pool("a"), pool("b")]);
    assert.equal(again.ok, false);
    assert.match(String(again.errors.a), /set adoptPoolId/);
    assert.deepEqual(fx.sim.requests().filter((r) => r.method === "POST" && /\/pools$/.test(r.path)), [], "no third pool");
    assert.equal(fx.sim.pools().length, 2);
    const settled = await engine.up([pool("a", { adoptPoolId: ids[0] }), pool("b", { adoptPoolId: ids[1] })]);
    assert.ok(settled.ok, JSON.stringify(settled.errors));
    assert.deepEqual([poolIdOf(engine, "a"), poolIdOf(engine, "b")], ids);
  });
});
