// Preview of a GarmProvider with a `connection`, through the engine harness (the real dynamic-provider server loading
// the bundle) against a real OpenSSH server on loopback (harness/sshd.ts): check connects, verifies the host key and
// inspects the config file, so a create whose file is missing, or the first run after the host's key was rotated, fails
// in preview with the message `up` gives, naming the field and the host; preview writes nothing on the host; inputs not
// known yet are not looked up.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { UNKNOWN } from "../../../harness/engine";

import { type Fixture, HAND_WRITTEN, startFixture } from "./engine-fixture";
import { useSshServer } from "../../support/ssh-server";
import { connectionTo } from "../../../harness/sshd";

describe("GarmProvider preview over SSH through the engine", function () {
  this.timeout(120_000);
  let fx: Fixture | undefined;

  const ssh = useSshServer();
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  const connection = () => connectionTo(ssh.server, { dialErrorLimit: 2, perDialTimeout: 10 });
  /** Names in the fixture's directory that pulumi-garm writes (its lock, notes, temp files). */
  const leftovers = async () => (await fs.readdir(fx!.dir)).filter((n) => /\.lock|pulumi-garm/.test(n));
  const failureOf = (r: { checkFailures?: Record<string, { property: string; reason: string }[]>; errors: Record<string, unknown> }, name: string) =>
    `${JSON.stringify(r.checkFailures?.[name] ?? [])} ${String(r.errors[name] ?? "")}`;

  it("a create whose config file is missing on the host fails in preview, naming garmConfigPath, as up does", async () => {
    fx = await startFixture();
    const missing = path.join(fx.dir, "nowhere", "config.toml");
    const program = [fx.provider("prov-a", "alpha", { connection: connection(), garmConfigPath: missing, restartCommand: fx.serviceRestart })];
    const preview = await fx.engine.preview(program);
    assert.equal(preview.ok, false, "the preview does not come out clean");
    const failure = preview.checkFailures["prov-a"]?.[0];
    assert.equal(failure?.property, "garmConfigPath", failureOf(preview, "prov-a"));
    assert.match(failure!.reason, new RegExp(`GARM config file ${missing.replace(/[/.]/g, "\\$&")} does not exist on ${ssh.server.user}@127\\.0\\.0\\.1:${ssh.server.port}; check garmConfigPath`));
    assert.ok(!failure!.reason.includes("\n"));
    const up = await fx.engine.up(program);
    assert.equal(up.ok, false);
    assert.equal(up.checkFailures["prov-a"]?.[0]?.reason, failure!.reason, "up gives the same message");
    assert.deepEqual(await leftovers(), []);
  });

  it("after the host's key was rotated, preview fails naming the login, the host and both fingerprints, writing nothing", async () => {
    fx = await startFixture();
    const program = () => [fx!.provider("prov-a", "alpha", { connection: connection(), restartCommand: fx!.serviceRestart })];
    const up = await fx.engine.up(program());
    assert.ok(up.ok, JSON.stringify(up.errors));
    const written = await fs.readFile(fx.file, "utf8");
    assert.notEqual(written, HAND_WRITTEN);

    // The host is reinstalled: a new host key, the same address. sshd re-reads its keys on SIGHUP.
    const keyFile = path.join(ssh.server.dir, "host_ed25519");
    await fs.rm(keyFile);
    await fs.rm(`${keyFile}.pub`);
    assert.equal(spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", keyFile]).status, 0);
    process.kill(ssh.server.pid, "SIGHUP");
    await new Promise((r) => setTimeout(r, 1000));

    const preview = await fx.engine.preview(program());
    assert.equal(preview.ok, false, "the preview does not come out clean");
    const failure = preview.checkFailures["prov-a"]?.[0];
    // Named in the reason, not as the failing property: Pulumi would print that property's value, the login's secrets.
    assert.equal(failure?.property, "", failureOf(preview, "prov-a"));
    assert.match(failure!.reason, /^GarmProvider "alpha": cannot reach GARM's machine, so \S+config\.toml is unchanged: refused to connect to \S+: the SSH host key of 127\.0\.0\.1:\d+ has changed: connection\.hostKey pins SHA256:\S+, the server offered ssh-ed25519 SHA256:\S+/);
    assert.equal(await fs.readFile(fx.file, "utf8"), written, "the file is untouched");
    assert.deepEqual(await leftovers(), []);
    // Pinned again, the rotated key previews clean (and the next test connects with it).
    const pub = (await fs.readFile(`${keyFile}.pub`, "utf8")).trim().split(/\s+/);
    ssh.server.hostKey = `${pub[0]} ${pub[1]}`;
    const pinned = await fx.engine.preview(program());
    assert.ok(pinned.ok, JSON.stringify(pinned.errors));
  });

  it("a connection not known yet is not looked up; a clean one previews clean without writing", async () => {
    fx = await startFixture();
    const unknown = await fx.engine.preview([fx.provider("prov-a", "alpha", { connection: UNKNOWN, restartCommand: fx.serviceRestart })]);
    assert.ok(unknown.ok, JSON.stringify(unknown.errors));
    const clean = await fx.engine.preview([fx.provider("prov-a", "alpha", { connection: connection(), restartCommand: fx.serviceRestart })]);
    assert.ok(clean.ok, JSON.stringify(clean.errors));
    assert.equal(await fs.readFile(fx.file, "utf8"), HAND_WRITTEN);
    assert.deepEqual(await leftovers(), []);
    // Another writer's lock is said, not refused: up waits for it.
    await fs.mkdir(`${fx.file}.lock`);
    await fs.writeFile(`${fx.file}.lock/holder`, JSON.stringify({ who: "pulumi-garm pid 99", where: "laptop-7", since: Date.now() }));
    const locked = await fx.engine.preview([fx.provider("prov-a", "alpha", { connection: connection(), restartCommand: fx.serviceRestart })]);
    assert.ok(locked.ok, JSON.stringify(locked.errors));
    assert.ok(
      locked.logs.some((l) => /GarmProvider "alpha": \S+config\.toml on \S+ is locked by pulumi-garm pid 99 on laptop-7 now; up waits up to 30s for that lock/.test(l)),
      locked.logs.join("\n"),
    );
  });
});
