// The TypeScript package when a stack's garm:url moves (issue 27 item 1): the same GARM behind a new URL is no change;
// another GARM is refused at preview, refresh and destroy, naming both, and nothing in either GARM is touched or
// dropped from state. The plugin's answer to a move (a replacement) is tested through the CLI in
// test/integration/plugin/cli-behaviour.test.ts.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Simulator, startSimulator } from "../../../simulator";
import { GARM_IDENTITY_OUTPUT } from "../../../provider/common/garm-identity";
import { type Fixture, startFixture } from "./fixture";

describe("GarmScaleSet and the GARM it lives in (dynamic provider)", function () {
  this.timeout(120_000);
  let fx: Fixture;
  let other: Simulator | undefined;
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-identity-"));
  });
  afterEach(async () => {
    await other?.stop();
    other = undefined;
    await fx?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Stack "dev" with one scale set in the fixture's GARM, its state saved to a file another engine can load. */
  async function upInFirstGarm(): Promise<string> {
    fx = await startFixture();
    const up = await fx.engine.up([fx.scaleSet("small")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const controllerId = fx.sim.controllerId();
    assert.equal(up.outputs.small[GARM_IDENTITY_OUTPUT], controllerId, "the scale set records the GARM it lives in");
    const state = path.join(dir, "state.json");
    fx.engine.saveState(state);
    return state;
  }

  it("previews no change when the same GARM is reached through another URL", async () => {
    const state = await upInFirstGarm();
    const sameGarm = engineForGarm({ ...fx.sim, url: fx.sim.url.replace("127.0.0.1", "localhost") }, "scaleset-it");
    sameGarm.loadState(state);
    const preview = await sameGarm.preview([fx.scaleSet("small")]);
    assert.ok(preview.ok, JSON.stringify(preview.errors));
    assert.deepEqual(preview.same, ["small"]);
  });

  it("refuses preview, refresh and destroy through a URL that reaches another GARM, and touches neither", async () => {
    const state = await upInFirstGarm();
    const [ours] = fx.sim.scaleSets();
    other = await startSimulator({ tickMs: 25 });
    const elsewhere = engineForGarm(other, "scaleset-it");
    elsewhere.loadState(state);
    other.clearRequests();
    const a = fx.sim.controllerId();
    const b = other.controllerId();
    const refusal = new RegExp(`lives in GARM ${a}, but garm:url ${other.url.replace(/[.:/]/g, "\\$&")} reaches GARM ${b}`);

    const preview = await elsewhere.preview([fx.scaleSet("small", { maxRunners: 5 })]);
    assert.equal(preview.ok, false);
    assert.match(String(preview.errors.small), refusal);

    const refresh = await elsewhere.refresh();
    assert.equal(refresh.ok, false, "a refresh through another GARM fails instead of dropping the scale set");
    assert.match(String(refresh.errors.small), refusal);
    assert.ok(elsewhere.state().resources.some((r) => r.name === "small"), "still in state");

    const destroy = await elsewhere.destroy();
    assert.equal(destroy.ok, false);
    assert.match(String(destroy.errors.small), refusal);
    assert.ok(elsewhere.state().resources.some((r) => r.name === "small"), "still in state after the refused destroy");

    assert.deepEqual(other.requests().filter((r) => r.path.startsWith("/api/v1/scalesets")), [], "nothing asked of the other GARM's scale sets");
    assert.equal(fx.sim.scaleSets()[0]?.id, ours.id, "the scale set still runs in its own GARM");
    assert.equal(fx.sim.scaleSets()[0]?.enabled, true);
  });
});
