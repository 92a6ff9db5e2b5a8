// What `pulumi destroy` shows while ten scale sets drain at once, with the real Pulumi CLI against the GARM simulator
// (issue 13, item 8). Pulumi puts a dynamic provider's lines on the stack row, so each line names its scale set, and a
// drain prints a line when what it waits on changes, not on every poll.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { type Simulator, startSimulator } from "../../../simulator";
import { locatePulumi, runPulumi } from "../../../harness/pulumi-cli";

const SCALE_SETS = 10;
const POLL_SECONDS = 1;
/** How long the jobs run once the destroy has started: several polls of an unchanged state. */
const JOBS_RUN_MS = 6_000;

describe("drain progress with the real Pulumi CLI", function () {
  this.timeout(180_000);
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
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-drain-display-"));
    sim = await startSimulator({ tickMs: 200, consolidationMs: 1000 });
  });
  afterEach(async () => {
    await sim?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const program = async () => {
    for (let i = 1; i <= SCALE_SETS; i++) {
      new garm.GarmScaleSet(`team-${i}`, {
        name: `team-${i}`,
        organization: "acme",
        providerName: "fake",
        image: "ubuntu-24.04",
        flavor: "small",
        labels: ["linux", "x64", `team-${i}`],
        maxRunners: 2,
        drain: { timeoutSeconds: 120, pollSeconds: POLL_SECONDS },
      });
    }
    return {};
  };
  const pulumi = (op: "up" | "destroy", onOutput?: (s: string) => void) =>
    runPulumi({
      workDir: dir,
      stackName: "drain-display",
      projectName: "drain-display",
      program,
      op,
      onOutput,
      config: { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } },
    });

  it(`destroying ${SCALE_SETS} scale sets with busy runners prints one line per scale set per state change, each naming its scale set`, async () => {
    const up = await pulumi("up");
    assert.ok(up.exitOk, `${up.error?.message}\n${up.stdout}`);
    const sets = sim.scaleSets();
    assert.equal(sets.length, SCALE_SETS);
    const runners = sets.map((ss) => sim.addRunner(ss.id, { name: `garm-busy-${ss.id}` }));
    for (const r of runners) sim.startJob(r);

    let output = "";
    let finished = false;
    const destroying = pulumi("destroy", (s) => (output += s)).finally(() => (finished = true));
    // Pulumi deletes a few scale sets at a time (its default parallelism), so each job ends JOBS_RUN_MS after its own
    // scale set's drain printed its first line.
    const seen = new Map<string, number>();
    while (!finished && seen.size < runners.length + 1) {
      for (const r of runners) if (!seen.has(r) && output.includes(`[${r}: `)) seen.set(r, Date.now());
      for (const [r, at] of seen) {
        if (at > 0 && Date.now() - at >= JOBS_RUN_MS) {
          sim.completeJob(r);
          seen.set(r, 0);
        }
      }
      if ([...seen.values()].filter((at) => at === 0).length === runners.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const down = await destroying;
    assert.ok(down.exitOk, `${down.error?.message}\n${down.stdout}\n${down.stderr}`);
    assert.deepEqual(sim.scaleSets(), []);
    if (process.env.SHOW_DRAIN_DISPLAY === "1") console.log(down.stdout);

    const drainLines = down.stdout.split("\n").filter((l) => l.includes("draining:"));
    for (const ss of sets) {
      const mine = drainLines.filter((l) => l.includes(`GarmScaleSet ${ss.name} (id ${ss.id}): `));
      // Busy, then being removed (GARM's consolidation noticed the finished job), perhaps once more while it goes.
      assert.ok(mine.length >= 1 && mine.length <= 3, `${ss.name}: ${mine.length} lines over ${JOBS_RUN_MS / 1000}s+ of polls:\n${mine.join("\n")}`);
      assert.match(mine[0], new RegExp(`draining: 1 busy \\[garm-busy-${ss.id}: job "[^"]+" \\(id \\d+\\) in_progress for \\d+s\\]`));
      // The CLI lists each line twice: as it comes, and again under Diagnostics at the end.
      const closing = down.stdout.split("Diagnostics:")[0].split("\n").filter((l) => l.includes(`GarmScaleSet ${ss.name} (id ${ss.id}): drained and deleted from GARM`));
      assert.equal(closing.length, 1, `${ss.name}: one closing line in the run's progress, got ${closing.length}`);
    }
    assert.equal(drainLines.length, drainLines.filter((l) => /GarmScaleSet \S+ \(id \d+\): /.test(l)).length, "every line names its scale set");
  });
});
