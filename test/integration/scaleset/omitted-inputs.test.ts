// GarmScaleSet inputs that are removed or left out mean their documented default, and the install template follows
// osType (issue 10 items 7 and 8), through the engine harness against the GARM simulator.
import { strict as assert } from "node:assert";
import { type Fixture, startFixture } from "./fixture";

describe("GarmScaleSet omitted inputs and the install template", function () {
  this.timeout(90_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("removing enableShell, runnerPrefix, runnerGroup, runnerBootstrapTimeout and extraSpecs plans an update and resets them to GARM's defaults", async () => {
    fx = await startFixture();
    const set = {
      enableShell: true,
      runnerPrefix: "team",
      runnerGroup: "ci",
      runnerBootstrapTimeout: 45,
      extraSpecs: { disk: 40 },
    };
    const first = await fx.engine.up([fx.scaleSet("small", set)]);
    assert.ok(first.ok, JSON.stringify(first.errors));
    const [before] = fx.sim.scaleSets();
    assert.equal(before.enableShell, true);
    assert.equal(before.runnerPrefix, "team");

    const plain = [fx.scaleSet("small")];
    const preview = await fx.engine.preview(plain);
    assert.equal(preview.diffs.small?.changes, "some", JSON.stringify(preview.diffs));
    const up = await fx.engine.up(plain);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.deepEqual(up.updated, ["small"]);
    const [after] = fx.sim.scaleSets();
    assert.equal(after.enableShell, false, "shell access is withdrawn");
    assert.equal(after.runnerPrefix, "garm");
    assert.equal(after.runnerGroup, "Default");
    assert.equal(after.runnerBootstrapTimeout, 20);
    assert.deepEqual(JSON.parse(after.extraSpecs ?? "{}"), {});
    const again = await fx.engine.up(plain);
    assert.deepEqual(again.same, ["small"], "the defaults are now in place");
  });

  it("changing osType without templateId sends GARM's system template for the new OS (§2.6, §4.1, §4.4)", async () => {
    fx = await startFixture();
    await fx.engine.up([fx.scaleSet("small")]);
    const [linux] = fx.sim.scaleSets();
    const windows = [fx.scaleSet("small", { osType: "windows" })];
    const up = await fx.engine.up(windows);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [after] = fx.sim.scaleSets();
    assert.equal(after.id, linux.id, "updated in place");
    assert.equal(after.osType, "windows");
    const template = await templateName(fx, after.id);
    assert.equal(template, "github_windows");
    const again = await fx.engine.up(windows);
    assert.deepEqual(again.same, ["small"]);
  });
});

async function login(fx: Fixture): Promise<string> {
  const res = await fetch(`${fx.sim.url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: fx.sim.username, password: fx.sim.password }),
  });
  return ((await res.json()) as { token: string }).token;
}

async function get(fx: Fixture, path: string): Promise<unknown> {
  const res = await fetch(`${fx.sim.url}/api/v1${path}`, { headers: { authorization: `Bearer ${await login(fx)}` } });
  assert.equal(res.status, 200, `GET ${path}`);
  return res.json();
}

async function templateName(fx: Fixture, scaleSetId: number): Promise<string | undefined> {
  return ((await get(fx, `/scalesets/${scaleSetId}`)) as { template_name?: string }).template_name;
}
