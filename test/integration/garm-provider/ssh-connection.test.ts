// The SSH connection (provider/machine/ssh-connection.ts) against a real OpenSSH server (harness/sshd.ts) with an
// ed25519 and an RSA host key: host keys pinned as ssh-keyscan prints them and listed in known_hosts files with
// OpenSSH's patterns and markers, a private key whose passphrase is wrong, sudo's own words when it will not start
// sftp-server (a real sudo and sudoers.d files for a test user, as root), cancellation of the dials, and the bastion
// connection ended when the hop behind it fails.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { editConfigFile, readConfigText } from "../../../provider/kinds/garm-provider/config-file";
import { SshHost } from "../../../provider/machine/ssh-host";
import { connectSsh, fingerprint, SshConnectError, type SshConnection } from "../../../provider/machine/ssh-connection";
import { ensureGroup, ensureUser, type HostUser } from "../../../harness/host-users";
import { ensureOpenSshServer, ensureSudo, startSshServer, systemSftpServer, type SshServer, connectionTo } from "../../../harness/sshd";

/** A test user who edits GARM's file through sudo; not one of the e2e test's (4243–4245). */
const SUDO_USER_UID = 4251;
const SUDOERS_FILE = "/etc/sudoers.d/pulumi-garm-it-ssh-connection";

/** A host key no server here has. */
const OTHER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";

const fingerprintOf = (line: string) => fingerprint(Buffer.from(line.trim().split(/\s+/).slice(-1)[0], "base64"));

/** Established TCP connections from this machine to `port` on loopback (both ends are here: the client side's). */
function connectionsTo(port: number): number {
  const r = spawnSync("ss", ["-Htn", "state", "established", `( dport = :${port} )`], { encoding: "utf8" });
  return r.stdout.split("\n").filter((l) => l.trim()).length;
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(what);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the SSH connection against a real OpenSSH server: host keys, the private key, sudo's answer, cancellation, the bastion", function () {
  this.timeout(60_000);
  let server: SshServer;
  let keys = "";
  /** The server's RSA host key line, "ssh-rsa AAAA…". */
  let rsaHostKey = "";
  const hosts: SshHost[] = [];

  before(async function () {
    const why = ensureOpenSshServer();
    if (why) {
      console.log(`      skipped: ${why}`);
      this.skip();
    }
    keys = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-it-ssh-keys-"));
    const r = spawnSync("ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", path.join(keys, "host_rsa")], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    rsaHostKey = (await fs.readFile(path.join(keys, "host_rsa.pub"), "utf8")).trim().split(/\s+/).slice(0, 2).join(" ");
    server = await startSshServer({ anyUser: true, extraConfig: [`HostKey ${path.join(keys, "host_rsa")}`] });
  });
  after(async () => {
    await server?.stop();
    if (keys) await fs.rm(keys, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.close();
  });

  const connection = (over: Partial<SshConnection> = {}): SshConnection => connectionTo(server, over);
  const hostFor = (over: Partial<SshConnection> = {}) => {
    const h = new SshHost(connection(over), () => undefined);
    hosts.push(h);
    return h;
  };
  const tempFile = async (content: string, mode = 0o600) => {
    const file = path.join(server.dir, `config-${Math.random().toString(16).slice(2)}.toml`);
    await fs.writeFile(file, content);
    await fs.chmod(file, mode);
    return file;
  };
  const knownHosts = async (text: string) => {
    const file = path.join(keys, `known_hosts-${Math.random().toString(16).slice(2)}`);
    await fs.writeFile(file, text);
    return file;
  };
  const at = () => `[${server.host}]:${server.port}`;

  describe("a pinned hostKey as ssh-keyscan prints it", () => {
    it("accepts a line whose host name holds a dash, and the [host]:port form", async () => {
      await readConfigText(await tempFile("a\n"), hostFor({ hostKey: `garm-01.example.com ${server.hostKey}` }));
      await readConfigText(await tempFile("a\n"), hostFor({ hostKey: `[garm-host]:2222 ${server.hostKey} root@garm-host` }));
    });

    it("accepts ssh-keyscan's whole output, and its RSA line alone: the pinned type is asked for first", async () => {
      const scanned = spawnSync("ssh-keyscan", ["-p", String(server.port), server.host], { encoding: "utf8" });
      assert.match(scanned.stdout, /ssh-rsa /);
      await readConfigText(await tempFile("a\n"), hostFor({ hostKey: scanned.stdout }));
      const rsaLine = scanned.stdout.split("\n").find((l) => / ssh-rsa /.test(l))!;
      assert.equal(fingerprintOf(rsaLine), fingerprintOf(rsaHostKey));
      await readConfigText(await tempFile("a\n"), hostFor({ hostKey: rsaLine }));
    });

    it("refuses a hostKey that is no key before connecting, naming its line", async () => {
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ hostKey: `${server.hostKey}\ngarm-01 ssh-ed25519` })), /connection\.hostKey for 127\.0\.0\.1:\d+ line 2 \("garm-01 ssh-ed25519"\) is not a key/);
    });
  });

  describe("a knownHostsFile read with OpenSSH's rules", () => {
    it("accepts a wildcard line for the host and port", async () => {
      const file = await knownHosts(`# hand-written\n[127.0.0.?]:${server.port},[other]:22 ${server.hostKey}\n`);
      await readConfigText(await tempFile("a\n"), hostFor({ hostKey: undefined, knownHostsFile: file }));
    });

    it("refuses a @revoked key, even when a plain line lists it", async () => {
      const file = await knownHosts(`${at()} ${server.hostKey}\n@revoked * ${server.hostKey}\n`);
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ hostKey: undefined, knownHostsFile: file })), (e: Error) => {
        assert.match(e.message, /refused to connect to \S+: the SSH host key of 127\.0\.0\.1:\d+ \(ssh-ed25519 SHA256:\S+\) is marked @revoked in \S+ \(line 2\): it must not be trusted/);
        assert.ok(e.message.includes(fingerprintOf(server.hostKey)));
        return true;
      });
    });

    it("fails closed for a host covered only by @cert-authority, saying what to put instead", async () => {
      const file = await knownHosts(`@cert-authority * ${rsaHostKey}\n`);
      await assert.rejects(
        readConfigText(await tempFile("a\n"), hostFor({ hostKey: undefined, knownHostsFile: file })),
        /only through @cert-authority \(line 1\), and certificate host keys are not supported .*add a plain line "\[127\.0\.0\.1\]:\d+ ssh-ed25519 <base64 key>" to the file \(ssh-keyscan -p \d+ 127\.0\.0\.1 prints it\)/,
      );
    });

    it("a negated pattern excludes the host from its line", async () => {
      const file = await knownHosts(`[127.0.0.*]:*,!${at()} ${server.hostKey}\n`);
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ hostKey: undefined, knownHostsFile: file })), /\(ssh-ed25519 SHA256:\S+\) is not in \S+; pin it/);
    });
  });

  describe("a private key whose passphrase is wrong", () => {
    let encrypted = "";
    before(async () => {
      const file = path.join(keys, "client_encrypted");
      const r = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "right-passphrase", "-f", file], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      await fs.appendFile(path.join(server.dir, "authorized_keys"), await fs.readFile(`${file}.pub`));
      encrypted = await fs.readFile(file, "utf8");
    });

    it("says the key could not be decrypted, quoting the key parser, and connects to nothing", async () => {
      const mark = server.logs().length;
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ privateKey: encrypted, privateKeyPassword: "wrong-passphrase" })), (e: Error) => {
        assert.match(e.message, /: cannot log in to \S+: connection\.privateKey could not be decrypted with connection\.privateKeyPassword \(OpenSSH key integrity check failed -- bad passphrase\?\); set privateKeyPassword to the passphrase the key was made with .*; nothing was sent to the host$/);
        assert.doesNotMatch(e.message, /authorized_keys|refused the login/);
        assert.ok(!e.message.includes("wrong-passphrase") && !e.message.includes("PRIVATE KEY"));
        return true;
      });
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ privateKey: encrypted })), /connection\.privateKey is encrypted and connection\.privateKeyPassword is not set \(.*no passphrase given\); set privateKeyPassword/);
      assert.doesNotMatch(server.logs().slice(mark), /Connection from/, "no connection was made");
      // The key itself is authorized: with its passphrase it logs in.
      assert.equal(await readConfigText(await tempFile("ok\n"), hostFor({ privateKey: encrypted, privateKeyPassword: "right-passphrase" })), "ok\n");
    });
  });

  describe("sudo's own words when it does not start sftp-server (a real sudo; as root)", () => {
    let user: HostUser;
    before(function () {
      if (process.getuid?.() !== 0) {
        console.log("      skipped: makes a system user and writes sudoers.d files, which needs root");
        return this.skip();
      }
      const why = ensureSudo();
      if (why) {
        console.log(`      skipped: ${why}`);
        return this.skip();
      }
      ensureGroup(SUDO_USER_UID, "pgarm-it-sudo");
      user = ensureUser({ uid: SUDO_USER_UID, name: "pgarm-it-sudo", gid: SUDO_USER_UID });
    });
    after(async () => {
      await fs.rm(SUDOERS_FILE, { force: true });
    });
    const sudoers = async (lines: string[]) => {
      await fs.writeFile(`${SUDOERS_FILE}.new`, `${lines.join("\n")}\n`, { mode: 0o440 });
      const checked = spawnSync("visudo", ["-c", "-q", "-f", `${SUDOERS_FILE}.new`], { encoding: "utf8" });
      assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
      await fs.rename(`${SUDOERS_FILE}.new`, SUDOERS_FILE);
    };
    const edit = async (file: string) => {
      const host = new SshHost(connection({ user: user.name, sudo: true }), () => undefined);
      hosts.push(host);
      return editConfigFile(file, (t) => `${t}# via sudo\n`, () => undefined, { host });
    };

    it("with `Defaults requiretty`, quotes sudo and advises !requiretty, which then works", async () => {
      const sftp = systemSftpServer();
      await sudoers([`Defaults:${user.name} requiretty`, `${user.name} ALL=(root) NOPASSWD: ${sftp}`]);
      const file = await tempFile("[default]\n", 0o600);
      let advice = "";
      await assert.rejects(edit(file), (e: Error) => {
        assert.match(
          e.message,
          /`sudo -n \S+sftp-server` did not start: sudoers requires a terminal for user pgarm-it-sudo \(Defaults requiretty\), which this session has not \(sudo said "sudo: sorry, you must have a tty to run sudo" \(exit code 1\)\); add "Defaults:pgarm-it-sudo !requiretty" beside the line "pgarm-it-sudo ALL=\(root\) NOPASSWD: \S+sftp-server" in \/etc\/sudoers\.d\/ .*\. Nothing was changed$/,
        );
        assert.doesNotMatch(e.message, /asked for a password/);
        advice = /add "(Defaults:\S+ !requiretty)"/.exec(e.message)![1];
        return true;
      });
      assert.equal(await fs.readFile(file, "utf8"), "[default]\n");
      // What the message says to add is enough.
      await sudoers([`Defaults:${user.name} requiretty`, advice, `${user.name} ALL=(root) NOPASSWD: ${sftp}`]);
      await edit(file);
      assert.equal(await fs.readFile(file, "utf8"), "[default]\n# via sudo\n");
    });

    it("without a NOPASSWD rule, quotes sudo asking for a password and gives the line", async () => {
      await sudoers([`${user.name} ALL=(root) NOPASSWD: /usr/bin/true`]);
      const file = await tempFile("[default]\n", 0o600);
      await assert.rejects(
        edit(file),
        /did not start: sudo asked for a password \(sudo said "sudo: a password is required" \(exit code 1\)\), so no NOPASSWD rule lets user pgarm-it-sudo run it; add "pgarm-it-sudo ALL=\(root\) NOPASSWD: \S+sftp-server" in \/etc\/sudoers\.d\//,
      );
      assert.equal(await fs.readFile(file, "utf8"), "[default]\n");
    });

    it("without sudo on the host, says so", async () => {
      // A PATH the user may search that holds no sudo.
      const empty = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-it-empty-path-"));
      await fs.chmod(empty, 0o755);
      const bare = await startSshServer({ anyUser: true, extraConfig: [`SetEnv PATH=${empty}`] });
      try {
        const host = new SshHost({ ...connection({ user: user.name, sudo: true }), port: bare.port, privateKey: bare.clientKey, hostKey: bare.hostKey }, () => undefined);
        hosts.push(host);
        const file = await tempFile("[default]\n", 0o600);
        await assert.rejects(
          editConfigFile(file, (t) => `${t}#\n`, () => undefined, { host }),
          /did not start: sudo is not installed there \(sudo said "\S*sh: \d+: sudo: not found" \(exit code 127\)\); install it, or set connection\.sudo to false/,
        );
      } finally {
        await bare.stop();
        await fs.rm(empty, { recursive: true, force: true });
      }
    });
  });

  describe("cancellation", () => {
    it("ends a dial in progress, and closes its socket", async () => {
      // A server that accepts and never speaks: the handshake would wait perDialTimeout, ten times.
      const sockets: net.Socket[] = [];
      const silent = net.createServer((s) => sockets.push(s.resume()));
      await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
      try {
        const port = (silent.address() as net.AddressInfo).port;
        const cancel = new AbortController();
        setTimeout(() => cancel.abort(new Error("cancelled: test")), 500);
        const started = Date.now();
        await assert.rejects(connectSsh(connection({ port, perDialTimeout: 15, dialErrorLimit: 10 }), () => undefined, { cancel: cancel.signal }), (e: Error) => {
          assert.ok(e instanceof SshConnectError && e.reason === "cancelled", String(e));
          assert.match(e.message, /^cancelled while connecting to \S+:\d+ \(dial 1 of at most 10\); nothing was done on the host$/);
          return true;
        });
        assert.ok(Date.now() - started < 2000, `ended after ${Date.now() - started} ms`);
        await until("the dialled socket is closed", () => sockets.length === 1 && sockets[0].destroyed);
      } finally {
        for (const s of sockets) s.destroy();
        silent.close();
      }
    });

    it("ends the pause between dials, and starts no dial after it", async () => {
      const closed = await new Promise<number>((resolve) => {
        const s = net.createServer().listen(0, "127.0.0.1", () => {
          const p = (s.address() as net.AddressInfo).port;
          s.close(() => resolve(p));
        });
      });
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(new Error("cancelled: test")), 1500);
      const started = Date.now();
      await assert.rejects(connectSsh(connection({ port: closed, dialErrorLimit: 10 }), () => undefined, { cancel: cancel.signal }), /^SshConnectError: cancelled while connecting to \S+ \(dial 2 of at most 10\)/);
      assert.ok(Date.now() - started < 2500, `ended after ${Date.now() - started} ms`);
    });
  });

  describe("a bastion (proxy)", () => {
    it("is ended when it cannot reach the host behind it", async () => {
      const closed = await new Promise<number>((resolve) => {
        const s = net.createServer().listen(0, "127.0.0.1", () => {
          const p = (s.address() as net.AddressInfo).port;
          s.close(() => resolve(p));
        });
      });
      await until("no connection to the bastion before", () => connectionsTo(server.port) === 0);
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ port: closed, proxy: connection() })), /the SSH proxy \S+ could not reach 127\.0\.0\.1:\d+/);
      await until("the bastion's connection is closed", () => connectionsTo(server.port) === 0);
    });

    it("is not dialled when the host's knownHostsFile cannot be read", async () => {
      const mark = server.logs().length;
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ hostKey: undefined, knownHostsFile: path.join(keys, "missing"), proxy: connection() })), /cannot read connection\.knownHostsFile \S+missing/);
      await until("no connection to the bastion is left", () => connectionsTo(server.port) === 0);
      assert.doesNotMatch(server.logs().slice(mark), /Connection from/);
    });

    it("is ended when the host's key is refused", async () => {
      await assert.rejects(readConfigText(await tempFile("a\n"), hostFor({ hostKey: OTHER_KEY, proxy: connection() })), /has changed: connection\.hostKey pins SHA256:/);
      await until("the bastion's connection is closed", () => connectionsTo(server.port) === 0);
    });
  });
});
