// examples/remote-garm as a team runs it against a GARM on "another machine" (issue 25): the REAL GARM v0.2.1 running as
// its own system user (uid 4243, group 4242), reached over SSH (Debian's OpenSSH server on loopback, run as root so it
// logs other users in) as an unprivileged user; the package installed from its npm tarball and the real `pulumi` CLI run
// from the project directory. One GARM, one sshd and one project for the block; each test is a stack of its own:
//
//   1. a user in GARM's group, config root:4242 0660, no sudo: the file is rewritten in place through the group;
//   2. a user outside it with `sudo: true` and the sudoers line docs/concepts/remote-garm.md gives, config root:4242 0640;
//   3. GARM's own user, config 4243:4242 0640, and the SSH connection killed at the rename of the new file over the old
//      one (an sftp proxy holds that request or its answer, harness/sftp-pause-proxy.ts): killed before it, the `up`
//      fails saying so, GARM's file keeps its old bytes, and the next `up` succeeds; killed after it, `destroy` sees
//      the file replaced and finishes over a new connection.
//
// Each step (provider and scale set created, a provider change that restarts GARM, destroy) is checked against GARM's
// own API and its config file: the part outside the managed blocks byte for byte as it was, owner, group and mode kept,
// and the restart run on the GARM host by the login user (or root through sudo).
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { installFakeProvider, type FakeProvider } from "../../harness/fake-provider";
import { ensureGroup, ensureUser, type HostUser } from "../../harness/host-users";
import { killIfAlive, sessionProcesses } from "../../harness/ssh-session";
import { locateLanguageHost, locatePulumi } from "../../harness/pulumi-cli";
import { PulumiProject, REPO_ROOT, packOnce, type CliResult } from "../../harness/pulumi-cli/project";
import { locateGarm } from "../../harness/real-garm";
import { startE2eEnvironment, type E2eEnvironment } from "../../harness/real-garm/environment";
import { ensureOpenSshServer, ensureSudo, startSshServer, type SshServer } from "../../harness/sshd";
import { withoutManagedBlocks } from "../../provider/kinds/garm-provider/managed-block";
import { blocksIn, startRestartControl, type RestartControl } from "./scenario-support";

/** GARM's group and user, as a packaged install makes them. */
const GARM_GID = 4242;
const GARM_UID = 4243;
/** An operator in GARM's group, and a deploy user outside it who may use sudo. */
const OPERATOR_UID = 4244;
const DEPLOY_UID = 4245;
const SUDOERS_FILE = "/etc/sudoers.d/pulumi-garm-e2e-ssh";

interface Listed {
  name: string;
  description?: string;
}
interface ScaleSet {
  id: number;
  name: string;
  provider_name?: string;
}

function statOf(file: string): string {
  const st = fs.statSync(file);
  return `${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8).padStart(4, "0")}`;
}

/**
 * The sudoers line docs/concepts/remote-garm.md gives for `sudo: true`, for `user` and `restartCommand` in place of the
 * doc's `deploy` and `systemctl restart garm`: the test installs what the doc tells operators to write.
 */
function documentedSudoersLine(user: string, restartCommand: string): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, "docs", "concepts", "remote-garm.md"), "utf8");
  const line = doc.split("\n").find((l) => /^deploy ALL=\(root\) NOPASSWD: .*sftp-server, \/bin\/sh -c systemctl restart garm$/.test(l));
  assert.ok(line, "docs/concepts/remote-garm.md gives the sudoers line for sudo: true");
  return line.replace(/^deploy /, `${user} `).replace(/systemctl restart garm$/, restartCommand);
}

describe("e2e: examples/remote-garm over SSH to the real GARM v0.2.1 running as its own user (npm tarball, `pulumi` from the project directory)", function () {
  this.timeout(600_000);
  let env: E2eEnvironment | undefined;
  let control: RestartControl | undefined;
  let sshd: SshServer | undefined;
  let project: PulumiProject | undefined;
  let fake: FakeProvider;
  let garmUser: HostUser;
  let operator: HostUser;
  let deploy: HostUser;
  /** World-readable scratch on "the GARM host": the restart script, its log, the sftp proxy's control directory. */
  let hostDir = "";
  let restartScript = "";
  let controlDir = "";
  let failed = false;

  const garm = () => env!.garm;
  const configBytes = () => fs.readFileSync(garm().configPath);
  const providers = async () => (await garm().api<Listed[]>("GET", "/providers")).body;
  const providerNames = async () => (await providers()).map((p) => p.name).sort();
  const scaleSets = async () => (await garm().api<ScaleSet[]>("GET", "/scalesets")).body;
  /** Who ran each restart on the GARM host (`id -un` in the restart script). */
  const restartedBy = () => fs.readFileSync(path.join(hostDir, "restarts.log"), "utf8").split("\n").filter(Boolean);

  before(async function () {
    locateGarm();
    locatePulumi();
    locateLanguageHost();
    if (process.getuid?.() !== 0) {
      console.log("      skipped: these tests make system users, run GARM and sshd's logins as them and write a sudoers file, which needs root");
      this.skip();
    }
    const why = ensureOpenSshServer() ?? ensureSudo();
    if (why) {
      console.log(`      skipped: ${why}`);
      this.skip();
    }
    const started = Date.now();
    ensureGroup(GARM_GID, "pgarm-garm");
    garmUser = ensureUser({ uid: GARM_UID, name: "pgarm-garm", gid: GARM_GID });
    ensureGroup(OPERATOR_UID, "pgarm-operator");
    ensureGroup(DEPLOY_UID, "pgarm-deploy");
    operator = ensureUser({ uid: OPERATOR_UID, name: "pgarm-operator", gid: OPERATOR_UID, groups: [GARM_GID] });
    deploy = ensureUser({ uid: DEPLOY_UID, name: "pgarm-deploy", gid: DEPLOY_UID });

    hostDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-ssh-host-"));
    fs.chmodSync(hostDir, 0o755);
    controlDir = path.join(hostDir, "sftp-control");
    fs.mkdirSync(controlDir);
    fs.chmodSync(controlDir, 0o777);
    fs.writeFileSync(path.join(hostDir, "restarts.log"), "");
    fs.chmodSync(path.join(hostDir, "restarts.log"), 0o666);

    // npm pack and install run while GARM and sshd start.
    const made = packOnce().then((tarball) => PulumiProject.fromExample({ example: "remote-garm", tarball, prefix: "pulumi-garm-e2e-remote-garm-" }));
    made.catch(() => undefined);
    env = await startE2eEnvironment({ garmRunAs: { uid: GARM_UID, gid: GARM_GID } });
    // /etc/garm on a packaged host: GARM's directory, which its group may write (locks and temp files go beside the file).
    fs.chmodSync(garm().workDir, 0o770);
    control = await startRestartControl(garm());
    restartScript = path.join(hostDir, "restart-garm");
    fs.writeFileSync(restartScript, `#!/bin/sh\nid -un >> ${hostDir}/restarts.log\nexec ${control.command}\n`, { mode: 0o755 });
    fake = installFakeProvider({ dir: path.join(garm().workDir, "providers", "ssh"), name: "ssh" });
    spawnSync("chown", ["-R", `${GARM_UID}:${GARM_GID}`, path.join(garm().workDir, "providers")]);
    const proxy = path.join(__dirname, "..", "..", "harness", "sftp-pause-proxy.js");
    sshd = await startSshServer({ anyUser: true, sftpSubsystem: (real) => `${process.execPath} ${proxy} ${real} ${controlDir}` });
    const sudoers = `${documentedSudoersLine(deploy.name, restartScript)}\n`;
    fs.writeFileSync(`${SUDOERS_FILE}.new`, sudoers, { mode: 0o440 });
    const checked = spawnSync("visudo", ["-c", "-q", "-f", `${SUDOERS_FILE}.new`], { encoding: "utf8" });
    assert.equal(checked.status, 0, `visudo refuses the documented line ${sudoers}: ${checked.stdout}${checked.stderr}`);
    fs.renameSync(`${SUDOERS_FILE}.new`, SUDOERS_FILE);
    project = await made;
    console.log(`      (users, GARM, sshd, npm pack and install: ${((Date.now() - started) / 1000).toFixed(1)}s)`);
  });
  afterEach(function () {
    if (this.currentTest?.state === "failed") {
      failed = true;
      if (env) console.log(`    GARM log tail:\n${garm().logs().split("\n").slice(-30).join("\n")}`);
      if (sshd) console.log(`    sshd log tail:\n${sshd.logs().split("\n").slice(-20).join("\n")}`);
    }
  });
  after(async function () {
    fs.rmSync(SUDOERS_FILE, { force: true });
    fs.rmSync(`${SUDOERS_FILE}.new`, { force: true });
    if (project) console.log(`    (${project.timings()}; GARM restarts ${control?.events.map((e) => `${(((e.doneAt ?? e.at) - e.at) / 1000).toFixed(1)}s`).join(", ")})`);
    await control?.close();
    await sshd?.stop();
    await env?.stop({ keep: failed });
    project?.close({ keep: failed });
    if (hostDir) fs.rmSync(hostDir, { recursive: true, force: true });
  });

  /** A stack of its own for one login: GARM's login, the provider's inputs and the secret SSH connection. */
  async function initStack(stack: string, login: HostUser, opts: { sudo?: boolean; scaleSet?: boolean } = {}): Promise<void> {
    await project!.initStack(stack, {
      "garm:url": garm().url,
      "garm:username": garm().username,
      "garm:password": { value: garm().password, secret: true },
      garmProvider: JSON.stringify(providerArgs(stack, `runners of the ${stack} stack`)),
      connection: {
        value: JSON.stringify({ host: sshd!.host, port: sshd!.port, user: login.name, privateKey: sshd!.clientKey, hostKey: sshd!.hostKey, agentSocketPath: "", ...(opts.sudo ? { sudo: true } : {}) }),
        secret: true,
      },
      ...(opts.scaleSet ? { scaleSet: JSON.stringify({ name: `over-ssh-${stack}`, organization: "acme", image: "ubuntu-24.04", flavor: "small", labels: ["linux"], maxRunners: 1, minIdleRunners: 0 }) } : {}),
    });
  }
  function providerArgs(stack: string, description: string): Record<string, unknown> {
    return { name: `ssh-${stack}`, description, executable: fake.executable, configFile: fake.configFile, garmConfigPath: garm().configPath, restartCommand: restartScript, restartTimeoutSeconds: 60 };
  }

  /** Checks after a step: the hand-written part of the file is what it was, its owner and mode too, and GARM lists `listed`. */
  async function assertHost(original: Buffer, owner: string, blocks: string[], listed: string[]): Promise<void> {
    const text = configBytes().toString("utf8");
    assert.equal(withoutManagedBlocks(text), original.toString("utf8"), "GARM's config file outside the managed blocks is byte for byte what it was");
    assert.deepEqual(blocksIn(text), blocks);
    assert.equal(statOf(garm().configPath), owner, "owner, group and mode of GARM's config file are kept");
    assert.deepEqual(await providerNames(), [...listed, "fake"].sort());
    assert.deepEqual(fs.readdirSync(garm().workDir).filter((f) => /\.lock$|pulumi-garm.*\.tmp$/.test(f)), [], "no lock or temp file left beside GARM's file");
  }

  /** Create (provider and scale set), a provider change that restarts GARM, destroy: each checked on GARM and its file. */
  async function lifecycle(stack: string, login: HostUser, sudo: boolean, owner: string): Promise<void> {
    const p = project!;
    const name = `ssh-${stack}`;
    const original = configBytes();
    const restartsBefore = control!.events.length;
    const byBefore = restartedBy().length;
    await initStack(stack, login, { sudo, scaleSet: true });

    await p.cli(["up", "--yes"]);
    await assertHost(original, owner, [name], [name]);
    const out = await p.outputs();
    const [set] = (await scaleSets()).filter((s) => s.id === out.scaleSetId);
    assert.equal(set?.provider_name, name, "the scale set's runners come from the provider added over SSH");
    assert.equal(control!.events.length, restartsBefore + 1, "one restart loads the new provider");

    await p.cli(["config", "set", "garmProvider", JSON.stringify(providerArgs(stack, `runners of the ${stack} stack, changed`))]);
    await p.cli(["up", "--yes"]);
    await assertHost(original, owner, [name], [name]);
    assert.equal((await providers()).find((q) => q.name === name)?.description, `runners of the ${stack} stack, changed`, "GARM restarted with the changed entry");
    assert.equal(control!.events.length, restartsBefore + 2);
    assert.deepEqual((await scaleSets()).map((s) => s.id), [set.id], "the scale set rides out the provider's restart");

    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(configBytes(), original, "after destroy GARM's config file is back byte for byte");
    await assertHost(original, owner, [], []);
    assert.deepEqual(await scaleSets(), []);
    assert.equal(control!.events.length, restartsBefore + 3);
    assert.deepEqual(restartedBy().slice(byBefore), Array(3).fill(sudo ? "root" : login.name), "each restart ran on the GARM host as the login user (root through sudo)");
    assert.ok(sshd!.logs().includes(`Accepted publickey for ${login.name} from 127.0.0.1`), "the provider logged in over SSH as that user");
  }

  it("without sudo, as a user in GARM's group (config root:4242 0660): create with a scale set, a change that restarts GARM, destroy", async function () {
    fs.chownSync(garm().configPath, 0, GARM_GID);
    fs.chmodSync(garm().configPath, 0o660);
    await lifecycle("operator", operator, false, `0:${GARM_GID} 0660`);
  });

  it("with sudo: true and the documented sudoers line, as a user outside GARM's group (config root:4242 0640): the same steps", async function () {
    fs.chownSync(garm().configPath, 0, GARM_GID);
    fs.chmodSync(garm().configPath, 0o640);
    await lifecycle("deploy", deploy, true, `0:${GARM_GID} 0640`);
  });

  it("a login that may read but not write GARM's file (in its group, no sudo; config root:4242 0640): up fails naming the owner, group and mode there, and changes nothing", async function () {
    fs.chownSync(garm().configPath, 0, GARM_GID);
    fs.chmodSync(garm().configPath, 0o640);
    const original = configBytes();
    await initStack("refused", operator);
    const r = await project!.cli(["up", "--yes"], { expectOk: false });
    const output = `${r.stdout}\n${r.stderr}`;
    assert.notEqual(r.code, 0, "pulumi up fails");
    // The diagnostics' line, as the summary under the run shows it.
    const error = output.split("\n").map((l) => l.trim()).find((l) => l.startsWith("error: cannot rewrite")) ?? "";
    console.log(`      ${error.trim()}`);
    assert.match(error, /cannot rewrite GARM config file \S+ on pgarm-operator@127\.0\.0\.1:\d+ keeping its owner uid 0, group gid 4242 and mode 0640: /, `the error names the file's owner, group and mode on GARM's machine:\n${output}`);
    assert.match(error, /connection\.sudo.* The file is unchanged$/, `the error says what to do and that nothing changed:\n${output}`);
    assert.deepEqual(configBytes(), original, "GARM's config file is unchanged");
    assert.deepEqual(fs.readdirSync(garm().workDir).filter((f) => /\.lock$|pulumi-garm.*\.tmp$/.test(f)), [], "no lock or temp file left");
    assert.deepEqual(await providerNames(), ["fake"]);
  });

  /**
   * Runs `pulumi <args>` with the sftp proxy armed and kills the SSH session serving it at the provider's rename of the
   * new file over GARM's: "before" the rename reaches the server, or "after" the server made it (its answer held).
   */
  async function killedAtRename(args: string[], when: "before" | "after"): Promise<CliResult> {
    fs.writeFileSync(path.join(controlDir, "armed"), when);
    const paused = path.join(controlDir, "paused");
    let settled: CliResult | undefined;
    const run = project!.cli(args, { expectOk: false }).then((r) => (settled = r));
    // The new text is written inside the file's lock, beside the file (provider/machine/edit.ts).
    const lockDir = `${garm().configPath}.lock`;
    const temps = () => (fs.existsSync(lockDir) ? fs.readdirSync(lockDir) : []).filter((f) => /\.tmp$/.test(f));
    const until = async (what: string, done: () => boolean) => {
      const deadline = Date.now() + 120_000;
      while (!done()) {
        assert.equal(settled, undefined, `pulumi ${args[0]} ended before ${what}:\n${settled?.stdout}\n${settled?.stderr}`);
        assert.ok(Date.now() < deadline, `${what} did not happen within 120 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until("its write reached the rename", () => fs.existsSync(paused));
    fs.rmSync(path.join(controlDir, "armed"));
    const { pid } = JSON.parse(fs.readFileSync(paused, "utf8")) as { pid: number };
    fs.rmSync(paused);
    if (when === "before") assert.equal(temps().length, 1, "the complete new file waits in the lock beside the old one");
    else await until("the server's rename", () => temps().length === 0);
    // The login's processes may exit while they are found and killed (the session ends once one dies): tolerated.
    for (const q of sessionProcesses(pid, sshd!.pid)) killIfAlive(q);
    const r = await run;
    const errors = `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => /error:/.test(l)).map((l) => l.trim());
    console.log(`      pulumi ${args[0]} with the connection killed ${when} the rename: ${errors.length ? errors[errors.length - 1] : "succeeded"}`);
    return r;
  }

  it("the SSH connection killed mid-write: before the rename, up fails saying so, GARM's file keeps its old bytes and the next up succeeds; after it, destroy sees the file replaced and succeeds", async function () {
    const p = project!;
    fs.chownSync(garm().configPath, GARM_UID, GARM_GID);
    fs.chmodSync(garm().configPath, 0o640);
    const owner = `${GARM_UID}:${GARM_GID} 0640`;
    const original = configBytes();
    const name = "ssh-garm";
    await initStack("garm", garmUser);

    const failedUp = await killedAtRename(["up", "--yes"], "before");
    const output = `${failedUp.stdout}\n${failedUp.stderr}`;
    assert.notEqual(failedUp.code, 0, "pulumi up fails");
    assert.match(output, /error: the SSH connection to pgarm-garm@127\.0\.0\.1:\d+ was lost while renaming \S+; GARM config file \S+ is unchanged; /, "the error says the connection was lost and the file is unchanged");
    assert.deepEqual(configBytes(), original, "GARM's config file keeps its old bytes");
    assert.equal(statOf(garm().configPath), owner);
    const lock = `${garm().configPath}.lock`;
    if (/its lock \S+ was released/.test(output)) {
      assert.equal(fs.existsSync(lock), false, "the error says the lock was released: it is gone");
    } else {
      assert.match(output, /its lock \S+ is left behind and is taken over once it has not been refreshed for 30s/);
      const holder = JSON.parse(fs.readFileSync(path.join(lock, "holder"), "utf8")) as { who: string; where: string; since: number };
      assert.match(holder.who, /pulumi-garm pid \d+/, "a lock left behind says who held it");
    }
    assert.deepEqual(await providerNames(), ["fake"]);

    await p.cli(["up", "--yes"]);
    await assertHost(original, owner, [name], [name]);

    // The rename made, its answer lost with the connection: the provider finds its temp file gone, so the new file is
    // in place, and goes on to restart GARM over a new connection.
    const down = await killedAtRename(["destroy", "--yes"], "after");
    assert.equal(down.code, 0, `pulumi destroy fails after a rename that was made:\n${down.stdout}\n${down.stderr}`);
    assert.deepEqual(configBytes(), original, "after destroy GARM's config file is back byte for byte");
    await assertHost(original, owner, [], []);
  });
});
