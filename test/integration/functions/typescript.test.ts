// The TypeScript package's functions in a program's process against the GARM simulator: what each answers, read from
// the stack's garm:* config, and the GARM calls a program's functions make in all (one login, one call per distinct read).
import { strict as assert } from "node:assert";
import * as pulumi from "@pulumi/pulumi";
import * as garm from "../../../sdk/nodejs";
import { resetFunctionConnection } from "../../../sdk/nodejs/functions";
import { GarmClient } from "../../../provider/garm/client";
import { type Simulator, startSimulator } from "../../../simulator";

function settle<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((value) => resolve(value)));
}

describe("functions of the TypeScript package (program process, simulator)", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let rest: GarmClient;

  before(async () => {
    sim = await startSimulator({ tickMs: 100 });
    pulumi.runtime.setAllConfig({ "garm:url": sim.url, "garm:username": sim.username, "garm:password": sim.password }, ["garm:password"]);
    resetFunctionConnection();
    rest = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
  });

  after(async () => {
    await rest.close();
    await sim.stop();
    pulumi.runtime.setAllConfig({}, []);
    resetFunctionConnection();
  });

  it("answers what GARM holds, with one login and one GARM call per distinct read", async () => {
    const scaleSet = await rest.createScaleSet(
      { kind: "organization", id: sim.organizationId },
      { name: "ci-small-1a2b3c4d", provider_name: "fake", image: "img", flavor: "small", os_type: "linux", os_arch: "amd64", labels: ["linux"], max_runners: 2, min_idle_runners: 1, enabled: true },
    );
    const poolId = sim.addPool("fake");
    sim.addPoolRunner(poolId, { name: "pool-runner-1", runnerStatus: "active" });
    for (let i = 0; i < 100 && sim.instances().filter((r) => r.scaleSetId === scaleSet.id).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    sim.clearRequests();

    const controller = await garm.getController();
    assert.equal(controller.controllerId, sim.controllerId());
    assert.equal(controller.controllerWebhookUrl, `${sim.url}/webhooks/${sim.controllerId()}`);
    assert.deepEqual((await garm.getProviders()).providers, [{ name: "fake", type: "external", description: "fake provider for tests" }]);
    assert.equal((await garm.getEndpoint({ name: "GitHub.com" })).name, "github.com");
    const credentials = await garm.getCredentials({ name: "acme-pat", endpoint: "github.com" });
    assert.equal(credentials.authType, "pat");
    assert.equal(Object.keys(credentials).some((k) => /token|secret|key/i.test(k)), false);
    assert.equal((await garm.getOrganization({ name: "ACME" })).id, sim.organizationId);
    assert.equal((await garm.getRepository({ name: "acme/app", endpoint: "github.com" })).id, sim.repositoryId);
    const system = await garm.getTemplate({ forge: "github", osType: "linux" });
    assert.equal(system.name, "github_linux");
    assert.equal(system.owner, "system");
    assert.ok((await garm.getTemplates()).templates.some((t) => t.id === system.id));

    const byName = await garm.getScaleSet({ name: "ci-small", organization: "acme" });
    assert.equal(byName.id, scaleSet.id);
    assert.equal(byName.maxRunners, 2);
    assert.equal(byName.entityId, sim.organizationId);
    const byId = await settle(garm.getScaleSetOutput({ id: pulumi.output(scaleSet.id) }));
    assert.equal(byId.name, "ci-small-1a2b3c4d");
    const runners = (await garm.getRunners({ scaleSetId: scaleSet.id })).runners;
    assert.ok(runners.length >= 1, "the scale set keeps one idle runner");
    assert.ok(runners.every((r) => r.name && r.status && r.createdAt));

    const pool = await garm.getPool({ id: poolId });
    assert.equal(pool.runnerCount, 1);
    assert.deepEqual(await settle(garm.getRunnersOutput({ poolId }).apply((r) => r.runners.map((x) => x.name))), ["pool-runner-1"]);

    // A second read of the same thing, from another place in the program, asks GARM nothing new.
    await garm.getController();
    await garm.getOrganization({ name: "acme" });
    const calls = sim.requests().map((r) => `${r.method} ${r.path}${r.query}`);
    assert.equal(calls.filter((c) => c.endsWith("/auth/login")).length, 1, calls.join("\n"));
    assert.equal(new Set(calls).size, calls.length, `a request made twice:\n${calls.join("\n")}`);
    assert.ok(calls.every((c) => c.startsWith("GET ") || c.endsWith("/auth/login")), `a write:\n${calls.join("\n")}`);
  });

  it("fails with what was looked for and what GARM holds nearest", async () => {
    await assert.rejects(garm.getOrganization({ name: "acne" }), /getOrganization: GARM has no organization named "acne"; nearest it holds: acme \(endpoint github\.com\)/);
    await assert.rejects(garm.getEndpoint({ name: "github.com", forge: "gitea" }), /getEndpoint: GARM has no gitea endpoint named "github\.com"; it holds no gitea endpoint; if it is a github endpoint, give forge: github/);
    await assert.rejects(garm.getScaleSet({ id: 999 }), /getScaleSet: GARM has no scale set with id 999/);
  });

  it("reads the GARM a call names in its garm option instead of the stack's, one login per GARM, the answer no secret", async () => {
    const other = await startSimulator({ tickMs: 100 });
    try {
      sim.clearRequests();
      const there = { url: other.url, username: other.username, password: other.password };
      assert.equal((await garm.getController({}, { garm: there })).controllerId, other.controllerId());
      const output = garm.getControllerOutput({}, { garm: { ...there, password: pulumi.secret(other.password) } });
      assert.equal((await settle(output)).controllerId, other.controllerId());
      assert.equal(await pulumi.isSecret(output), false, "the password makes no answer secret");
      assert.equal((await garm.getOrganization({ name: "acme" }, { garm: there })).id, other.organizationId);
      assert.deepEqual(sim.requests(), [], "the stack's GARM is not called for a call that names another");
      assert.equal(other.requests().filter((r) => r.path.endsWith("/auth/login")).length, 1, "one login per GARM");
      // The stack's GARM still answers calls that name none.
      assert.equal((await garm.getController()).controllerId, sim.controllerId());
      await assert.rejects(garm.getController({}, { garm: { url: "garm-eu", username: "admin" } as never }), (err: Error) => {
        assert.match(err.message, /^getController: .*garm\.url: garm\.url "garm-eu" is not a URL/);
        assert.match(err.message, /garm\.password: /);
        return true;
      });
    } finally {
      await other.stop();
    }
  });

  it("without connection settings fails naming the setting to set", async () => {
    const saved = { url: process.env.GARM_URL };
    delete process.env.GARM_URL;
    pulumi.runtime.setAllConfig({}, []);
    resetFunctionConnection();
    try {
      await assert.rejects(garm.getController(), /getController: garm:url is not set: run `pulumi config set garm:url/);
    } finally {
      if (saved.url !== undefined) process.env.GARM_URL = saved.url;
      pulumi.runtime.setAllConfig({ "garm:url": sim.url, "garm:username": sim.username, "garm:password": sim.password }, ["garm:password"]);
      resetFunctionConnection();
    }
  });
});
