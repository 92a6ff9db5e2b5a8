import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, QUICK_RESTART, setup, ticks } from "./helpers";
import { startSimulator, type Simulator } from "../../../simulator";

describe("simulator: providers from the GARM config (§9, §2.3)", () => {
  let dir: string;
  let exe: string;
  let config: string;
  let sim: Simulator | undefined;
  let api: Client;

  const providerBlock = (name: string, description = `${name} runners`) =>
    `[[provider]]\nname = "${name}"\nprovider_type = "external"\ndescription = "${description}"\n  [provider.external]\n  provider_executable = "${exe}"\n`;
  const writeConfig = (...names: string[]) =>
    writeFileSync(config, `[default]\n\n[jwt_auth]\nsecret = "x"\n\n${names.map((n) => providerBlock(n)).join("\n")}`);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "garm-sim-"));
    exe = join(dir, "provider");
    writeFileSync(exe, "#!/bin/sh\nexit 0\n");
    chmodSync(exe, 0o755);
    config = join(dir, "config.toml");
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("§9.4 GET /providers lists the [[provider]] sections as {name, type: external, description}", async () => {
    writeConfig("openstack", "lxd");
    ({ sim, api } = await setup({ garmConfigPath: config, ...QUICK_RESTART }));
    const r = await api.get("/providers");
    assert.equal(r.status, 200);
    const sorted = [...r.body].sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual(sorted, [
      { name: "lxd", type: "external", description: "lxd runners" },
      { name: "openstack", type: "external", description: "openstack runners" },
    ]);
  });

  it("§9.2 providers are loaded only at start and on restart()", async () => {
    writeConfig("a");
    ({ sim, api } = await setup({ garmConfigPath: config, ...QUICK_RESTART }));
    writeConfig("a", "b");
    assert.deepEqual((await api.get("/providers")).body.map((p: { name: string }) => p.name), ["a"]);
    await sim.restart();
    const names = (await api.get("/providers")).body.map((p: { name: string }) => p.name).sort();
    assert.deepEqual(names, ["a", "b"]);
    // JWTs stay valid across the restart.
    assert.equal((await api.get("/scalesets")).status, 200);
  });

  it("§9.1 duplicate provider names: GARM refuses to start, so restart() rejects and the simulator stops serving", async () => {
    writeConfig("a");
    ({ sim, api } = await setup({ garmConfigPath: config, ...QUICK_RESTART }));
    writeConfig("a", "a");
    await assert.rejects(sim.restart(), /duplicate provider name a/);
    await assert.rejects(fetch(`${sim.url}/api/v1/providers`));
    writeConfig("a");
    await sim.restart();
    assert.equal((await api.get("/providers")).status, 200);
  });

  it("§9.1 a missing provider executable or an unknown provider type makes startup fail", async () => {
    writeFileSync(config, `[[provider]]\nname = "x"\nprovider_type = "external"\n  [provider.external]\n  provider_executable = "${dir}/missing"\n`);
    await assert.rejects(startSimulator({ garmConfigPath: config, tickMs: 0 }), /failed to access/);
    writeFileSync(config, `[[provider]]\nname = "x"\nprovider_type = "lxd"\n`);
    await assert.rejects(startSimulator({ garmConfigPath: config, tickMs: 0 }), /unknown provider type/);
  });

  it("§9.3 a scale set whose provider is gone after restart: DELETE /instances only changes status and the scale set stays undeletable", async () => {
    writeConfig("keep", "gone");
    ({ sim, api } = await setup({ garmConfigPath: config, ...QUICK_RESTART }));
    const ss = await api.createScaleSet({ provider_name: "gone", enabled: false });
    const name = sim.addRunner(ss.id);
    writeConfig("keep");
    await sim.restart();
    assert.equal((await api.get(`/scalesets/${ss.id}`)).status, 200, "still readable");
    assert.equal((await api.put(`/scalesets/${ss.id}`, { max_runners: 3 })).status, 200, "PUT works");
    assert.equal((await api.del(`/instances/${name}?forceRemove=true`)).status, 200);
    await ticks(sim, 5);
    assert.equal((await api.get(`/instances/${name}`)).body.status, "pending_force_delete", "never torn down");
    const r = await api.del(`/scalesets/${ss.id}`);
    assert.deepEqual([r.status, r.body.details], [400, "scale set has runners"]);
    // Restoring the provider and restarting heals it.
    writeConfig("keep", "gone");
    await sim.restart();
    await ticks(sim, 2);
    assert.equal((await api.get(`/instances/${name}`)).status, 404);
    assert.equal((await api.del(`/scalesets/${ss.id}`)).status, 200);
  });

  it("§6.3 restart: creating and deleting runners become pending_delete", async () => {
    ({ sim, api } = await setup(QUICK_RESTART));
    const ss = await api.createScaleSet({ enabled: false });
    const a = sim.addRunner(ss.id, { status: "creating" });
    const b = sim.addRunner(ss.id, { status: "deleting" });
    await sim.restart();
    assert.equal((await api.get(`/instances/${a}`)).body.status, "pending_delete");
    assert.equal((await api.get(`/instances/${b}`)).body.status, "pending_delete");
  });

  it("§2.3 GET /pools is a list, empty by default; a pool added through the control API names its provider", async () => {
    ({ sim, api } = await setup());
    assert.deepEqual((await api.get("/pools")).body, []);
    const id = sim.addPool("fake");
    const pools = (await api.get("/pools")).body;
    assert.equal(pools.length, 1);
    assert.equal(pools[0].id, id);
    assert.equal(pools[0].provider_name, "fake");
    assert.equal((await api.get(`/pools/${id}`)).body.provider_name, "fake");
  });

  it("seed: the default provider `fake` exists only without a config file", async () => {
    ({ sim, api } = await setup());
    assert.deepEqual((await api.get("/providers")).body, [{ name: "fake", type: "external", description: "fake provider for tests" }]);
  });
});
