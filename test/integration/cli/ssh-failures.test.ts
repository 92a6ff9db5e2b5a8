// A GarmProvider over SSH that cannot get in, with the real Pulumi CLI and the dynamic provider against a real OpenSSH
// server on loopback and the GARM simulator: a host key other than the pinned one, an unknown host key, a key the server
// does not accept and an unreachable host each fail the `up` saying what happened and what to do, and leave GARM's
// config file as the operator wrote it, with no lock behind.
import { strict as assert } from "node:assert";
import { generateKeyPairSync } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as garm from "pulumi-garm";
import { runPulumi } from "../../../harness/pulumi-cli";
import { HAND_WRITTEN, sshGarmHost } from "./ssh-fixture";

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("GarmProvider over SSH that cannot get in (real CLI, dynamic provider)", function () {
  this.timeout(300_000);
  const fx = sshGarmHost("pulumi-garm-ssh-failures-");

  /** `pulumi up` of one GarmProvider whose connection is the server's with `change` applied; its whole output. */
  async function upWith(change: Record<string, unknown>): Promise<string> {
    const connection = { host: fx.server.host, port: fx.server.port, user: fx.server.user, privateKey: fx.server.clientKey, hostKey: fx.server.hostKey, agentSocketPath: "", dialErrorLimit: 2, perDialTimeout: 5, ...change };
    const up = await runPulumi({
      workDir: fx.dir,
      stackName: "ssh",
      projectName: "ssh-failures",
      program: async () => {
        new garm.GarmProvider("remote", { name: "remote", executable: fx.exe, garmConfigPath: fx.file, restartCommand: `curl -fsS -X POST ${fx.sim.url}/_sim/restart`, restartTimeoutSeconds: 20, connection });
        return {};
      },
      op: "up",
      config: { "garm:url": fx.sim.url, "garm:username": fx.sim.username, "garm:password": { value: fx.sim.password, secret: true } },
    });
    assert.equal(up.exitOk, false, `up succeeded with ${JSON.stringify(Object.keys(change))}`);
    const out = `${up.stdout}\n${up.stderr}\n${up.error?.message ?? ""}`;
    assert.match(out, /GarmProvider "remote": cannot reach GARM's machine, so \S+config\.toml is unchanged: /, "the failure is worded as not reaching the machine, not as a missing file");
    assert.equal(fs.readFileSync(fx.file, "utf8"), HAND_WRITTEN, "GARM's config file is as the operator wrote it");
    assert.equal(fs.existsSync(`${fx.file}.lock`), false, "no lock is left");
    assert.deepEqual(fx.sim.providers().map((p) => p.name), [], "GARM was not restarted with a provider");
    assert.doesNotMatch(out, /PRIVATE KEY/, "the login's key is never shown");
    return out;
  }

  /** `pulumi preview` of one GarmProvider as upWith declares it, with `change` applied to its connection and `over` to it. */
  async function previewWith(change: Record<string, unknown>, over: Record<string, unknown> = {}): Promise<string> {
    const connection = { host: fx.server.host, port: fx.server.port, user: fx.server.user, privateKey: fx.server.clientKey, hostKey: fx.server.hostKey, agentSocketPath: "", dialErrorLimit: 2, perDialTimeout: 5, ...change };
    const preview = await runPulumi({
      workDir: fx.dir,
      stackName: "ssh",
      projectName: "ssh-failures",
      program: async () => {
        new garm.GarmProvider("remote", { name: "remote", executable: fx.exe, garmConfigPath: fx.file, restartCommand: `curl -fsS -X POST ${fx.sim.url}/_sim/restart`, restartTimeoutSeconds: 20, connection, ...over });
        return {};
      },
      op: "preview",
      config: { "garm:url": fx.sim.url, "garm:username": fx.sim.username, "garm:password": { value: fx.sim.password, secret: true } },
    });
    assert.equal(preview.exitOk, false, `preview succeeded with ${JSON.stringify({ ...change, ...over })}`);
    assert.equal(fs.readFileSync(fx.file, "utf8"), HAND_WRITTEN, "preview wrote nothing");
    assert.deepEqual(fs.readdirSync(fx.dir).filter((n) => /\.lock|pulumi-garm/.test(n)), [], "no lock or note");
    const out = `${preview.stdout}\n${preview.stderr}\n${preview.error?.message ?? ""}`;
    assert.doesNotMatch(out, /PRIVATE KEY/, "the login's key is never shown");
    return out;
  }

  it("pulumi preview refuses what up would: a host key other than the pinned one, and a config file missing there", async () => {
    const other = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" });
    const wire = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from("ssh-ed25519"), Buffer.from([0, 0, 0, 32]), other.subarray(other.length - 32)]);
    const rotated = await previewWith({ hostKey: `ssh-ed25519 ${wire.toString("base64")}` });
    if (process.env.SHOW_SSH_FAILURES === "1") console.log(rotated);
    assert.match(rotated, /GarmProvider "remote": cannot reach GARM's machine, so \S+config\.toml is unchanged: refused to connect to \S+: the SSH host key of \S+ has changed/);
    const missing = `${fx.file}.missing`;
    const gone = await previewWith({}, { garmConfigPath: missing });
    assert.ok(gone.includes(`GARM config file ${missing} does not exist on ${fx.server.user}@${fx.server.host}:${fx.server.port}; check garmConfigPath`), gone);
  });

  it("refuses a host key other than the pinned one, naming both fingerprints", async () => {
    const other = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" });
    // The OpenSSH wire form of an ed25519 key: its type, then the 32 key bytes (the last of the SPKI encoding).
    const wire = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from("ssh-ed25519"), Buffer.from([0, 0, 0, 32]), other.subarray(other.length - 32)]);
    const out = await upWith({ hostKey: `ssh-ed25519 ${wire.toString("base64")}` });
    assert.match(out, /the SSH host key of \S+ has changed: connection\.hostKey pins SHA256:\S+, the server offered ssh-ed25519 SHA256:\S+/);
  });

  it("refuses an unknown host key, showing its type and fingerprint and how to pin it", async () => {
    const out = await upWith({ hostKey: undefined });
    if (process.env.SHOW_SSH_FAILURES === "1") console.log(out.split("\n").filter((l) => /error:/.test(l)).join("\n"));
    assert.match(out, /the SSH host key of \S+ is unknown: the server offered ssh-ed25519 SHA256:\S+/);
    assert.match(out, /hostKey|knownHostsFile/);
  });

  it("says which login methods were tried when the server refuses the key", async () => {
    const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const out = await upWith({ privateKey: stranger });
    assert.match(out, /refused the login of user \S+: tried publickey/);
    assert.match(out, /authorized_keys/);
  });

  it("gives up on an unreachable host after dialErrorLimit attempts, naming host and port", async () => {
    const port = await closedPort();
    const out = await upWith({ port });
    assert.match(out, new RegExp(`cannot reach SSH server 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\).*connection\\.dialErrorLimit 2`));
  });
});
