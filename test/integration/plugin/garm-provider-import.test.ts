// `pulumi import garm:index:GarmProvider` of a [[provider]] entry an operator wrote by hand into GARM's config file
// (issue 26), with the real CLI, the garm plugin and a YAML project against the simulated GARM host, with a scale set on
// it: the import writes nothing and refers to the provider by its name, the preview after it plans only the marker update and says so, the up puts the markers around the entry
// without changing another byte or restarting GARM, and the program then previews with no change.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { GarmClient } from "../../../provider/garm/client";
import { startSimulatedHost } from "../../../scripts/demo/host";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";
import { writes } from "./quickstart-scenario";

const MANAGED_COMMENT = "# Managed by pulumi-garm (GarmProvider); edits inside this block are overwritten.";

describe("pulumi import of a hand-written GarmProvider entry (real CLI, garm plugin, simulator)", function () {
  this.timeout(600_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("imports it as it stands; the first up only puts the markers around it, without restarting GARM; then no change", async () => {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    const tarball = buildPluginOnce();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
    cleanup.push(() => fs.rmSync(home, { recursive: true, force: true }));
    const host = await startSimulatedHost({ prefix: "pulumi-garm-provider-import-", tickMs: 0 });
    cleanup.push(() => host.close());
    // Written by hand, with a comment of its own and a table after it, as an operator's file is.
    const entry = `[[provider]]\nname = "lxd"   # by hand\nprovider_type = "external"\ndescription = "LXD on this host"\n  [provider.external]\n  provider_executable = "${host.providerExecutable}"\n  environment_variables = ["PATH"]\n`;
    fs.appendFileSync(host.garmConfigPath, `\n${entry}\n[logging]\nlog_level = "info"\n`);
    await host.sim.restart();
    const handWritten = host.garmConfig();
    const restartsBefore = host.restarts();

    const p = new PluginProject(path.join(REPO_ROOT, "examples", "quickstart-yaml"), home, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(tarball);
    const header = "name: garm-provider-import\nruntime: yaml\n";
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), header);
    const restartCommand = String(host.stackConfig.restartCommand);
    await p.initStack("dev", { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true }, "garm:garmRestartCommand": restartCommand });

    // A scale set runs on the provider: imported with it, it refers to the provider's name.
    const rest = new GarmClient({ url: host.sim.url, username: host.sim.username, password: host.sim.password });
    const scaleSet = await rest.createScaleSet(
      { kind: "organization", id: host.sim.organizationId },
      { name: "on-lxd", provider_name: "lxd", image: "img", flavor: "big", os_type: "linux", os_arch: "amd64", labels: ["lxd"], max_runners: 2, enabled: true },
    );
    const plan = { resources: [{ type: "garm:index:GarmProvider", name: "lxd", id: `${host.garmConfigPath}#lxd` }, { type: "garm:index:GarmScaleSet", name: "on-lxd", id: String(scaleSet.id) }] };
    fs.writeFileSync(path.join(p.dir, "plan.json"), JSON.stringify(plan));
    host.sim.clearRequests();
    await p.cli(["import", "--file", "plan.json", "--yes", "--protect=false", "--out", "imported.yaml"]);
    const code = fs.readFileSync(path.join(p.dir, "imported.yaml"), "utf8");
    assert.equal(host.garmConfig(), handWritten, "the import changes nothing in the file");
    assert.match(code, /restartCommand: /, code);
    // The provider's id is not its name, so the name is the one output holding "lxd": Pulumi writes a reference.
    assert.match(code, /providerName: \$\{lxd\.name\}/, code);
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), `${header}${code}`);

    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { update: 1, same: 2 }, JSON.stringify(preview.steps));
    const step = preview.steps.find((s) => s.op === "update")!;
    assert.deepEqual(Object.keys(step.detailedDiff ?? {}), ["owner"], JSON.stringify(step));
    // Under the resource in the Diagnostics section of the preview.
    const said = await p.cli(["preview"]);
    assert.ok(
      said.stdout.includes(`GarmProvider "lxd": this update puts pulumi-garm's markers around the hand-written block in ${host.garmConfigPath}, byte for byte otherwise; GARM is not restarted`),
      said.stdout,
    );
    assert.equal(host.garmConfig(), handWritten, "previews change nothing in the file");

    await p.cli(["up", "--yes"]);
    const marked = host.garmConfig();
    assert.notEqual(marked, handWritten);
    const withoutMarkers = marked
      .split(/(?<=\n)/)
      .filter((l) => !/^# (BEGIN|END) pulumi-garm provider "lxd"\n$/.test(l) && !l.startsWith("# pulumi-garm owner: ") && l !== `${MANAGED_COMMENT}\n`)
      .join("");
    assert.equal(withoutMarkers, handWritten, "the up only put the markers around the entry");
    // The marking update records a generation of its own: the imported state had none.
    const generation = /"generation":"([0-9a-f]{16})"/.exec(marked)?.[1];
    assert.ok(generation, marked);
    assert.ok(marked.includes(`# BEGIN pulumi-garm provider "lxd"\n# pulumi-garm owner: {"project":"garm-provider-import","stack":"dev","resource":"lxd","generation":"${generation}"}\n${MANAGED_COMMENT}\n${entry}# END pulumi-garm provider "lxd"\n`), marked);
    assert.equal(host.restarts(), restartsBefore, "GARM is not restarted: it already runs the entry");

    await p.cli(["preview", "--expect-no-changes"]);
    assert.deepEqual(writes(host.sim), [], "nothing was written to GARM's API");
  });
});
