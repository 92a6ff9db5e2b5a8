// What preview tells before anything changes, through the engine harness against the GARM simulator (issue 13,
// items 3 to 5): unknown references fail at preview, an update names its fields old → new, labels compare as a set.
import { strict as assert } from "node:assert";
import { GarmClient } from "../../../provider/garm/client";
import { type Fixture, apiCalls, mutatingCalls, startFixture } from "./fixture";

describe("GarmScaleSet preview against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("fails preview on a providerName GARM has not loaded, naming what it has, without writing (§4.4, §9.3)", async () => {
    fx = await startFixture();
    const preview = await fx.engine.preview([fx.scaleSet("small", { providerName: "nope" })]);
    assert.equal(preview.ok, false);
    const failures = JSON.stringify(preview.checkFailures.small);
    assert.match(failures, /providerName \\"nope\\" is not a provider GARM has loaded \(it has: fake\)/, failures);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("fails preview on an organization or repository GARM does not know", async () => {
    fx = await startFixture();
    const org = await fx.engine.preview([fx.scaleSet("small", { organization: "nobody" })]);
    assert.match(JSON.stringify(org.checkFailures.small), /organization \\"nobody\\" is not known to GARM/);
    const repo = await fx.engine.preview([fx.scaleSet("small", { organization: undefined, repository: "acme/nothing" })]);
    assert.match(JSON.stringify(repo.checkFailures.small), /repository \\"acme\/nothing\\" is not known to GARM/);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("checks 10 scale sets' references with a few GETs, and passes preview with one warning when GARM is down", async () => {
    fx = await startFixture();
    const program = Array.from({ length: 10 }, (_, i) => fx.scaleSet(`s${i}`, { name: `ci-${i}` }));
    fx.sim.clearRequests();
    const preview = await fx.engine.preview(program);
    assert.ok(preview.ok, JSON.stringify(preview.checkFailures));
    assert.ok(apiCalls(fx.sim).length <= 3, JSON.stringify(apiCalls(fx.sim).map((r) => `${r.method} ${r.path}`)));
    fx.sim.stopServing("refuse");
    const down = await fx.engine.preview(program);
    assert.ok(down.ok, JSON.stringify(down.checkFailures));
    const warnings = down.logs.filter((l) => /could not read GARM/.test(l));
    assert.equal(warnings.length, 1, down.logs.join("\n"));
  });

  it("after a refresh picked up an outside change, names the fields an update changes, old → new", async () => {
    fx = await startFixture();
    const program = [fx.scaleSet("small", { maxRunners: 3 })];
    assert.ok((await fx.engine.up(program)).ok);
    const [ss] = fx.sim.scaleSets();
    const rest = new GarmClient({ url: fx.sim.url, username: fx.sim.username, password: fx.sim.password });
    await rest.updateScaleSet(ss.id, { max_runners: 10, enabled: false });
    assert.ok((await fx.engine.refresh()).ok);

    const preview = await fx.engine.preview(program);
    assert.deepEqual(preview.steps.map((s) => s.op), ["update"]);
    const line = preview.logs.find((l) => l.includes("will update"));
    assert.ok(line, preview.logs.join("\n"));
    assert.match(line, new RegExp(`GarmScaleSet ${ss.name} \\(id ${ss.id}\\): will update enabled false → true, maxRunners 10 → 3$`));

    assert.ok((await fx.engine.up(program)).ok);
    const again = await fx.engine.preview(program);
    assert.deepEqual(again.steps.map((s) => s.op), ["same"]);
    assert.ok(!again.logs.some((l) => l.includes("will update")), "no line for a no-op");
  });

  it("names a label change as labels added and removed, not positions", async () => {
    fx = await startFixture();
    assert.ok((await fx.engine.up([fx.scaleSet("small", { labels: ["linux", "small", "x64"] })])).ok);
    const [ss] = fx.sim.scaleSets();
    const preview = await fx.engine.preview([fx.scaleSet("small", { labels: ["linux", "gpu", "x64"] })]);
    assert.equal(preview.steps[0]?.op, "replace");
    const line = preview.logs.find((l) => l.includes("will replace"));
    assert.ok(line, preview.logs.join("\n"));
    assert.match(line, new RegExp(`GarmScaleSet ${ss.name} \\(id ${ss.id}\\): will replace: labels \\+gpu -small$`));
  });
});
