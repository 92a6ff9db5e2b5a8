import * as assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as toml from "smol-toml";
import { makeGarmProviderImpl, type GarmProviderDeps } from "../../../provider/kinds/garm-provider/lifecycle";
import { readBlock, readBlockClaim, renderBlock, upsertBlock } from "../../../provider/kinds/garm-provider/managed-block";
import { RestartCoordinator, type CommandResult } from "../../../provider/kinds/garm-provider/restart";
import type { PoolRef, ScaleSetRef } from "../../../provider/common/dependents";
import { cancelNow, newCancellation } from "../../../provider/common/cancel";
import { localHost } from "../../../provider/machine/local-host";
import { announcementPath, readAnnouncement } from "../../../provider/kinds/garm-provider/restart-announcement";
import { importGarmProvider } from "../../../provider/kinds/garm-provider/import";
import { HAND_WRITTEN, removeDir, tempConfig } from "./helpers";

/**
 * A GARM that loads its providers from the config file only when restarted (garm-behaviour.md §9.2), and answers
 * GET /providers, scale sets and pools from that state; `down` makes every call fail like a refused connection.
 */
class FakeGarm {
  providers: { name: string; type: string; description: string }[] = [];
  scaleSets: ScaleSetRef[] = [];
  pools: PoolRef[] = [];
  down = false;
  restarts = 0;
  failRestart?: CommandResult;

  constructor(private readonly file: string) {}

  async restart(): Promise<CommandResult> {
    this.restarts++;
    if (this.failRestart) return this.failRestart;
    const doc = toml.parse(await fs.readFile(this.file, "utf8")) as { provider?: Array<Record<string, string>> };
    this.providers = (doc.provider ?? []).map((p) => ({ name: p.name, type: p.provider_type, description: p.description ?? "" }));
    return { code: 0, signal: null, output: "", timedOut: false };
  }

  private reachable() {
    if (this.down) throw Object.assign(new Error("GARM GET failed: connect ECONNREFUSED 127.0.0.1:9997"), { kind: "connection" });
  }
  readonly client = {
    listProviders: async () => (this.reachable(), this.providers.map((p) => ({ ...p }))),
    listScaleSets: async () => (this.reachable(), this.scaleSets),
    listPools: async () => (this.reachable(), this.pools),
  };
}

describe("garm-provider lifecycle", () => {
  let dir: string;
  let file: string;
  let garm: FakeGarm;
  let logs: string[];
  let deps: GarmProviderDeps;

  const inputs = (name: string, over: Record<string, unknown> = {}) => ({
    name,
    description: `${name} runners`,
    executable: `/usr/local/bin/garm-provider-${name}`,
    environmentVariables: ["PATH"],
    interfaceVersion: "v0.1.0",
    garmConfigPath: file,
    restartCommand: "systemctl restart garm",
    restartTimeoutSeconds: 2,
    __provider: "serialized shim",
    ...over,
  });

  beforeEach(async () => {
    ({ dir, file } = await tempConfig(HAND_WRITTEN));
    garm = new FakeGarm(file);
    await garm.restart();
    garm.restarts = 0;
    logs = [];
    deps = {
      garm: () => garm.client,
      restarts: new RestartCoordinator({ run: () => garm.restart(), quietMs: 100 }),
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
      now: () => Date.now(),
      log: (l) => logs.push(l),
      pollMs: 5,
      inspectFile: async () => undefined,
    };
  });
  afterEach(async () => removeDir(dir));

  const text = () => fs.readFile(file, "utf8");

  it("create writes the block, restarts GARM once and waits until it lists the provider", async () => {
    const impl = makeGarmProviderImpl(deps);
    const r = await impl.create(inputs("openstack"));
    // The file and the name, not the name alone (provider/kinds/garm-provider/import.ts garmProviderId).
    assert.equal(r.id, `${file}#openstack`);
    assert.equal(r.outs.stateVersion, 2);
    assert.match(r.outs.generation ?? "", /^[0-9a-f]{16}$/, "the generation its block records");
    assert.equal(readBlockClaim(await text(), "openstack")?.generation, r.outs.generation);
    assert.equal(r.outs.garmConfigPath, file);
    assert.ok(!("__provider" in r.outs));
    assert.ok((await text()).startsWith(HAND_WRITTEN));
    assert.equal(readBlock(await text(), "openstack")?.description, "openstack runners");
    assert.equal(garm.restarts, 1);
    assert.deepEqual(garm.providers.map((p) => p.name).sort(), ["lxd_local", "openstack"]);
    assert.ok(logs.every((l) => !l.includes("\n")), "log lines are single lines");
  });

  it("a create cancelled while it waits for GARM's restart ends at once, restarts nothing, and is recorded unconfirmed for the next up", async () => {
    const cancellation = newCancellation();
    const impl = makeGarmProviderImpl({ ...deps, restarts: new RestartCoordinator({ run: () => garm.restart(), quietMs: 60_000 }), cancel: cancellation.signal });
    const creating = impl.create(inputs("openstack")).then(
      () => assert.fail("the create finished instead of being cancelled"),
      (err: unknown) => err as Error & { id?: string; properties?: Record<string, unknown> },
    );
    while (!readBlock(await text(), "openstack")) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    cancelNow(cancellation, "the engine asked to cancel (Ctrl-C)");
    const err = await creating;
    assert.ok(Date.now() - started < 1000);
    assert.match(err.message, /^GarmProvider "openstack": the new block is written to .*, but GARM has not confirmed it: cancelled: the engine asked to cancel \(Ctrl-C\)\. .*run pulumi up again, which restarts GARM once more/);
    assert.equal(err.id, `${file}#openstack`, "a partial create: Pulumi records it");
    assert.equal(err.properties?.confirmed, false);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(garm.restarts, 0, "the restart nobody waits for any more never runs");
  });

  it("several providers created together cause one restart", async () => {
    const impl = makeGarmProviderImpl(deps);
    await Promise.all(["a", "b", "c", "d"].map((n) => impl.create(inputs(n))));
    assert.equal(garm.restarts, 1);
    for (const n of ["a", "b", "c", "d"]) assert.ok(readBlock(await text(), n));
    assert.deepEqual(garm.providers.map((p) => p.name).sort(), ["a", "b", "c", "d", "lxd_local"]);
  });

  it("create refuses a missing executable before touching the file", async () => {
    const impl = makeGarmProviderImpl({ ...deps, inspectFile: undefined });
    await assert.rejects(impl.create(inputs("x", { executable: path.join(dir, "missing") })), /does not exist; GARM refuses to start/);
    assert.equal(await text(), HAND_WRITTEN);
    assert.equal(garm.restarts, 0);
  });

  it("create refuses a name a hand-written entry uses, without a restart", async () => {
    const impl = makeGarmProviderImpl(deps);
    await assert.rejects(impl.create(inputs("lxd_local")), /already defines provider "lxd_local" by hand/);
    assert.equal(await text(), HAND_WRITTEN);
    assert.equal(garm.restarts, 0);
  });

  it("a failing restart says the block is written, with the exit code and output", async () => {
    garm.failRestart = { code: 1, signal: null, output: "Job for garm.service failed because the control process exited.\n", timedOut: false };
    const impl = makeGarmProviderImpl(deps);
    await assert.rejects(impl.create(inputs("os")), (e: Error) => {
      assert.match(e.message, /the new block is written to .*config\.toml, but GARM has not confirmed it/);
      assert.match(e.message, /exited with code 1/);
      assert.match(e.message, /Job for garm.service failed/);
      assert.match(e.message, /run pulumi up again/);
      return true;
    });
    // The retry rewrites nothing new and restarts again.
    garm.failRestart = undefined;
    await impl.create(inputs("os"));
    assert.equal(garm.restarts, 2);
  });

  it("a failing restart of an update is a partial update: the new outputs, unconfirmed, and the retry restarts again", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    garm.failRestart = { code: 1, signal: null, output: "boom", timedOut: false };
    const news = inputs("os", { description: "changed" });
    const e = await impl.update("os", outs as any, news).then(
      () => assert.fail("the restart fails"),
      (err: Error & { id?: string; properties?: Record<string, unknown>; reasons?: string[] }) => err,
    );
    assert.equal(e.id, "os");
    assert.equal(e.properties?.description, "changed");
    assert.equal(e.properties?.confirmed, false);
    assert.equal(e.properties?.__provider, "serialized shim", "the serialized provider stays with the outputs");
    assert.deepEqual(e.reasons, [e.message]);
    // The engine's next up calls update with the recorded outputs and unchanged inputs: GARM restarts once more.
    garm.failRestart = undefined;
    assert.equal((await impl.diff("os", e.properties!, news)).changes, true);
    const restarts = garm.restarts;
    const { outs: done } = await impl.update("os", e.properties!, news);
    assert.equal(garm.restarts, restarts + 1);
    assert.equal(done.confirmed, undefined);
    assert.equal(garm.providers.find((p) => p.name === "os")?.description, "changed");
    assert.equal((await impl.diff("os", done as any, news)).changes, false);
  });

  it("update rewrites the block in place and restarts; a restart-only change does not restart", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    const before = await text();
    const { outs: outs2 } = await impl.update("os", outs as any, inputs("os", { description: "changed" }));
    assert.equal(outs2.description, "changed");
    assert.equal(garm.providers.find((p) => p.name === "os")?.description, "changed");
    assert.equal(garm.restarts, 2);
    assert.equal((await text()).length, before.length + "changed".length - "os runners".length);
    await impl.update("os", outs2 as any, inputs("os", { description: "changed", restartTimeoutSeconds: 5 }));
    assert.equal(garm.restarts, 2);
  });

  it("a garmConfigPath spelled another way is the update diff plans, not a replacement update refuses", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    const link = path.join(dir, "garm.toml");
    await fs.symlink(file, link);
    const news = inputs("os", { garmConfigPath: `${dir}/./garm.toml`, description: "changed" });
    const planned = await impl.diff("os", outs as any, news);
    assert.deepEqual(planned.replaces, [], "diff plans an update");
    const { outs: updated } = await impl.update("os", outs as any, news);
    assert.equal(updated.garmConfigPath, `${dir}/./garm.toml`, "the state takes the new spelling");
    assert.equal(readBlock(await text(), "os")?.description, "changed");
    assert.equal(garm.providers.find((p) => p.name === "os")?.description, "changed");
    // A path naming another file is still refused, as diff reports it as a replacement.
    const other = path.join(dir, "other.toml");
    await fs.writeFile(other, "");
    assert.deepEqual((await impl.diff("os", updated as any, inputs("os", { garmConfigPath: other }))).replaces, ["garmConfigPath"]);
    await assert.rejects(impl.update("os", updated as any, inputs("os", { garmConfigPath: other })), /need a replacement/);
  });

  it("a block gone from the file (a delete whose restart failed, or a hand edit) is planned as an update that writes it again and restarts", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    const news = inputs("os");
    assert.equal((await impl.diff("os", outs as any, news)).changes, false, "in the file and loaded: no change");
    // A destroy removed the block, then its restart failed: GARM still runs the provider, the state still holds it.
    garm.failRestart = { code: 1, signal: null, output: "boom", timedOut: false };
    await assert.rejects(impl.delete("os", outs as any), /its block is removed from/);
    garm.failRestart = undefined;
    assert.equal(readBlock(await text(), "os"), undefined);
    const planned = await impl.diff("os", outs as any, news);
    assert.equal(planned.changes, true, "the next up must not plan no change");
    assert.deepEqual(planned.replaces, []);
    assert.ok(logs.some((l) => /its block is gone from .*config\.toml; this update writes it again/.test(l)), logs.join("\n"));
    const restarts = garm.restarts;
    await impl.update("os", outs as any, news);
    assert.ok(readBlock(await text(), "os"), "the block is back");
    assert.equal(garm.restarts, restarts + 1);
    assert.ok(garm.providers.some((p) => p.name === "os"));
    assert.equal((await impl.diff("os", outs as any, news)).changes, false);
  });

  it("a block that differs from the state in the file is planned as an update that writes the program's block", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    await fs.writeFile(file, upsertBlock(await text(), { ...readBlock(await text(), "os")!, executable: "/opt/other" }));
    const news = inputs("os");
    assert.equal((await impl.diff("os", outs as any, news)).changes, true);
    assert.ok(logs.some((l) => /its block in .*config\.toml differs from the one it wrote; this update writes it again/.test(l)), logs.join("\n"));
    await impl.update("os", outs as any, news);
    assert.equal(readBlock(await text(), "os")?.executable, "/usr/local/bin/garm-provider-os");
  });

  it("a block GARM has not loaded (GET /providers lacks it) is planned as an update that restarts GARM", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    // GARM was restarted while the block was out (another writer's restart), then the block came back unrestarted.
    garm.providers = garm.providers.filter((p) => p.name !== "os");
    const news = inputs("os");
    const before = await text();
    assert.equal((await impl.diff("os", outs as any, news)).changes, true);
    assert.ok(logs.some((l) => /GARM has not loaded the provider .*; this update restarts GARM/.test(l)), logs.join("\n"));
    const restarts = garm.restarts;
    await impl.update("os", outs as any, news);
    assert.equal(garm.restarts, restarts + 1, "the update restarts GARM though the file is unchanged");
    assert.equal(await text(), before);
    assert.ok(garm.providers.some((p) => p.name === "os"));
  });

  it("diff plans from the state when GARM cannot be asked, saying so once", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    garm.down = true;
    assert.equal((await impl.diff("os", outs as any, inputs("os"))).changes, false);
    assert.equal((await impl.diff("os", outs as any, inputs("os"))).changes, false);
    assert.equal(logs.filter((l) => /could not ask GARM which providers it loaded/.test(l)).length, 1, logs.join("\n"));
  });

  it("announces its restart beside the config file while it lasts, and watches the announcements of other writers", async () => {
    const watched: string[] = [];
    let during: Awaited<ReturnType<typeof readAnnouncement>>;
    const restart = garm.restart.bind(garm);
    garm.restart = async () => ((during = await readAnnouncement(localHost, file)), restart());
    const impl = makeGarmProviderImpl({ ...deps, watchRestarts: (f) => watched.push(f) });
    await impl.create(inputs("os"));
    assert.ok(during && during.remainingMs > 2 * 2000, JSON.stringify(during));
    assert.match(during.by, new RegExp(`pid ${process.pid} on `));
    assert.equal(await readAnnouncement(localHost, file), undefined, "withdrawn once GARM shows the change");
    await assert.rejects(fs.stat(announcementPath(file)));
    assert.deepEqual(watched, [file]);
  });

  it("runs the restart on the host the config file is on, and the same command on two hosts restarts both", async () => {
    const ran: string[] = [];
    const remote = (label: string) => ({ ...localHost, label, run: async (command: string) => (ran.push(`${label}: ${command}`), garm.restart()) });
    const restarts = new RestartCoordinator({ run: (c, t, h) => (h ? h.run(c, t) : garm.restart()), quietMs: 50, log: (l) => logs.push(l) });
    const a = makeGarmProviderImpl({ ...deps, restarts, host: remote("garm@10.0.0.5:22") });
    const b = makeGarmProviderImpl({ ...deps, restarts, host: remote("garm@10.0.0.6:22") });
    await Promise.all([a.create(inputs("a")), b.create(inputs("b"))]);
    assert.deepEqual(ran.sort(), ["garm@10.0.0.5:22: systemctl restart garm", "garm@10.0.0.6:22: systemctl restart garm"]);
    assert.ok(logs.some((l) => l.startsWith("GarmProvider: restarting GARM on garm@10.0.0.5:22 with ")), logs.join("\n"));
  });

  it("delete refuses while scale sets or pools use the provider and lists them", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    garm.scaleSets = [
      { id: 3, name: "ci-small", providerName: "os", entity: { kind: "organization", name: "acme", id: "u1" } },
      { id: 4, name: "other", providerName: "lxd_local", entityName: "acme" },
    ];
    garm.pools = [{ id: "7f3c0e2a", providerName: "os", entityName: "acme/app" }];
    const before = await text();
    await assert.rejects(impl.delete("os", outs as any), (e: Error) => {
      assert.match(e.message, /scale set "ci-small" \(id 3, organization acme\)/);
      assert.match(e.message, /pool 7f3c0e2a \(acme\/app\)/);
      assert.ok(!e.message.includes("id 4"));
      assert.match(e.message, /Pulumi will retry the delete on the next run/);
      return true;
    });
    assert.equal(await text(), before);
    assert.equal(garm.restarts, 1);
  });

  it("delete refuses when GARM cannot be asked", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    garm.down = true;
    const before = await text();
    await assert.rejects(impl.delete("os", outs as any), /not removed, because GARM could not be asked what still uses it \(scale sets: .*ECONNREFUSED.*Run again once GARM answers/);
    assert.equal(await text(), before);
  });

  it("delete removes the block, restarts and waits until GARM no longer lists it", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    await impl.delete("os", outs as any);
    assert.equal(await text(), HAND_WRITTEN);
    assert.equal(garm.restarts, 2);
    assert.deepEqual(garm.providers.map((p) => p.name), ["lxd_local"]);
  });

  it("create then delete leaves a file without a final newline byte for byte as it was", async () => {
    for (const original of [HAND_WRITTEN.replace(/\n$/, ""), HAND_WRITTEN.replace(/\n/g, "\r\n").replace(/\r\n$/, "")]) {
      await fs.writeFile(file, original);
      const impl = makeGarmProviderImpl(deps);
      const { outs } = await impl.create(inputs("os"));
      assert.ok(readBlock(await text(), "os"));
      await impl.delete("os", outs as any);
      assert.equal(await text(), original);
    }
  });

  describe("a block's generation: delete removes only the block this resource wrote", () => {
    const MINE = { project: "garm-infra", stack: "prod", resource: "openstack" };

    for (const owner of [MINE, undefined]) {
      it(`a replacement's create, then the original's delete, leave the block and GARM as they are (${owner ? "with" : "without"} an owner)`, async () => {
        const impl = makeGarmProviderImpl(deps);
        const { outs: original } = await impl.create(inputs("os", { owner }));
        assert.equal(garm.restarts, 1);
        // A replacement with the same owner and block (another garm:url, another spelling of GARM's host): the block
        // is already in and GARM lists it, so only the owner line changes and GARM is not restarted.
        const { outs: replacement } = await impl.create(inputs("os", { owner }));
        assert.equal(garm.restarts, 1, "the block GARM reads is unchanged: no restart");
        assert.ok(logs.some((l) => /its block is already in .*; GARM lists the provider/.test(l)), logs.join("\n"));
        const held = await text();
        await impl.delete("os", original as any);
        assert.equal(await text(), held, "the original's delete leaves its replacement's block");
        assert.equal(garm.restarts, 1, "and does not restart GARM");
        assert.ok(garm.providers.some((p) => p.name === "os"));
        assert.equal(logs.filter((l) => /belongs to this resource's replacement/.test(l)).length, 1, logs.join("\n"));
        // The replacement's own delete still removes it.
        await impl.delete("os", replacement as any);
        assert.equal(await text(), HAND_WRITTEN);
        assert.equal(garm.restarts, 2);
        assert.ok(!garm.providers.some((p) => p.name === "os"));
      });
    }

    it("a replacement whose GARM does not list the provider yet (another GARM reads the file) restarts it", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs: original } = await impl.create(inputs("os", { owner: MINE }));
      garm.providers = garm.providers.filter((p) => p.name !== "os");
      await impl.create(inputs("os", { owner: MINE }));
      assert.equal(garm.restarts, 2);
      assert.ok(garm.providers.some((p) => p.name === "os"));
      await impl.delete("os", original as any);
      assert.ok(readBlock(await text(), "os"));
      assert.ok(garm.providers.some((p) => p.name === "os"));
    });

    it("delete before replace: the original's delete removes the block, the replacement's create writes it again", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs: original } = await impl.create(inputs("os", { owner: MINE }));
      await impl.delete("os", original as any);
      assert.equal(await text(), HAND_WRITTEN);
      const { outs: replacement } = await impl.create(inputs("os", { owner: MINE }));
      assert.ok(garm.providers.some((p) => p.name === "os"));
      await impl.delete("os", replacement as any);
      assert.equal(await text(), HAND_WRITTEN);
      assert.equal(garm.restarts, 4);
    });

    it("a normal delete still removes the block and restarts GARM", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs } = await impl.create(inputs("os", { owner: MINE }));
      const { outs: updated } = await impl.update("os", outs as any, inputs("os", { owner: MINE, description: "changed" }));
      await impl.delete("os", updated as any);
      assert.equal(await text(), HAND_WRITTEN);
      assert.equal(garm.restarts, 3);
      assert.deepEqual(garm.providers.map((p) => p.name), ["lxd_local"]);
    });

    for (const owner of [MINE, undefined]) {
      it(`a block and state from before generations (${owner ? "with" : "without"} an owner) still delete`, async () => {
        const { __provider: _p, ...old } = inputs("os", { owner });
        await fs.writeFile(file, upsertBlock(HAND_WRITTEN, { name: "os", description: "os runners", executable: "/usr/local/bin/garm-provider-os", environmentVariables: ["PATH"], interfaceVersion: "v0.1.0" }, file, owner));
        await garm.restart();
        const impl = makeGarmProviderImpl(deps);
        await impl.delete("os", { ...old, stateVersion: 1 });
        assert.equal(await text(), HAND_WRITTEN);
        assert.ok(!garm.providers.some((p) => p.name === "os"));
      });
    }

    it("a state from before generations, replaced by this version: the original's delete leaves the replacement's block", async () => {
      const { __provider: _p, ...old } = inputs("os", { owner: MINE });
      await fs.writeFile(file, upsertBlock(HAND_WRITTEN, { name: "os", description: "os runners", executable: "/usr/local/bin/garm-provider-os", environmentVariables: ["PATH"], interfaceVersion: "v0.1.0" }, file, MINE));
      await garm.restart();
      const restarts = garm.restarts;
      const impl = makeGarmProviderImpl(deps);
      await impl.create(inputs("os", { owner: MINE }));
      await impl.delete("os", { ...old, stateVersion: 1 });
      assert.ok(readBlock(await text(), "os"), "the replacement's block stays");
      assert.equal(garm.restarts, restarts);
      assert.ok(garm.providers.some((p) => p.name === "os"));
    });

    it("a partial create records the generation it wrote, so its delete removes the block", async () => {
      garm.failRestart = { code: 1, signal: null, output: "boom", timedOut: false };
      const impl = makeGarmProviderImpl(deps);
      const err = await impl.create(inputs("os", { owner: MINE })).then(
        () => assert.fail("the restart fails"),
        (e: Error & { properties?: Record<string, unknown> }) => e,
      );
      garm.failRestart = undefined;
      await impl.delete("os", err.properties!);
      assert.equal(await text(), HAND_WRITTEN);
    });

    it("update keeps the generation, and an imported managed block's state deletes it", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs } = await impl.create(inputs("os", { owner: MINE }));
      const { outs: updated } = await impl.update("os", outs as any, inputs("os", { owner: MINE, description: "changed" }));
      const found = await importGarmProvider(`${file}#os`, { config: () => "systemctl restart garm" });
      // Another resource of this generation (the state imported back) may still delete the block.
      assert.equal(found.props.generation, (updated as any).generation);
      await impl.delete(found.id, found.props);
      assert.equal(await text(), HAND_WRITTEN);
    });
  });

  it("delete succeeds when the block is already gone", async () => {
    const impl = makeGarmProviderImpl(deps);
    await impl.delete("os", inputs("os"));
    assert.equal(garm.restarts, 0);
    garm.down = true;
    await impl.delete("os", inputs("os"));
  });

  it("delete finishes an earlier delete whose restart failed", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    garm.failRestart = { code: 1, signal: null, output: "boom", timedOut: false };
    await assert.rejects(impl.delete("os", outs as any), /its block is removed from .*GARM may still run with it.*retry the delete/s);
    garm.failRestart = undefined;
    assert.ok(garm.providers.some((p) => p.name === "os"));
    await impl.delete("os", outs as any);
    assert.ok(!garm.providers.some((p) => p.name === "os"));
  });

  it("read returns the block as the file holds it, and no id once it is gone", async () => {
    const impl = makeGarmProviderImpl(deps);
    const { outs } = await impl.create(inputs("os"));
    const edited = upsertBlock(await text(), { ...readBlock(await text(), "os")!, description: "edited by hand" });
    await fs.writeFile(file, edited);
    const r = await impl.read("os", outs as any);
    assert.equal(r.id, "os");
    assert.equal(r.props?.description, "edited by hand");
    assert.equal(r.props?.restartCommand, "systemctl restart garm");
    assert.equal(r.inputs?.description, "edited by hand");
    await fs.writeFile(file, edited.replace(renderBlock(readBlock(edited, "os")!), ""));
    assert.deepEqual(await impl.read("os", outs as any), {});
  });

  it("an entry imported as written by hand: diff says the update only puts the markers around it, and it does so byte for byte without restarting GARM", async () => {
    const impl = makeGarmProviderImpl(deps);
    const found = await importGarmProvider(`${file}#lxd_local`, { config: () => "systemctl restart garm" });
    const owner = { project: "infra", stack: "prod", resource: "lxd" };
    const checked = await impl.check(found.inputs, { ...found.inputs, owner });
    assert.deepEqual(checked.failures, [], "the entry it was imported from is no collision");
    const planned = await impl.diff(found.id, found.props, checked.inputs!);
    assert.equal(planned.changes, true);
    assert.deepEqual(Object.keys(planned.fields), ["owner"]);
    assert.deepEqual(planned.replaces, []);
    assert.ok(
      logs.includes(`GarmProvider "lxd_local": this update puts pulumi-garm's markers around the hand-written block in ${file}, byte for byte otherwise; GARM is not restarted`),
      logs.join("\n"),
    );
    const { outs } = await impl.update(found.id, found.props, checked.inputs!);
    const after = await text();
    assert.equal(garm.restarts, 0, "GARM already runs the entry");
    // The update records a generation for the entry it marks, as the state had none.
    assert.match(outs.generation ?? "", /^[0-9a-f]{16}$/);
    const ownerLine = `# pulumi-garm owner: ${JSON.stringify({ ...owner, generation: outs.generation })}\n`;
    const opening = `# BEGIN pulumi-garm provider "lxd_local"\n${ownerLine}# Managed by pulumi-garm (GarmProvider); edits inside this block are overwritten.\n`;
    const at = HAND_WRITTEN.indexOf("[[provider]]");
    const entryEnd = HAND_WRITTEN.indexOf("\n\n[database]") + 1;
    assert.equal(after, HAND_WRITTEN.slice(0, at) + opening + HAND_WRITTEN.slice(at, entryEnd) + '# END pulumi-garm provider "lxd_local"\n' + HAND_WRITTEN.slice(entryEnd));
    assert.deepEqual(outs.owner, owner);
    const again = await impl.diff(found.id, outs as any, checked.inputs!);
    assert.equal(again.changes, false);
    // A later update that changes nothing GARM reads keeps the entry's own bytes.
    await impl.update(found.id, outs as any, { ...checked.inputs!, restartTimeoutSeconds: 9 });
    assert.equal(await text(), after);
    assert.equal(garm.restarts, 0);
  });

  it("an imported hand-written entry the program describes otherwise is marked, rewritten and loaded with one restart", async () => {
    const impl = makeGarmProviderImpl(deps);
    const found = await importGarmProvider(`${file}#lxd_local`, { config: () => "systemctl restart garm" });
    const news = { ...found.inputs, description: "LXD here", owner: { project: "infra", stack: "prod", resource: "lxd" } };
    const checked = await impl.check(found.inputs, news);
    await impl.diff(found.id, found.props, checked.inputs!);
    assert.ok(logs.some((l) => l.includes("puts pulumi-garm's markers around the hand-written block") && l.includes("rewrites it as the program says; GARM restarts to load it")), logs.join("\n"));
    await impl.update(found.id, found.props, checked.inputs!);
    assert.equal(readBlock(await text(), "lxd_local")?.description, "LXD here");
    assert.equal(garm.restarts, 1);
  });

  it("check reads the file for collisions with hand-written entries", async () => {
    const impl = makeGarmProviderImpl(deps);
    const r = await impl.check({}, inputs("lxd_local"));
    assert.equal(r.failures?.[0]?.property, "name");
    // The resource imported from the entry passes; one with a block of its own beside the entry is the duplicate.
    assert.deepEqual((await impl.check(inputs("lxd_local"), inputs("lxd_local"))).failures, []);
    await fs.writeFile(file, upsertBlock(HAND_WRITTEN, { name: "lxd_local", description: "", executable: "/bin/true", environmentVariables: [], interfaceVersion: "v0.1.0" }));
    assert.equal((await impl.check(inputs("lxd_local"), inputs("lxd_local"))).failures?.[0]?.property, "name");
  });
});
