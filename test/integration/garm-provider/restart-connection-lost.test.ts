// A GARM restart over SSH whose connection is lost just after the restart was announced beside the config file, against
// a real OpenSSH server on loopback (harness/sshd.ts): the run, as the restart coordinator makes it, ends within
// restartTimeoutSeconds plus a small margin from the request however the connection went (frozen, cut, or the host
// unreachable for the reconnect), with a one-line error that says what happened; the announcement is withdrawn when
// the host can be reached again, and its withdrawal never holds the run up when it cannot.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { RestartCoordinator, type RestartHost } from "../../../provider/kinds/garm-provider/restart";
import { announceRestart, announcementPath, readAnnouncement } from "../../../provider/kinds/garm-provider/restart-announcement";
import { SshHost } from "../../../provider/machine/ssh-host";
import type { SshConnection } from "../../../provider/machine/ssh-connection";
import { useSshServer } from "../../support/ssh-server";


/** The processes below `pid` (its children, theirs, ...), with their command names. */
function descendants(pid: number): { pid: number; comm: string }[] {
  const rows = spawnSync("ps", ["-eo", "pid=,ppid=,comm="], { encoding: "utf8" })
    .stdout.split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((r) => r.length >= 3)
    .map(([p, pp, comm]) => ({ pid: Number(p), ppid: Number(pp), comm: comm! }));
  const out: { pid: number; comm: string }[] = [];
  const walk = (parent: number) => {
    for (const r of rows.filter((x) => x.ppid === parent)) {
      out.push({ pid: r.pid, comm: r.comm });
      walk(r.pid);
    }
  };
  walk(pid);
  return out;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      // already gone
    }
  }
}

const TIMEOUT_MS = 3000;
/** What the run may take past restartTimeoutSeconds: stopping the command, or giving up on a silent host. */
const MARGIN_MS = 2500;

describe("a GARM restart over SSH whose connection is lost after the announcement", function () {
  this.timeout(120_000);
  const hosts: SshHost[] = [];
  /** Processes this test stopped: the test's own sshd's session processes and its listener. */
  let frozen: number[] = [];
  let listenerStopped = false;

  const ssh = useSshServer();
  afterEach(async () => {
    if (listenerStopped) process.kill(ssh.server.pid, "SIGCONT");
    listenerStopped = false;
    signal(frozen, "SIGKILL");
    frozen = [];
    for (const h of hosts.splice(0)) h.closeNow();
  });

  const hostFor = (over: Partial<SshConnection> = {}) => {
    const h = new SshHost({ host: ssh.server.host, port: ssh.server.port, user: ssh.server.user, privateKey: ssh.server.clientKey, hostKey: ssh.server.hostKey, agentSocketPath: "", dialErrorLimit: 1, perDialTimeout: 5, ...over }, () => undefined);
    hosts.push(h);
    return h;
  };
  const configFile = async () => {
    const file = path.join(ssh.server.dir, `config-${Math.random().toString(16).slice(2)}.toml`);
    await fs.writeFile(file, "[default]\n", { mode: 0o600 });
    return file;
  };
  /** The restart as applyAndWait asks for it: announced, requested from the coordinator, withdrawn. */
  async function restartAnnounced(host: SshHost, file: string, command: string, afterAnnouncement: () => void | Promise<void>) {
    const coordinator = new RestartCoordinator({ run: (c, t, h?: RestartHost) => h!.run(c, t), quietMs: 50 });
    const withdraw = await announceRestart(host, file, TIMEOUT_MS);
    assert.ok(await fs.stat(announcementPath(file)).then(() => true), "the restart is announced beside the file");
    await afterAnnouncement();
    const started = Date.now();
    const error = await coordinator.request(command, TIMEOUT_MS, host).then(
      () => undefined,
      (e: Error) => e,
    );
    const ranMs = Date.now() - started;
    const withdrawStarted = Date.now();
    await withdraw();
    return { error, ranMs, withdrawMs: Date.now() - withdrawStarted };
  }

  it("a connection gone silent (its sshd session frozen): the run ends at restartTimeoutSeconds, and the announcement is withdrawn over a new one", async () => {
    const host = hostFor();
    const file = await configFile();
    const r = await restartAnnounced(host, file, "echo restarted", () => {
      frozen = descendants(ssh.server.pid).map((p) => p.pid);
      assert.ok(frozen.length > 0, "the session's sshd processes");
      signal(frozen, "SIGSTOP");
    });
    assert.ok(r.ranMs <= TIMEOUT_MS + MARGIN_MS, `the run took ${r.ranMs} ms, past the ${TIMEOUT_MS} ms timeout`);
    assert.ok(r.error, "the restart is not reported as done");
    assert.match(r.error.message, /^the restart command `echo …` did not start on \S+ within 3s: the SSH connection gave no answer; nothing was run there/);
    assert.ok(!r.error.message.includes("\n"), r.error.message);
    assert.ok(r.withdrawMs <= 8000, `the withdrawal took ${r.withdrawMs} ms`);
    await assert.rejects(fs.stat(announcementPath(file)), "the announcement is withdrawn");
  });

  it("a connection cut while the command runs: the run ends at once, saying the connection was lost and the outcome is unknown", async () => {
    const host = hostFor();
    const file = await configFile();
    const marker = path.join(ssh.server.dir, `ran-${Math.random().toString(16).slice(2)}`);
    let cutAt = 0;
    const r = await restartAnnounced(host, file, `echo $$ >${marker}.new; mv ${marker}.new ${marker}; exec sleep 20`, () => {
      // Once the command runs, the session's sshd processes die (the command itself is left, as a lost network leaves it).
      const cut = setInterval(() => {
        if (!spawnSync("sh", ["-c", `test -e ${marker}`]).status) {
          clearInterval(cut);
          cutAt = Date.now();
          signal(descendants(ssh.server.pid).filter((p) => p.comm === "sshd" || p.comm.startsWith("sshd")).map((p) => p.pid), "SIGKILL");
        }
      }, 50);
    });
    assert.ok(cutAt > 0, "the command ran before the cut");
    assert.ok(r.ranMs <= TIMEOUT_MS + MARGIN_MS, `the run took ${r.ranMs} ms`);
    assert.ok(r.error);
    assert.match(r.error.message, /^the restart command `echo …` was cut off: the SSH connection to \S+ was lost while it ran, so whether GARM restarted is not known; check GARM there and run pulumi up again/);
    assert.ok(!r.error.message.includes("\n"), r.error.message);
    await assert.rejects(fs.stat(announcementPath(file)), "the announcement is withdrawn over a new connection");
    // The command outlives the cut, as on a host that lost its network; this test's own process, stopped by its pid.
    signal([Number((await fs.readFile(marker, "utf8")).trim())], "SIGKILL");
  });

  it("a host unreachable for the reconnect (its sshd stopped): the run ends within restartTimeoutSeconds, and the announcement left behind expires", async () => {
    const host = hostFor({ dialErrorLimit: 3, perDialTimeout: 2 });
    const file = await configFile();
    const r = await restartAnnounced(host, file, "echo restarted", () => {
      signal(descendants(ssh.server.pid).map((p) => p.pid), "SIGKILL");
      process.kill(ssh.server.pid, "SIGSTOP");
      listenerStopped = true;
    });
    assert.ok(r.ranMs <= TIMEOUT_MS + MARGIN_MS, `the run took ${r.ranMs} ms`);
    assert.ok(r.error);
    assert.match(r.error.message, /^the restart command `echo …` did not start on \S+ within 3s: still connecting; nothing was run there/);
    assert.ok(r.withdrawMs <= 6000, `the withdrawal took ${r.withdrawMs} ms`);
    // Left behind, the announcement only ever covers its own window: GARM is never taken as down for longer.
    process.kill(ssh.server.pid, "SIGCONT");
    listenerStopped = false;
    const left = await readAnnouncement(hostFor(), file);
    assert.ok(left === undefined || left.remainingMs <= 10_000 + 2 * TIMEOUT_MS, JSON.stringify(left));
  });
});
