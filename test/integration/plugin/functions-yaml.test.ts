// A YAML program reading GARM with fn::invoke through the garm resource plugin, run by the real CLI and YAML language
// host against the GARM simulator (examples/functions-yaml): what the functions answer feeds a scale set and the stack's
// outputs; preview writes nothing to GARM; a look-up that names nothing fails preview with what GARM holds nearest.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { type Simulator, startSimulator } from "../../../simulator";
import { assertFunctionsOutputs } from "../../support/functions-outputs";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";

describe("YAML fn::invoke of the garm plugin's functions (real CLI, YAML host, simulator)", function () {
  this.timeout(300_000);
  let home: string;
  let sim: Simulator;
  let p: PluginProject;

  before(async function () {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) {
      throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    }
    const tarball = buildPluginOnce();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
    sim = await startSimulator({ tickMs: 100 });
    p = new PluginProject(path.join(REPO_ROOT, "examples", "functions-yaml"), home, [YAML_HOST_DIR]);
    await p.installPlugin(tarball);
    await p.initStack("dev", { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });
  });

  after(async () => {
    p?.close();
    await sim?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it("preview reads GARM and writes nothing; up builds a scale set from the answers; destroy removes it", async () => {
    sim.clearRequests();
    const preview = await p.preview();
    assert.equal(preview.changeSummary.create, 2, JSON.stringify(preview.changeSummary));
    const writesInPreview = sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));
    assert.deepEqual(writesInPreview, []);

    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    assertFunctionsOutputs(out, sim);
    assert.equal(out.controllerId, sim.controllerId());
    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(sim.scaleSets(), []);
  });

  it("an organization GARM does not hold fails preview with what was looked for and what GARM holds nearest", async () => {
    await p.cli(["config", "set", "organization", "acne"]);
    try {
      const r = await p.cli(["preview"], { expectOk: false });
      assert.notEqual(r.code, 0);
      assert.match(r.stdout + r.stderr, /getOrganization: GARM has no organization named "acne"; nearest it holds: acme \(endpoint github\.com\)/);
    } finally {
      await p.cli(["config", "rm", "organization"]);
    }
  });
});
