// GarmProvider against the GARM simulator: real config file edits, a real restart command (curl to the simulator's
// restart control), and GET /providers, scale sets and pools over HTTP.
import * as assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { resetConnection } from "../../../provider/common/connection";
import { garmProvider } from "../../../provider/kinds/garm-provider/resource";
import { startSimulator, type Simulator } from "../../../simulator";
import { providerInputs } from "./provider-inputs";

const HAND_WRITTEN = (exe: string) => `# operator's config
[default]
enable_webhook_management = true

[[provider]]
name = "lxd_local"
provider_type = "external"
description = "hand-written"
  [provider.external]
  provider_executable = ${JSON.stringify(exe)}
`;

describe("GarmProvider with the GARM simulator", function () {
  this.timeout(30_000);
  let dir: string;
  let file: string;
  let exe: string;
  let sim: Simulator;
  let simLog: string[];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "garm-provider-it-"));
    exe = path.join(dir, "garm-provider-fake");
    await fs.writeFile(exe, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    file = path.join(dir, "config.toml");
    await fs.writeFile(file, HAND_WRITTEN(exe), { mode: 0o600 });
    simLog = [];
    sim = await startSimulator({ garmConfigPath: file, tickMs: 0, log: (l) => simLog.push(l) });
    resetConnection();
    const config: Record<string, string> = { "garm:url": sim.url, "garm:username": sim.username, "garm:password": sim.password };
    await garmProvider.configure!({
      config: {
        get: (k: string) => config[k],
        require: (k: string) => {
          if (!(k in config)) throw new Error(`missing ${k}`);
          return config[k];
        },
      },
    });
  });
  afterEach(async () => {
    await sim.stop();
    resetConnection();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const args = (name: string, over: Record<string, unknown> = {}) =>
    providerInputs({ url: sim.url, executable: exe, configFile: file }, name, over);
  const restarts = () => simLog.filter((l) => /^restarting/.test(l) || l.includes(" restarting")).length;

  async function checked(news: Record<string, unknown>) {
    const r = await garmProvider.check!({}, news);
    assert.deepEqual(r.failures ?? [], []);
    return r.inputs;
  }

  it("creates two providers with one restart, updates one, guards and deletes", async () => {
    const before = restarts();
    const [a, b] = await Promise.all([garmProvider.create(await checked(args("a"))), garmProvider.create(await checked(args("b")))]);
    assert.equal(restarts() - before, 1, simLog.join("\n"));
    assert.deepEqual(sim.providers().map((p) => p.name).sort(), ["a", "b", "lxd_local"]);
    assert.ok((await fs.readFile(file, "utf8")).startsWith(HAND_WRITTEN(exe)));
    assert.equal((await fs.stat(file)).mode & 0o777, 0o600);

    const news = await checked(args("a", { description: "changed" }));
    const d = await garmProvider.diff!(a.id, a.outs, news);
    assert.equal(d.changes, true);
    assert.deepEqual(d.replaces, []);
    const { outs } = await garmProvider.update!(a.id, a.outs, news);
    assert.equal(sim.providers().find((p) => p.name === "a")?.description, "changed");

    const poolId = sim.addPool("a");
    await assert.rejects(garmProvider.delete!(a.id, outs), new RegExp(`pool ${poolId}.*retry the delete on the next run`));
    assert.ok(sim.providers().some((p) => p.name === "a"));

    await garmProvider.delete!(b.id, b.outs);
    assert.deepEqual(sim.providers().map((p) => p.name).sort(), ["a", "lxd_local"]);
    assert.deepEqual(await garmProvider.read!(b.id, b.outs), {});
  });

  it("refuses at check a name a hand-written entry uses", async () => {
    const r = await garmProvider.check!({}, args("lxd_local"));
    assert.equal(r.failures?.[0]?.property, "name");
  });

  it("reports a failing restart command with its output and exit code", async () => {
    await assert.rejects(
      garmProvider.create(await checked(args("c", { restartCommand: "echo garm.service failed >&2; exit 4" }))),
      /exited with code 4.*garm\.service failed/s,
    );
  });
});
