// examples/two-garms with real GARM v0.2.1 as one region and the simulator as the other: the program as a user runs it
// (package from its npm tarball, real `pulumi` CLI and Node host), up, a label change in the simulator's region that
// calls real GARM for nothing but reads, destroy. Real GARM's answers to the connection, the identity check and the
// drain keep the per-resource connection honest where the simulator could be lenient.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type MockGithub, startMockGithub } from "../../harness/mock-github";
import { locateLanguageHost, locatePulumi } from "../../harness/pulumi-cli";
import { twoGarmsConfig } from "../support/two-garms";
import { PulumiProject, packOnce } from "../../harness/pulumi-cli/project";
import { type RealGarm, locateGarm, startRealGarm } from "../../harness/real-garm";
import { type Simulator, startSimulator } from "../../simulator";

describe("e2e: two GARMs from one TypeScript program, real GARM v0.2.1 and the simulator (examples/two-garms)", function () {
  this.timeout(600_000);
  let workDir = "";
  let mock: MockGithub | undefined;
  let eu: RealGarm | undefined;
  let us: Simulator | undefined;
  let project: PulumiProject | undefined;

  before(async () => {
    locatePulumi();
    locateLanguageHost();
    const garmBinary = locateGarm();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-two-garms-"));
    mock = await startMockGithub({ longPollMs: 1500 });
    const tarball = packOnce();
    [eu, us] = await Promise.all([startRealGarm({ garmBinary, workDir, mockGithubUrl: mock.url }), startSimulator({ tickMs: 100 })]);
    project = await PulumiProject.fromExample({ example: "two-garms", tarball: await tarball });
    await project.initStack("dev", twoGarmsConfig(eu!, us!));
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed" && eu) console.log(`    GARM log tail:\n${eu.logs().split("\n").slice(-40).join("\n")}`);
  });

  after(async () => {
    project?.close();
    await eu?.stop();
    await us?.stop();
    await mock?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  const realScaleSets = async () => (await eu!.api<{ id: number; name: string }[]>("GET", "/scalesets")).body;

  it("up makes a scale set in each GARM, each recording its own GARM", async () => {
    await project!.cli(["up", "--yes"]);
    const out = (await project!.outputs()) as Record<"eu" | "us", Record<string, unknown>>;
    assert.equal(out.eu.garmControllerId, eu!.controllerId);
    assert.equal(out.us.garmControllerId, us!.controllerId());
    assert.deepEqual((await realScaleSets()).map((s) => s.id), [out.eu.scaleSetId]);
    assert.deepEqual(us!.scaleSets().map((s) => s.id), [out.us.scaleSetId]);
  });

  it("a label change in the simulator's region leaves real GARM's scale set as it was", async () => {
    const before = await realScaleSets();
    await project!.setConfig({ usLabels: JSON.stringify(["linux", "x64", "gpu"]) });
    us!.clearRequests();
    await project!.cli(["up", "--yes"]);
    assert.deepEqual(await realScaleSets(), before);
    assert.equal(us!.scaleSets().length, 1);
    await project!.cli(["preview", "--expect-no-changes"]);
  });

  it("destroy deletes each scale set in its own GARM", async () => {
    await project!.cli(["destroy", "--yes"]);
    assert.deepEqual(await realScaleSets(), []);
    assert.deepEqual(us!.scaleSets(), []);
    console.log(`      ${project!.timings()}`);
  });
});
