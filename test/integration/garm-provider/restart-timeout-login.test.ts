// A restart command over SSH that exceeds its timeout, run as a login user whose shell is Debian's /bin/sh (dash), as
// the users GARM hosts give operators are, against a real OpenSSH server on loopback (harness/sshd.ts): the command's
// processes are stopped; and with `sudo: true` (the restart runs as root, which that user cannot stop) the run says the
// command may still run there instead of saying it was killed. Needs root: it makes a system user and a sudoers file.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { RestartFailedError } from "../../../provider/kinds/garm-provider/restart";
import { SshHost } from "../../../provider/machine/ssh-host";
import { ensureGroup, ensureUser, type HostUser } from "../../../harness/host-users";
import { ensureOpenSshServer, ensureSudo, startSshServer, type SshServer } from "../../../harness/sshd";

const UID = 4395;
const SUDOERS_FILE = "/etc/sudoers.d/pulumi-garm-it-restart-timeout";

/** The processes below `pid`, with their command lines. */
function descendants(pid: number): { pid: number; args: string }[] {
  const rows = spawnSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .stdout.split("\n")
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const out: { pid: number; args: string }[] = [];
  const walk = (parent: number) => {
    for (const r of rows.filter((x) => x.ppid === parent)) {
      out.push({ pid: r.pid, args: r.args });
      walk(r.pid);
    }
  };
  walk(pid);
  return out;
}

describe("a restart over SSH past its timeout, as a login user whose shell is /bin/sh", function () {
  this.timeout(60_000);
  let server: SshServer;
  let user: HostUser;
  const hosts: SshHost[] = [];

  before(async function () {
    if (process.getuid?.() !== 0) {
      console.log("      skipped: makes a system user and a sudoers file, which needs root");
      return this.skip();
    }
    const why = ensureOpenSshServer() ?? ensureSudo();
    if (why) {
      console.log(`      skipped: ${why}`);
      return this.skip();
    }
    ensureGroup(UID, "pgarm-restart");
    user = ensureUser({ uid: UID, name: "pgarm-restart", gid: UID });
    server = await startSshServer({ anyUser: true });
  });
  after(async () => {
    await fs.rm(SUDOERS_FILE, { force: true });
    await server?.stop();
  });
  afterEach(() => {
    for (const h of hosts.splice(0)) h.closeNow();
    // What a failing test left running: this test's own sshd's descendants, by pid.
    for (const p of descendants(server?.pid ?? -1).filter((d) => /sleep 3[01]/.test(d.args))) spawnSync("kill", ["-KILL", String(p.pid)]);
  });

  const hostFor = (sudo = false) => {
    const h = new SshHost({ host: server.host, port: server.port, user: user.name, privateKey: server.clientKey, hostKey: server.hostKey, agentSocketPath: "", dialErrorLimit: 1, perDialTimeout: 5, sudo }, () => undefined);
    hosts.push(h);
    return h;
  };

  it("stops the command's processes", async () => {
    assert.match(spawnSync("getent", ["passwd", user.name], { encoding: "utf8" }).stdout.trim(), /:\/bin\/sh$/);
    const started = Date.now();
    const r = await hostFor().run("sleep 30", 800);
    assert.equal(r.timedOut, true);
    assert.ok(Date.now() - started < 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(descendants(server.pid).filter((d) => /sleep 30/.test(d.args)), [], "the command's processes are gone");
    assert.match(new RestartFailedError("sleep 30", r, 800).message, /^the restart command `sleep …` did not finish within 0\.8s and was killed with no output$/);
  });

  it("with sudo: says the command runs as root, which the login user cannot stop, instead of saying it was killed", async () => {
    // The part of the documented sudoers line (docs/concepts/remote-garm.md) the restart uses.
    await fs.writeFile(`${SUDOERS_FILE}.new`, `${user.name} ALL=(root) NOPASSWD: /bin/sh -c sleep 31\n`, { mode: 0o440 });
    assert.equal(spawnSync("visudo", ["-c", "-q", "-f", `${SUDOERS_FILE}.new`]).status, 0);
    await fs.rename(`${SUDOERS_FILE}.new`, SUDOERS_FILE);
    const running = hostFor(true).run("sleep 31", 1500);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const asRoot = descendants(server.pid).filter((d) => /^(\/bin\/sh -c )?sleep 31$/.test(d.args));
    assert.equal(asRoot.length, 2, JSON.stringify(descendants(server.pid)));
    const r = await running;
    assert.equal(r.timedOut, true);
    const message = new RestartFailedError("sleep 31", r, 1500).message;
    assert.match(message, new RegExp(`^the restart command \`sleep …\` did not finish within 1\\.5s; it runs as root through sudo, which ${user.name} cannot stop, so it may still run on \\S+: check GARM there, then run pulumi up again$`));
    // It does still run there, as root; this test stops it by its pids.
    for (const p of asRoot) {
      assert.doesNotThrow(() => process.kill(p.pid, 0), `${p.args} still runs`);
      process.kill(p.pid, "SIGKILL");
    }
  });
});
