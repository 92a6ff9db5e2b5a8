// The SSH host (ssh-host.ts) against a real OpenSSH server from Debian's openssh-server, started on a loopback port
// with its own host key and config (harness/sshd.ts): connecting, host key and login refusals, an unreachable host,
// the config file edited through SFTP keeping owner, group and mode, the lock on the remote host, and the restart run.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { editConfigFile, readConfigText } from "../../../provider/kinds/garm-provider/config-file";
import { SshHost } from "../../../provider/machine/ssh-host";
import { fingerprint, type SshConnection } from "../../../provider/machine/ssh-connection";
import { ensureOpenSshServer, startSshServer, type SshServer, connectionTo } from "../../../harness/sshd";

function keyFingerprint(hostKey: string): string {
  return fingerprint(Buffer.from(hostKey.split(/\s+/)[1], "base64"));
}

describe("GarmProvider's SSH host against a real OpenSSH server", function () {
  this.timeout(60_000);
  let server: SshServer;
  const hosts: SshHost[] = [];
  const warnings: string[] = [];

  before(async function () {
    const why = ensureOpenSshServer();
    if (why) this.skip();
    server = await startSshServer();
  });
  after(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.close();
    warnings.length = 0;
  });

  const connection = (over: Partial<SshConnection> = {}): SshConnection => connectionTo(server, over);
  const hostFor = (over: Partial<SshConnection> = {}) => {
    const h = new SshHost(connection(over), (l) => warnings.push(l));
    hosts.push(h);
    return h;
  };
  const tempFile = async (content: string, mode: number) => {
    const file = path.join(server.dir, `config-${Math.random().toString(16).slice(2)}.toml`);
    await fs.writeFile(file, content);
    await fs.chmod(file, mode);
    return file;
  };

  it("connects with the pinned host key and reads and inspects a file", async () => {
    const file = await tempFile("[default]\n", 0o640);
    const host = hostFor();
    assert.equal(await readConfigText(file, host), "[default]\n");
    const st = await host.stat(file);
    assert.deepEqual({ isFile: st.isFile, mode: st.mode }, { isFile: true, mode: 0o640 });
    await assert.rejects(host.stat(`${file}.missing`), (e: NodeJS.ErrnoException) => e.code === "ENOENT");
  });

  it("accepts a host key pinned by fingerprint, or listed in a knownHostsFile (plain and hashed)", async () => {
    await readConfigText(await tempFile("a\n", 0o600), hostFor({ hostKey: keyFingerprint(server.hostKey) }));
    const known = path.join(server.dir, "known_hosts");
    await fs.writeFile(known, `[${server.host}]:${server.port} ${server.hostKey}\n`);
    await readConfigText(await tempFile("a\n", 0o600), hostFor({ hostKey: undefined, knownHostsFile: known }));
    spawnSync("ssh-keygen", ["-H", "-f", known], { stdio: "ignore" });
    assert.match(await fs.readFile(known, "utf8"), /^\|1\|/);
    await readConfigText(await tempFile("a\n", 0o600), hostFor({ hostKey: undefined, knownHostsFile: known }));
  });

  it("refuses an unknown host key, with its type and SHA256 fingerprint and how to pin it", async () => {
    const host = hostFor({ hostKey: undefined });
    await assert.rejects(host.readFile("/etc/hostname"), (e: Error) => {
      assert.match(e.message, /host key of 127\.0\.0\.1:\d+ is unknown/);
      assert.ok(e.message.includes(`ssh-ed25519 ${keyFingerprint(server.hostKey)}`), e.message);
      assert.match(e.message, /connection\.hostKey .*ssh-keyscan -p \d+ 127\.0\.0\.1.*knownHostsFile/);
      assert.ok(!e.message.includes("\n"));
      return true;
    });
  });

  it("refuses a changed host key, naming both fingerprints", async () => {
    const other = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
    const host = hostFor({ hostKey: other });
    await assert.rejects(host.readFile("/etc/hostname"), (e: Error) => {
      assert.match(e.message, /host key of 127\.0\.0\.1:\d+ has changed/);
      assert.ok(e.message.includes(keyFingerprint(other)), e.message);
      assert.ok(e.message.includes(keyFingerprint(server.hostKey)), e.message);
      return true;
    });
    const known = path.join(server.dir, "known_hosts_changed");
    await fs.writeFile(known, `[${server.host}]:${server.port} ${other}\n`);
    await assert.rejects(hostFor({ hostKey: undefined, knownHostsFile: known }).readFile("/etc/hostname"), /has changed: .* lists ssh-ed25519 SHA256:.*, the server offered SHA256:/);
  });

  it("skips verification only when asked, and says so loudly with the fingerprint", async () => {
    await hostFor({ hostKey: undefined, insecureSkipHostKeyVerification: true }).readFile(await tempFile("x", 0o600));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^WARNING: not verifying the SSH host key of 127\.0\.0\.1:\d+ .*accepting ssh-ed25519 SHA256:/);
  });

  it("says which login methods were tried when the key is refused, without the key", async () => {
    const wrong = spawnSync("sh", ["-c", `ssh-keygen -q -t ed25519 -N '' -f ${server.dir}/wrong && cat ${server.dir}/wrong`], { encoding: "utf8" }).stdout;
    await assert.rejects(hostFor({ privateKey: wrong, password: "not-the-password" }).readFile("/etc/hostname"), (e: Error) => {
      assert.match(e.message, /refused the login of user \S+: tried publickey \(privateKey\), password; the server accepts publickey/);
      assert.ok(!e.message.includes("not-the-password") && !e.message.includes("PRIVATE KEY"));
      return true;
    });
  });

  it("says an unreachable host cannot be reached, after dialErrorLimit attempts", async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    await assert.rejects(hostFor({ port: closed, dialErrorLimit: 2 }).readFile("/etc/hostname"), /cannot reach SSH server 127\.0\.0\.1:\d+ \(ECONNREFUSED\) \(2 attempts, connection\.dialErrorLimit 2\); check connection\.host/);
  });

  it("edits the config file by temp file and rename, keeping owner, group and mode, under a lock on the host", async () => {
    const file = await tempFile("[default]\n", 0o640);
    await fs.chown(file, 0, 4242);
    const inodeBefore = (await fs.stat(file)).ino;
    const host = hostFor();
    let temp = "";
    const r = await editConfigFile(file, (t) => `${t}# added\n`, () => undefined, {
      host,
      hooks: {
        afterTempWritten: async (p) => {
          temp = p;
          // The lock is held on the host meanwhile, with who holds it.
          const holder = JSON.parse(await fs.readFile(`${file}.lock/holder`, "utf8"));
          assert.match(holder.who, /^pulumi-garm pid \d+/);
          assert.equal(typeof holder.since, "number");
        },
      },
    });
    assert.equal(r.changed, true);
    assert.equal(await fs.readFile(file, "utf8"), "[default]\n# added\n");
    const st = await fs.stat(file);
    assert.deepEqual([st.uid, st.gid, (st.mode & 0o7777).toString(8)], [0, 4242, "640"]);
    assert.notEqual(st.ino, inodeBefore, "replaced through a rename");
    assert.equal(path.dirname(temp), `${file}.lock`, "the temp file is in the lock, beside the file");
    await assert.rejects(fs.stat(temp));
    await assert.rejects(fs.stat(`${file}.lock`), "the lock is released");
  });

  it("waits for a live lock naming its holder, and takes over a stale one", async () => {
    const file = await tempFile("a\n", 0o600);
    await fs.mkdir(`${file}.lock`);
    await fs.writeFile(`${file}.lock/holder`, JSON.stringify({ who: "pulumi-garm pid 99", where: "laptop-7", since: Date.now() }));
    await assert.rejects(editConfigFile(file, (t) => `${t}b\n`, () => undefined, { host: hostFor(), lockWaitMs: 600 }), /pulumi-garm pid 99 on laptop-7 since .* holds .*\.lock and did not release it within 0\.6s/);
    const old = new Date(Date.now() - 120_000);
    await fs.utimes(`${file}.lock/holder`, old, old);
    await editConfigFile(file, (t) => `${t}b\n`, () => undefined, { host: hostFor(), lockWaitMs: 600 });
    assert.equal(await fs.readFile(file, "utf8"), "a\nb\n");
    assert.ok(warnings.some((w) => /took over the lock .* left by pulumi-garm pid 99 on laptop-7/.test(w)), warnings.join("\n"));
  });

  it("runs the restart command there: exit code and output, and a timeout stops what it started", async () => {
    const host = hostFor();
    const ok = await host.run("echo restarted; echo warn >&2; exit 3", 10_000);
    assert.deepEqual([ok.code, ok.timedOut], [3, false]);
    assert.match(ok.output, /restarted\nwarn/);
    const marker = path.join(server.dir, "still-running");
    const started = Date.now();
    const slow = await host.run(`sleep 30; touch ${marker}`, 800);
    assert.equal(slow.timedOut, true);
    assert.ok(Date.now() - started < 5000);
    const left = spawnSync("sh", ["-c", `pgrep -f '[s]leep 30; touch ${marker}' || true`], { encoding: "utf8" }).stdout.trim();
    assert.equal(left, "", "the command's processes are gone");
  });

  it("settles when the restart command's shell exits, leaving a daemon it started (setsid … &) running", async () => {
    const host = hostFor();
    const pidFile = path.join(server.dir, "daemon.pid");
    const started = Date.now();
    const r = await host.run(`setsid sh -c 'echo $$ > ${pidFile}; exec sleep 60' >/dev/null 2>&1 & echo started`, 20_000);
    assert.deepEqual([r.code, r.timedOut, r.output.trim()], [0, false, "started"]);
    assert.ok(Date.now() - started < 5000, "it did not wait for the daemon");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pid = Number((await fs.readFile(pidFile, "utf8")).trim());
    assert.doesNotThrow(() => process.kill(pid, 0), "the daemon outlives the command");
    process.kill(pid, "SIGKILL");
  });

  it("connects through a proxy (bastion) with the same fields", async () => {
    const file = await tempFile("via bastion\n", 0o600);
    const host = hostFor({ proxy: connection() });
    assert.equal(await readConfigText(file, host), "via bastion\n");
  });

  it("a connection lost before the rename leaves the old file intact", async () => {
    const file = await tempFile("[default]\n", 0o640);
    const host = hostFor();
    await assert.rejects(
      editConfigFile(file, (t) => `${t}# never written\n`, () => undefined, {
        host,
        hooks: { afterTempWritten: () => host.close() },
      }),
      // What the user reads: the connection lost, the file unchanged (its temp file still there), the lock released.
      /^FileEditError: the SSH connection to \S+ was lost while (renaming \S+\.tmp|reading \S+\.lock\/holder); GARM config file \S+ is unchanged; its lock \S+\.lock was released; run again$/,
    );
    assert.equal(await fs.readFile(file, "utf8"), "[default]\n");
    assert.equal((await fs.stat(file)).mode & 0o7777, 0o640);
    // The host connects again to clean up: the lock is released and the temp file removed.
    await assert.rejects(fs.stat(`${file}.lock`));
    assert.deepEqual((await fs.readdir(server.dir)).filter((f) => f.includes(path.basename(file)) && f !== path.basename(file)), []);
  });

  it("with sudo, edits through `sudo -n <sftp-server>` instead of the sftp subsystem and restarts through `sudo -n /bin/sh -c`", async function () {
    if (spawnSync("sudo", ["-n", "true"]).status !== 0) {
      console.log("      skipped: sudo -n is not available to this user");
      return this.skip();
    }
    const file = await tempFile("[default]\n", 0o640);
    const mark = server.logs().length;
    const host = hostFor({ sudo: true });
    await editConfigFile(file, (t) => `${t}# via sudo\n`, () => undefined, { host });
    assert.equal(await fs.readFile(file, "utf8"), "[default]\n# via sudo\n");
    const log = server.logs().slice(mark);
    assert.doesNotMatch(log, /subsystem 'sftp'/, "no sftp subsystem session");
    assert.match(log, /Starting session: command/);
    // sudo sets SUDO_COMMAND to what it ran: the words a sudoers line names.
    const r = await host.run('echo "$SUDO_COMMAND"', 10_000);
    assert.equal(r.code, 0, r.output);
    assert.equal(r.output.trim(), '/bin/sh -c echo "$SUDO_COMMAND"');
  });

  it("with sudo that asks for a password, quotes it, says how to allow it, and changes nothing", async () => {
    // A stand-in for sudo on the host's PATH that answers as `sudo -n` does when a password is required.
    const bin = await fs.mkdtemp(path.join(server.dir, "bin-"));
    await fs.writeFile(path.join(bin, "sudo"), "#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n", { mode: 0o755 });
    const asking = await startSshServer({ extraConfig: [`SetEnv PATH=${bin}:/usr/bin:/bin`] });
    try {
      const file = await tempFile("[default]\n", 0o640);
      const host = new SshHost({ ...connection(), port: asking.port, privateKey: asking.clientKey, hostKey: asking.hostKey, sudo: true }, (l) => warnings.push(l));
      hosts.push(host);
      await assert.rejects(
        editConfigFile(file, (t) => `${t}# never\n`, () => undefined, { host }),
        /`sudo -n \/\S*sftp-server` did not start: sudo asked for a password \(sudo said "sudo: a password is required" \(exit code 1\)\), so no NOPASSWD rule lets user \S+ run it; add "\S+ ALL=\(root\) NOPASSWD: \/\S*sftp-server" in \/etc\/sudoers\.d\/ \(visudo -f \/etc\/sudoers\.d\/pulumi-garm; docs\/concepts\/remote-garm\.md\)\. Nothing was changed/,
      );
      assert.equal(await fs.readFile(file, "utf8"), "[default]\n");
    } finally {
      await asking.stop();
    }
  });
});
