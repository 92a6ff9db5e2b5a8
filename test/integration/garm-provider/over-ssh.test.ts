// GarmProvider with a `connection`, through the engine harness (the real dynamic-provider server loading the bundle),
// against a real OpenSSH server on loopback (harness/sshd.ts) and the GARM simulator: the config file is edited over
// SFTP and the restart run over SSH, keeping everything outside the managed blocks byte for byte; refresh reads the
// file over SSH; the GarmProviders of one operation share one SSH connection.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import {connectionTo } from "../../../harness/sshd";
import { blocksIn, type Fixture, HAND_WRITTEN, startFixture } from "./engine-fixture";
import { useSshServer } from "../../support/ssh-server";

describe("GarmProvider over SSH through the engine against the GARM simulator", function () {
  this.timeout(120_000);
  let fx: Fixture | undefined;

  const ssh = useSshServer();
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  const connection = () => connectionTo(ssh.server, { dialErrorLimit: 2, perDialTimeout: 10 });
  /** SSH logins sshd accepted since `mark` (an offset in its log). */
  const loginsSince = (mark: number) => (ssh.server.logs().slice(mark).match(/Accepted publickey for /g) ?? []).length;

  it("creates, updates, refreshes and destroys over SSH, one connection per operation, the rest of the file untouched", async () => {
    fx = await startFixture();
    const { engine, sim } = fx;
    const program = (description: string) => [
      // The stand-in service manager starts a GARM that is down, as systemctl does.
      fx!.provider("prov-a", "alpha", { connection: connection(), description, restartCommand: fx!.serviceRestart }),
      fx!.provider("prov-b", "beta", { connection: connection(), restartCommand: fx!.serviceRestart }),
    ];

    let mark = ssh.server.logs().length;
    const up = await engine.up(program("alpha runners"));
    assert.ok(up.ok, `${JSON.stringify(up.errors)}\n${up.logs.join("\n")}`);
    assert.deepEqual([...up.created].sort(), ["prov-a", "prov-b"]);
    assert.deepEqual(blocksIn(await fs.readFile(fx.file, "utf8")).sort(), ["alpha", "beta"]);
    assert.ok((await fs.readFile(fx.file, "utf8")).startsWith(HAND_WRITTEN), "text outside the managed blocks is kept");
    assert.deepEqual(sim.providers().map((p) => p.name).sort(), ["alpha", "beta"]);
    assert.equal(loginsSince(mark), 1, `two GarmProviders, one SSH connection:\n${ssh.server.logs().slice(mark)}`);
    // Both changes share one restart when the second write lands within the coordinator's quiet window (750 ms); on a
    // loaded machine two SFTP writes with their fsyncs may not, and the second change then gets a restart of its own.
    assert.ok(fx.restarts.length >= 1 && fx.restarts.length <= 2, `restarts run over SSH:\n${up.logs.join("\n")}`);

    mark = ssh.server.logs().length;
    const changed = await engine.up(program("alpha runners, renamed"));
    assert.ok(changed.ok, JSON.stringify(changed.errors));
    assert.deepEqual(changed.updated, ["prov-a"]);
    assert.match(await fs.readFile(fx.file, "utf8"), /description = "alpha runners, renamed"/);
    assert.equal(sim.providers().find((p) => p.name === "alpha")?.description, "alpha runners, renamed");
    assert.equal(loginsSince(mark), 1);

    // A hand edit of the block on the host: refresh reads it there and takes it into the state.
    const text = await fs.readFile(fx.file, "utf8");
    await fs.writeFile(fx.file, text.replace('description = "alpha runners, renamed"', 'description = "edited on the host"'));
    const refreshed = await engine.refresh();
    assert.ok(refreshed.ok, JSON.stringify(refreshed.errors));
    assert.equal(engine.state().resources.find((r) => r.name === "prov-a")?.outputs.description, "edited on the host");
    // The next up writes the program's block back over SSH.
    const back = await engine.up(program("alpha runners, renamed"));
    assert.ok(back.ok, JSON.stringify(back.errors));
    assert.match(await fs.readFile(fx.file, "utf8"), /description = "alpha runners, renamed"/);

    const gone = await engine.destroy();
    assert.ok(gone.ok, JSON.stringify(gone.errors));
    assert.equal(await fs.readFile(fx.file, "utf8"), HAND_WRITTEN, "the file is as it was, byte for byte");
    assert.deepEqual(sim.providers().map((p) => p.name), []);
    assert.deepEqual(await fs.readdir(fx.dir).then((names) => names.filter((n) => /\.lock|pulumi-garm/.test(n))), [], "no lock or note left behind");
  });

  it("a connection respelled to the same machine (none, then SSH to it) is a replacement whose original delete leaves the block to it", async () => {
    fx = await startFixture();
    const { engine, sim } = fx;
    const program = (over: Record<string, unknown>) => [fx!.provider("prov-a", "alpha", { restartCommand: fx!.serviceRestart, ...over })];
    const local = await engine.up(program({}));
    assert.ok(local.ok, `${JSON.stringify(local.errors)}\n${local.logs.join("\n")}`);
    const written = await fs.readFile(fx.file, "utf8");
    const restarts = fx.restarts.length;

    // diff compares machines by how they are reached: this machine and an SSH login to it are two, so it replaces.
    const moved = await engine.up(program({ connection: connection() }));
    assert.ok(moved.ok, `${JSON.stringify(moved.errors)}\n${moved.logs.join("\n")}`);
    assert.deepEqual(moved.replaced, ["prov-a"], JSON.stringify(moved.steps));
    const after = await fs.readFile(fx.file, "utf8");
    assert.deepEqual(blocksIn(after), ["alpha"], "the original's delete left the block its replacement took over");
    assert.equal(after.replace(/^# pulumi-garm owner: .*\n/m, ""), written.replace(/^# pulumi-garm owner: .*\n/m, ""), "only the owner line changed");
    assert.deepEqual(sim.providers().map((p) => p.name), ["alpha"], "GARM still runs the provider the state holds");
    assert.equal(fx.restarts.length, restarts, "the block GARM reads is unchanged: GARM is not restarted");
    assert.ok(moved.logs.some((l) => /belongs to this resource's replacement/.test(l)), moved.logs.join("\n"));

    const same = await engine.up(program({ connection: connection() }));
    assert.ok(same.ok, JSON.stringify(same.errors));
    assert.deepEqual([...same.created, ...same.updated, ...same.replaced, ...same.deleted], [], "then no change");
    const gone = await engine.destroy();
    assert.ok(gone.ok, JSON.stringify(gone.errors));
    assert.equal(await fs.readFile(fx.file, "utf8"), HAND_WRITTEN, "the replacement's delete removes the block");
    assert.deepEqual(sim.providers().map((p) => p.name), []);
  });

  it("refuses a host key that does not match, at create, leaving the file untouched and naming both fingerprints", async () => {
    fx = await startFixture();
    const wrong = { ...connection(), hostKey: "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" };
    const up = await fx.engine.up([fx.provider("prov-a", "alpha", { connection: wrong })]);
    assert.equal(up.ok, false);
    assert.match(String(up.errors["prov-a"]), /host key of 127\.0\.0\.1:\d+ has changed: connection\.hostKey pins SHA256:A+, the server offered ssh-ed25519 SHA256:/);
    assert.doesNotMatch(String(up.errors["prov-a"]), /PRIVATE KEY/);
    assert.equal(await fs.readFile(fx.file, "utf8"), HAND_WRITTEN);
  });
});
