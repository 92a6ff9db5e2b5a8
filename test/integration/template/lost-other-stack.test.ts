// A GarmTemplate create whose answer is lost while another stack makes a template of that name (issue 34 item 7):
// the other template is never adopted (so no later replacement deletes it), whatever differs in it.
import { strict as assert } from "node:assert";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Fixture, TEMPLATE_BODY, startFixture, templateDecl as template } from "../scaleset/fixture";
import { type Proxy, startProxy } from "../../support/dropping-proxy";

describe("GarmTemplate create whose answer is lost beside another stack's create of that name", function () {
  this.timeout(90_000);
  let fx: Fixture;
  let proxy: Proxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await fx?.close();
  });
  const own = () => fx.sim.templates().filter((t) => t.owner !== undefined);

  /** Stack dev's first template create is dropped unseen after stack team-b made its template of that name. */
  async function lostWhileTheyCreate(theirs: Record<string, unknown>) {
    fx = await startFixture();
    const other = engineForGarm(fx.sim, "scaleset-it", "team-b");
    let made = false;
    proxy = await startProxy(fx.sim.url, /\/templates$/, async () => {
      if (made) return "forward";
      made = true;
      const result = await other.up([template("theirs", theirs)]);
      assert.ok(result.ok, JSON.stringify(result.errors));
      return "drop";
    });
    const engine = engineForGarm({ url: proxy.url, username: fx.sim.username, password: fx.sim.password }, "scaleset-it", "dev");
    return { engine, other };
  }

  for (const [what, theirs] of [
    ["another OS", { osType: "windows" }],
    ["another body", { body: `${TEMPLATE_BODY}echo theirs\n` }],
    ["another description", { description: "team b's" }],
  ] as const) {
    it(`is not adopted when it has ${what}, and nothing of it is touched`, async () => {
      const { engine, other } = await lostWhileTheyCreate(theirs);
      const up = await engine.up([template("tpl")]);
      assert.equal(up.ok, false);
      assert.match(String(up.errors.tpl), /is not what this create sent.*left alone and nothing was created/);
      assert.equal(engine.state().resources.find((r) => r.name === "tpl"), undefined, "nothing recorded");
      const held = other.state().resources.find((r) => r.name === "theirs");
      assert.equal(own().length, 1);
      assert.equal(String(own()[0]?.id), held?.id);
      // A later up (here with another OS, a replacement on main's adopted state) never deletes theirs.
      fx.sim.clearRequests();
      const again = await engine.up([template("tpl", { osType: "windows" })]);
      assert.equal(again.ok, false);
      assert.match(String(again.errors.tpl), /already has a template named/);
      assert.deepEqual(fx.sim.requests().filter((r) => r.method === "DELETE" || r.method === "PUT"), []);
      assert.equal(own().length, 1, "the other stack's template stays");
    });
  }
});
