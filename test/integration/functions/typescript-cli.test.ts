// examples/functions as a user runs it: the package installed from its npm tarball, the real `pulumi` CLI and Node
// language host, against the GARM simulator. The functions run in the program process during preview and up, read
// the stack's garm:* config (the password a secret), write nothing to GARM, and let the program exit when done. A failed
// look-up's message is checked in process (typescript.test.ts) and through the CLI in YAML (plugin/functions-yaml.test.ts):
// a Node program failing in an apply takes the CLI 80-95 s on the loaded test machine, with or without functions.
import { strict as assert } from "node:assert";
import { locateLanguageHost, locatePulumi } from "../../../harness/pulumi-cli";
import { PulumiProject, packOnce } from "../../../harness/pulumi-cli/project";
import { type Simulator, startSimulator } from "../../../simulator";
import { assertFunctionsOutputs } from "../../support/functions-outputs";

describe("TypeScript functions in a program run by the real CLI (examples/functions, simulator)", function () {
  this.timeout(600_000);
  let sim: Simulator;
  let project: PulumiProject;

  before(async function () {
    locatePulumi();
    locateLanguageHost();
    sim = await startSimulator({ tickMs: 100 });
    project = await PulumiProject.fromExample({ example: "functions", tarball: await packOnce() });
    await project.initStack("dev", { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });
  });

  after(async () => {
    project?.close();
    await sim?.stop();
  });

  it("preview reads GARM and writes nothing; up builds the scale set from what the functions answer; destroy", async () => {
    sim.clearRequests();
    const preview = await project.preview();
    assert.equal(preview.changeSummary.create, 2, JSON.stringify(preview.changeSummary));
    const writes = sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login"));
    assert.deepEqual(writes, []);
    assert.doesNotMatch(preview.result.stdout + preview.result.stderr, new RegExp(sim.password));

    await project.cli(["up", "--yes"]);
    const out = await project.outputs();
    assertFunctionsOutputs(out, sim);
    await project.cli(["destroy", "--yes"]);
    assert.deepEqual(sim.scaleSets(), []);
    console.log(`      ${project.timings()}`);
  });
});
