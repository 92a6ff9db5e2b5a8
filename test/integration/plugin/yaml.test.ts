// The YAML quick start through the garm resource plugin, with the real CLI, the real YAML language host and the plugin
// installed from its tarball, against GARM simulators: preview, up, a label change, a no-change preview, destroy;
// `pulumi import` of a scale set made over REST; two explicit provider instances reaching two GARMs.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { GarmClient } from "../../../provider/garm/client";
import { liveName } from "../../../provider/scaleset/naming";
import { INITIAL_GARM_CONFIG, type SimulatedHost, startSimulatedHost, waitFor } from "../../../scripts/demo/host";
import { REPO_ROOT } from "../../support/pulumi-cli/project";
import { type Simulator, startSimulator } from "../../support/simulator";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";

const writes = (sim: Simulator) => sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));

describe("YAML programs through the garm resource plugin (real CLI, YAML host, simulator)", function () {
  this.timeout(300_000);
  let tarball: string;
  const cleanup: (() => unknown)[] = [];

  before(function () {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) {
      throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    }
    tarball = buildPluginOnce();
  });

  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function project(example: string, hostOpts: { tickMs?: number } = {}): Promise<{ p: PluginProject; host: SimulatedHost }> {
    const host = await startSimulatedHost({ prefix: "pulumi-garm-plugin-host-", ...hostOpts });
    cleanup.push(() => host.close());
    const p = new PluginProject(path.join(REPO_ROOT, "examples", example), undefined, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(tarball);
    return { p, host };
  }

  it("quickstart: preview, up, label change (replace, new generation first), no-change preview, destroy", async () => {
    const { p, host } = await project("quickstart-yaml");
    await p.initStack("dev", host.stackConfig);
    // A list in stack config is set element by element; the program's default is [linux, x64].
    await p.cli(["config", "set", "--path", "labels[0]", "linux"]);
    await p.cli(["config", "set", "--path", "labels[1]", "x64"]);

    host.sim.clearRequests();
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { create: 3 }, "the stack, GarmProvider fake and ScaleSet small");
    assert.deepEqual(writes(host.sim), [], "preview changes nothing in GARM");

    await p.cli(["up", "--yes"]);
    const first = await p.outputs();
    const expected = liveName("ci-small", ["linux", "x64"], "fake", "hashed");
    assert.equal(first.liveName, expected);
    assert.deepEqual(host.sim.scaleSets().map((s) => [s.id, s.name, s.maxRunners]), [[first.scaleSetId, expected, 2]]);
    assert.ok(host.sim.providers().some((pr) => pr.name === "fake"), "GarmProvider fake's block was loaded by GARM");
    assert.ok(host.garmConfig().includes('"garm-quickstart-yaml"'), "the block names this project as its owner");

    await p.cli(["config", "set", "--path", "labels[2]", "large"]);
    const relabel = await p.preview(["--diff"]);
    const step = relabel.steps.find((s) => s.urn.endsWith("::small"));
    assert.equal(step?.op, "replace");
    assert.deepEqual(step?.replaceReasons, ["labels"], "preview --diff names the field that forces the replacement");

    host.sim.clearRequests();
    await p.cli(["up", "--yes"]);
    const second = await p.outputs();
    assert.equal(second.liveName, liveName("ci-small", ["linux", "x64", "large"], "fake", "hashed"));
    assert.deepEqual(host.sim.scaleSets().map((s) => s.name), [second.liveName], "the old generation is gone");
    const log = host.sim.requests();
    const created = log.findIndex((r) => r.method === "POST" && r.path.endsWith("/scalesets"));
    const disabled = log.findIndex((r) => r.method === "PUT" && r.path.endsWith(`/scalesets/${first.scaleSetId}`));
    assert.ok(created >= 0 && disabled > created, "the new generation is created before the old one is disabled");

    host.sim.clearRequests();
    const still = await p.preview();
    assert.deepEqual(still.changeSummary, { same: 3 });
    assert.deepEqual(writes(host.sim), []);

    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(host.sim.scaleSets(), []);
    await waitFor("GARM to drop provider fake", () => (host.sim.providers().length === 0 ? true : undefined));
    assert.equal(host.garmConfig(), INITIAL_GARM_CONFIG, "the operator's GARM config is back byte for byte");
    console.log(`      ${p.timings()}`);
  });

  it("imports a scale set created over REST; the program Pulumi writes for it previews with no change", async () => {
    const { p, host } = await project("quickstart-yaml");
    const rest = new GarmClient({ url: host.sim.url, username: host.sim.username, password: host.sim.password });
    const made = await rest.createScaleSet(
      { kind: "organization", id: host.sim.organizationId },
      { name: "legacy-runners", provider_name: "fake", image: "img", flavor: "big", os_type: "linux", os_arch: "amd64", labels: ["self-hosted", "arm"], max_runners: 4, enabled: true },
    );
    // An empty program: only the imported resource.
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: garm-import-yaml\nruntime: yaml\n");
    await p.initStack("dev", { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true } });
    const generated = path.join(p.workDir, "generated.yaml");
    await p.cli(["import", "garm:index:ScaleSet", "legacy", String(made.id), "--yes", "--out", generated]);
    const code = fs.readFileSync(generated, "utf8");
    assert.match(code, /type: garm:(index:)?ScaleSet/);
    assert.match(code, /name: legacy-runners/);
    fs.appendFileSync(path.join(p.dir, "Pulumi.yaml"), code);
    host.sim.clearRequests();
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { same: 2 }, `after import the written program has no change:\n${code}`);
    assert.deepEqual(writes(host.sim), []);
    assert.deepEqual(host.sim.scaleSets().map((s) => s.name), ["legacy-runners"]);
  });

  it("two explicit provider instances reach two GARMs", async () => {
    const { p } = await project("two-providers-yaml");
    const west = await startSimulator({ tickMs: 100 });
    cleanup.push(() => west.stop());
    const east = await startSimulator({ tickMs: 100 });
    cleanup.push(() => east.stop());
    await p.initStack("dev", {
      eastUrl: east.url,
      eastUsername: east.username,
      eastPassword: { value: east.password, secret: true },
      westUrl: west.url,
      westUsername: west.username,
      westPassword: { value: west.password, secret: true },
    });
    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    assert.deepEqual(east.scaleSets().map((s) => s.name), [out.eastLiveName]);
    assert.deepEqual(west.scaleSets().map((s) => s.name), [out.westLiveName]);
    const state = (await p.cli(["stack", "export"])).stdout;
    assert.ok(!state.includes(east.password) && !state.includes(west.password), "the passwords are kept as secrets in state");
    await p.cli(["destroy", "--yes"]);
    assert.deepEqual([east.scaleSets().length, west.scaleSets().length], [0, 0]);
  });
});
