// What Pulumi's own verbose logging shows of the GARM password, with the real Pulumi CLI against the GARM simulator
// (issue 13, item 9). pulumi-garm keeps the password out of its outputs, state, errors and log lines; Pulumi's
// `--logtostderr -v=9` RPC logging prints secret stack config in clear, so such runs take the password from GARM_PASSWORD.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { type Simulator, startSimulator } from "../../../simulator";
import { type RunPulumiResult, locatePulumi, runPulumi } from "../../../harness/pulumi-cli";

describe("the GARM password in `pulumi up --logtostderr -v=9`", function () {
  this.timeout(120_000);
  let sim: Simulator;
  let dir = "";

  before(function () {
    try {
      locatePulumi();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-verbose-"));
    sim = await startSimulator({ tickMs: 0 });
  });
  afterEach(async () => {
    await sim?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const program = async () => {
    const set = new garm.GarmScaleSet("small", {
      name: "ci-small",
      organization: "acme",
      providerName: "fake",
      image: "ubuntu-24.04",
      flavor: "small",
      labels: ["linux", "x64"],
      maxRunners: 1,
    });
    return { liveName: set.liveName };
  };
  const verboseUp = (settings: { env?: Record<string, string>; config?: Record<string, string | { value: string; secret: boolean }> }) =>
    runPulumi({ workDir: dir, stackName: "verbose", projectName: "verbose", program, op: "up", logging: { logToStdErr: true, logVerbosity: 9 }, ...settings });
  const everything = (r: RunPulumiResult) => `${r.stdout}\n${r.stderr}\n${r.error?.message ?? ""}`;
  const stateFiles = () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk : (f: string) => files.push(f))(path.join(d, e.name));
    };
    walk(path.join(dir, "state"));
    return files.map((f) => fs.readFileSync(f, "utf8")).join("\n");
  };

  it("with GARM_PASSWORD set and no garm:password in config, prints no password, and state holds none", async () => {
    const up = await verboseUp({ env: { GARM_URL: sim.url, GARM_USERNAME: sim.username, GARM_PASSWORD: sim.password } });
    assert.ok(up.exitOk, `${up.error?.message}\n${up.stdout}`);
    assert.equal(sim.scaleSets().length, 1, "the provider logged in with GARM_PASSWORD and created the scale set");
    const out = everything(up);
    assert.ok((out.match(/"v":9}/g) ?? []).length > 100, "Pulumi's -v=9 log lines are in the output");
    assert.ok(!out.includes(sim.password), "the password appears in the verbose output");
    assert.ok(!stateFiles().includes(sim.password), "the password appears in the stack's state");
  });

  it("with garm:password as secret stack config, Pulumi's verbose logging prints it (the engine's behaviour, not pulumi-garm's)", async () => {
    const up = await verboseUp({
      config: { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } },
    });
    assert.ok(up.exitOk, `${up.error?.message}\n${up.stdout}`);
    const out = everything(up);
    if (process.env.SHOW_PASSWORD_LINES === "1") console.log(out.split("\n").filter((l) => l.includes(sim.password)).map((l) => l.slice(0, 400)).join("\n"));
    assert.ok(out.includes(sim.password), "Pulumi's RPC logging shows secret config: README tells users to use GARM_PASSWORD for such runs");
    assert.ok(!up.stdout.includes(sim.password), "pulumi-garm's own output (the default display) carries no password");
    assert.ok(!stateFiles().includes(sim.password), "the password appears in the stack's state");
  });
});
