import * as assert from "node:assert/strict";
import * as sinon from "sinon";
import {
  RestartCoordinator,
  RestartFailedError,
  outputTail,
  runShellCommand,
  type CommandResult,
} from "../../../provider/kinds/garm-provider/restart";

const ok: CommandResult = { code: 0, signal: null, output: "", timedOut: false };

describe("garm-provider restart coordinator", () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => {
    clock = sinon.useFakeTimers();
  });
  afterEach(() => clock.restore());

  it("runs one restart for several changes made together", async () => {
    const run = sinon.stub().resolves(ok);
    const c = new RestartCoordinator({ run, quietMs: 500 });
    const all = Promise.all([c.request("restart", 60_000), c.request("restart", 30_000)]);
    await clock.tickAsync(200);
    const third = c.request("restart", 90_000); // still within the quiet window of the others
    await clock.tickAsync(499);
    assert.equal(run.callCount, 0, "waits for the quiet window");
    await clock.tickAsync(1);
    await Promise.all([all, third]);
    assert.equal(run.callCount, 1);
    assert.deepEqual(run.firstCall.args, ["restart", 90_000], "the longest timeout of the batch");
  });

  it("waits for a change still under way on the host (hold) to join the batch, however long past the quiet window, up to maxDelayMs", async () => {
    const run = sinon.stub().resolves(ok);
    const c = new RestartCoordinator({ run, quietMs: 500, maxDelayMs: 10_000 });
    const host = { label: "deploy@garm:22", run: sinon.stub().resolves(ok) };
    const release = c.hold(host);
    const first = c.request("restart", 60_000, host);
    await clock.tickAsync(3000);
    assert.equal(run.callCount, 0, "the other change is still under way");
    // The held change writes its block and asks for the restart: one run serves both.
    release();
    const second = c.request("restart", 60_000, host);
    await clock.tickAsync(499);
    assert.equal(run.callCount, 0);
    await clock.tickAsync(1);
    await Promise.all([first, second]);
    assert.equal(run.callCount, 1);

    // A hold on another host does not hold this one back, and a hold never delays a restart past maxDelayMs.
    const elsewhere = c.hold({ label: "other@garm2:22", run: host.run });
    const third = c.request("restart", 60_000, host);
    await clock.tickAsync(500);
    assert.equal(run.callCount, 2);
    await third;
    const stuck = c.hold(host);
    const fourth = c.request("restart", 60_000, host);
    await clock.tickAsync(9_999);
    assert.equal(run.callCount, 2);
    await clock.tickAsync(1);
    await fourth;
    assert.equal(run.callCount, 3);
    stuck();
    elsewhere();
  });

  it("puts changes made while a restart runs into the next restart", async () => {
    let finish!: (r: CommandResult) => void;
    const run = sinon.stub();
    run.onFirstCall().returns(new Promise<CommandResult>((r) => (finish = r)));
    run.onSecondCall().resolves(ok);
    const c = new RestartCoordinator({ run, quietMs: 100 });
    let firstDone = false;
    const first = c.request("restart", 1000).then(() => (firstDone = true));
    await clock.tickAsync(100);
    assert.equal(run.callCount, 1);
    const late = c.request("restart", 1000);
    await clock.tickAsync(1000);
    assert.equal(run.callCount, 1, "no second run while the first runs");
    finish(ok);
    await first;
    assert.equal(firstDone, true);
    await clock.tickAsync(100);
    await late;
    assert.equal(run.callCount, 2);
  });

  it("starts at the latest after maxDelayMs even if changes keep arriving", async () => {
    const run = sinon.stub().resolves(ok);
    const c = new RestartCoordinator({ run, quietMs: 500, maxDelayMs: 1200 });
    const waits = [c.request("r", 1000)];
    await clock.tickAsync(400);
    waits.push(c.request("r", 1000));
    await clock.tickAsync(400);
    waits.push(c.request("r", 1000));
    await clock.tickAsync(399);
    assert.equal(run.callCount, 0);
    await clock.tickAsync(1);
    await Promise.all(waits);
    assert.equal(run.callCount, 1);
  });

  it("keeps different restart commands apart", async () => {
    const run = sinon.stub().resolves(ok);
    const c = new RestartCoordinator({ run, quietMs: 10 });
    const p = Promise.all([c.request("a", 1), c.request("b", 1), c.request("a", 1)]);
    await clock.tickAsync(10);
    await p;
    assert.deepEqual(run.getCalls().map((x) => x.args[0]).sort(), ["a", "b"]);
  });

  it("fails every change of the batch with the exit code and the last output lines", async () => {
    const output = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n") + "\nJob for garm.service failed.\n\n";
    const run = sinon.stub().resolves({ code: 1, signal: null, output, timedOut: false });
    const c = new RestartCoordinator({ run, quietMs: 10 });
    const results = Promise.allSettled([c.request("systemctl restart garm", 1000), c.request("systemctl restart garm", 1000)]);
    await clock.tickAsync(10);
    for (const r of await results) {
      assert.equal(r.status, "rejected");
      const e = (r as PromiseRejectedResult).reason as RestartFailedError;
      assert.ok(e instanceof RestartFailedError);
      assert.match(e.message, /^the restart command `systemctl …` exited with code 1/);
      assert.match(e.message, /\| Job for garm\.service failed\."$/);
      assert.ok(!e.message.includes("\n"), "one line, as Pulumi's progress row shows only the first");
      assert.ok(!e.message.includes("line 10 "), "only the tail");
    }
  });
});

describe("garm-provider shell runner", () => {
  it("captures output and exit code", async () => {
    const r = await runShellCommand("echo out; echo err >&2; exit 3", 5000);
    assert.equal(r.code, 3);
    assert.match(r.output, /out/);
    assert.match(r.output, /err/);
    assert.equal(r.timedOut, false);
  });

  it("kills a command that runs too long", async () => {
    const r = await runShellCommand("echo started; sleep 5", 200);
    assert.equal(r.timedOut, true);
    assert.match(new RestartFailedError("x", r, 200).message, /did not finish within 0.2s and was killed/);
  });

  it("trims output to its last lines", () => {
    assert.equal(outputTail("a\n\n  b  \nc\n", 2), "  b\nc");
  });
});
