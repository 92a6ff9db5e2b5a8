// GarmController through the engine harness against the GARM simulator: a singleton that takes over GARM's controller
// settings on create and leaves them as they are on delete.
import { strict as assert } from "node:assert";
import { type Fixture, startFixture } from "./fixture";

type Json = Record<string, unknown>;

describe("GarmController against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const controller = async () => (await fx.api("GET", "/controller")).body as Json;
  const puts = () => fx.sim.requests().filter((r) => r.method === "PUT" && r.path === "/api/v1/controller");

  it("adopts the controller setting only what differs, previews a no-op, updates in place, corrects drift, and leaves GARM's settings on destroy", async () => {
    fx = await startFixture("controller-it");
    const before = await controller();
    const inputs = { metadataUrl: before.metadata_url, callbackUrl: before.callback_url, webhookUrl: "https://garm.example.com/webhooks", minimumJobAgeBackoff: 45 };
    const up = await fx.engine.up([fx.controller("ctl", inputs)]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(fx.engine.state().resources[0]?.id, before.controller_id);
    assert.equal(up.outputs.ctl?.controllerWebhookUrl, `https://garm.example.com/webhooks/${before.controller_id}`);
    assert.equal(puts().length, 1);
    assert.ok(up.logs.some((l) => /set webhookUrl, minimumJobAgeBackoff$/.test(l)), up.logs.join("\n"));

    fx.sim.clearRequests();
    const same = await fx.engine.preview([fx.controller("ctl", inputs)]);
    assert.equal(same.diffs.ctl?.changes, "none");
    const noop = await fx.engine.up([fx.controller("ctl", inputs)]);
    assert.deepEqual(noop.same, ["ctl"]);
    assert.equal(puts().length, 0);

    const changed = { ...inputs, minimumJobAgeBackoff: 60 };
    const updated = await fx.engine.up([fx.controller("ctl", changed)]);
    assert.deepEqual(updated.updated, ["ctl"]);
    assert.equal((await controller()).minimum_job_age_backoff, 60);

    await fx.api("PUT", "/controller", { webhook_url: "https://elsewhere.example.com/hooks" });
    const refreshed = await fx.engine.refresh();
    assert.ok(refreshed.ok);
    assert.equal(fx.engine.state().resources[0]?.outputs.webhookUrl, "https://elsewhere.example.com/hooks");
    const fixed = await fx.engine.up([fx.controller("ctl", changed)]);
    assert.deepEqual(fixed.updated, ["ctl"]);
    assert.equal((await controller()).webhook_url, "https://garm.example.com/webhooks");

    fx.sim.clearRequests();
    const destroyed = await fx.engine.destroy();
    assert.ok(destroyed.ok);
    assert.equal(puts().length, 0);
    assert.equal((await controller()).webhook_url, "https://garm.example.com/webhooks", "GARM keeps its settings");
    assert.ok(destroyed.logs.some((l) => /GARM keeps its controller settings as they are/.test(l)), destroyed.logs.join("\n"));
  });

  it("refuses a URL without a scheme or host at preview, naming the field", async () => {
    fx = await startFixture("controller-it");
    const preview = await fx.engine.preview([fx.controller("ctl", { callbackUrl: "garm.example.com/callbacks" })]);
    assert.equal(preview.ok, false);
    assert.equal(preview.checkFailures.ctl?.[0]?.property, "callbackUrl");
    assert.match(preview.checkFailures.ctl?.[0]?.reason ?? "", /must be an http or https URL with a host/);
    assert.equal(puts().length, 0);
  });
});
