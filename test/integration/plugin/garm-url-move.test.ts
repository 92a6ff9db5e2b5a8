// Moving stack config `garm:url` to another GARM that reads the same config file (real CLI, garm plugin, YAML, two
// simulators): the plugin's DiffConfig replaces every resource, so the GarmProvider's replacement is created first and
// finds its own block already in the file, with the same owner. It takes the block over with a new generation, and the
// original's delete then leaves the block and GARM alone. Before generations that delete removed the block and
// restarted GARM, and `up` exited 0 with no provider in GARM while the state held one.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { startServiceManager } from "../../../harness/service-manager";
import { GarmClient } from "../../../provider/garm/client";
import { INITIAL_GARM_CONFIG, startSimulatedHost } from "../../../scripts/demo/host";
import { startSimulator } from "../../../simulator";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";

describe("moving garm:url to another GARM (real CLI, garm plugin, two simulators on one config file)", function () {
  this.timeout(600_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("the replaced GarmProvider's delete leaves the block its replacement took over; the new GARM lists the provider", async () => {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    const tarball = buildPluginOnce();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
    cleanup.push(() => fs.rmSync(home, { recursive: true, force: true }));
    const host = await startSimulatedHost({ prefix: "pulumi-garm-url-move-", tickMs: 0 });
    cleanup.push(() => host.close());
    // The other GARM reads the same file; one service restarts both, as one `systemctl restart garm` would.
    const other = await startSimulator({ garmConfigPath: host.garmConfigPath, tickMs: 0 });
    cleanup.push(() => other.stop());
    const service = await startServiceManager({ restart: () => Promise.all([host.sim.restart(), other.restart()]).then(() => undefined) });
    cleanup.push(() => service.close());

    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-yaml"), home, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(tarball);
    fs.writeFileSync(
      path.join(p.dir, "Pulumi.yaml"),
      `name: garm-url-move
runtime: yaml
resources:
  fake:
    type: garm:index:GarmProvider
    properties:
      name: fake
      description: fake runners
      executable: ${JSON.stringify(host.providerExecutable)}
      garmConfigPath: ${JSON.stringify(host.garmConfigPath)}
      restartCommand: ${JSON.stringify(service.restartCommand)}
      restartTimeoutSeconds: 20
`,
    );
    const login = (sim: { url: string; username: string; password: string }) => ({
      "garm:url": sim.url,
      "garm:username": sim.username,
      "garm:password": { value: sim.password, secret: true },
    });
    await p.initStack("dev", login(host.sim));
    await p.cli(["up", "--yes"]);
    const listed = async (sim: { url: string; username: string; password: string }) =>
      (await new GarmClient({ url: sim.url, username: sim.username, password: sim.password }).listProviders()).map((x) => x.name);
    assert.deepEqual(await listed(other), ["fake"]);
    const written = host.garmConfig();

    for (const [key, v] of Object.entries(login(other))) {
      const { value, secret } = typeof v === "string" ? { value: v, secret: false } : v;
      await p.cli(["config", "set", key, value, secret ? "--secret" : "--plaintext"]);
    }
    const preview = await p.preview();
    assert.equal(preview.changeSummary.replace, 1, JSON.stringify(preview.changeSummary));
    const up = await p.cli(["up", "--yes"]);
    assert.ok(up.stdout.includes("belongs to this resource's replacement"), up.stdout);
    const after = host.garmConfig();
    assert.ok(after.includes('# BEGIN pulumi-garm provider "fake"'), `the block is still in the file:\n${after}`);
    assert.equal(after.replace(/^# pulumi-garm owner: .*\n/m, ""), written.replace(/^# pulumi-garm owner: .*\n/m, ""), "only the owner line changed");
    assert.deepEqual(await listed(other), ["fake"], "the GARM garm:url names now lists the provider the state holds");
    await p.cli(["preview", "--expect-no-changes"]);

    await p.cli(["destroy", "--yes"]);
    assert.equal(host.garmConfig(), INITIAL_GARM_CONFIG, "destroy removes the block, byte for byte");
    assert.deepEqual(await listed(other), []);
  });
});
