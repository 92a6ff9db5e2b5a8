// The restart command runner with commands that leave a daemon behind (issue 10 item 3): a restart command such as
// `garm --config … &` or `setsid garm … &` is done when its shell exits, whatever the daemon keeps open.
import * as assert from "node:assert/strict";
import { promises as fs, readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { runShellCommand } from "../../../provider/kinds/garm-provider/restart";
import { removeDir, tempDir } from "./helpers";

/** Whether `pid` runs; a killed process its new parent has not reaped yet (a zombie) does not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // The state follows the parenthesised command name in /proc/<pid>/stat.
    return !/\)\s+Z\s/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

describe("garm-provider shell runner with background daemons", function () {
  this.timeout(15_000);
  let dir: string;
  let daemons: number[];

  beforeEach(async () => {
    dir = await tempDir();
    daemons = [];
  });
  afterEach(async () => {
    for (const pid of daemons) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    await removeDir(dir);
  });

  /** Runs `command`, which must write its daemon's pid to `$PIDFILE`, and returns the result, elapsed ms and the pid. */
  async function runDaemonCommand(command: string, timeoutMs = 5000) {
    const pidFile = path.join(dir, "daemon.pid");
    const started = Date.now();
    const result = await runShellCommand(`PIDFILE=${pidFile}; ${command}`, timeoutMs);
    const elapsed = Date.now() - started;
    const pid = Number((await fs.readFile(pidFile, "utf8")).trim());
    assert.ok(pid > 0, "the command wrote its daemon's pid");
    daemons.push(pid);
    return { result, elapsed, pid };
  }

  for (const [what, command, output] of [
    ["a background job (`daemon &`)", "sleep 30 & echo $! > $PIDFILE", undefined],
    ["a detached session (`setsid daemon &`) with its output redirected", "echo started; setsid sleep 30 >/dev/null 2>&1 & echo $! > $PIDFILE", "started"],
    ["a detached session (`setsid daemon &`) that keeps our output", "echo started; setsid sleep 30 & echo $! > $PIDFILE", "started"],
  ] as const) {
    it(`settles when the shell exits, with success, and leaves ${what} running`, async () => {
      const { result, elapsed, pid } = await runDaemonCommand(command);
      assert.equal(result.timedOut, false, `reported as timed out: ${JSON.stringify(result)}`);
      assert.equal(result.code, 0);
      assert.ok(elapsed < 2000, `settled after ${elapsed} ms`);
      if (output) assert.match(result.output, new RegExp(output));
      // Give a wrongly aimed kill a moment to land before looking.
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(alive(pid), "the daemon is still running");
    });
  }

  it("still times out a command that itself hangs, and kills it and what it started in its process group", async () => {
    const { result, elapsed, pid } = await runDaemonCommand("sleep 30 & echo $! > $PIDFILE; echo waiting; sleep 30", 300);
    assert.equal(result.timedOut, true);
    assert.ok(elapsed < 2000, `settled after ${elapsed} ms`);
    assert.match(result.output, /waiting/);
    assert.ok(await waitGone(pid, 2000), "the background job of the hung command was killed with it");
    const leftover = (await fs.readdir(os.tmpdir())).filter((f) => f.startsWith(`pulumi-garm-restart-${process.pid}-`));
    assert.deepEqual(leftover, [], "the output file is removed");
  });

  it("does not kill a detached daemon when the command that started it times out", async () => {
    const { result, pid } = await runDaemonCommand("setsid sleep 30 >/dev/null 2>&1 & echo $! > $PIDFILE; sleep 30", 300);
    assert.equal(result.timedOut, true);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(alive(pid), "a daemon in its own session is not ours to kill");
  });
});
