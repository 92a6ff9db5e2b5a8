// Who owns a managed block (issue 10 item 5): the block names the Pulumi project, stack and resource that wrote it;
// another owner's block is refused at check and at create/update, and left alone by delete. Blocks written before
// owners were recorded are claimed by the first GarmProvider that writes them.
import * as assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as toml from "smol-toml";
import { checkGarmProvider } from "../../../provider/kinds/garm-provider/checks";
import { makeGarmProviderImpl, type GarmProviderDeps } from "../../../provider/kinds/garm-provider/lifecycle";
import { ManagedBlockError, readBlock, readBlockClaim, readBlockOwner, renderBlock, setBlockClaim, upsertBlock } from "../../../provider/kinds/garm-provider/managed-block";
import { foreignOwner } from "../../../provider/kinds/garm-provider/ownership";
import { RestartCoordinator } from "../../../provider/kinds/garm-provider/restart";
import { HAND_WRITTEN, removeDir, spec, tempConfig } from "./helpers";

const MINE = { project: "garm-infra", stack: "prod", resource: "openstack" };
const THEIRS = { project: "garm-infra", stack: "staging", resource: "openstack" };

describe("garm-provider block owners", () => {
  describe("in the block", () => {
    it("writes the owner on a comment line of the block and reads it back", () => {
      const block = renderBlock(spec("os"), "\n", MINE);
      assert.match(block, /^# BEGIN pulumi-garm provider "os"\n# pulumi-garm owner: \{"project":"garm-infra","stack":"prod","resource":"openstack"\}\n/);
      const text = upsertBlock(HAND_WRITTEN, spec("os"), undefined, MINE);
      assert.deepEqual(readBlockOwner(text, "os"), MINE);
      assert.deepEqual(readBlock(text, "os"), spec("os"), "the owner line is a comment: GARM and the block spec do not see it");
      assert.equal((toml.parse(text) as { provider: unknown[] }).provider.length, 2);
    });

    it("keeps an owner that needs escaping on one line", () => {
      const odd = { project: "p", stack: "s", resource: 'a "quoted"\nname' };
      const text = upsertBlock(HAND_WRITTEN, spec("os"), undefined, odd);
      assert.deepEqual(readBlockOwner(text, "os"), odd);
    });

    it("reads no owner from a block written before owners were recorded", () => {
      assert.equal(readBlockOwner(upsertBlock(HAND_WRITTEN, spec("os")), "os"), undefined);
    });

    it("refuses an owner line edited into something unreadable", () => {
      const text = upsertBlock(HAND_WRITTEN, spec("os"), undefined, MINE).replace('"stack":"prod"', '"stack":');
      assert.throws(() => readBlockOwner(text, "os"), ManagedBlockError);
    });
  });

  describe("its generation", () => {
    it("rides on the owner line as one more key, which the owner ignores", () => {
      const text = upsertBlock(HAND_WRITTEN, spec("os"), undefined, MINE, "0123456789abcdef");
      assert.match(text, /\n# pulumi-garm owner: \{"project":"garm-infra","stack":"prod","resource":"openstack","generation":"0123456789abcdef"\}\n/);
      assert.deepEqual(readBlockClaim(text, "os"), { owner: MINE, generation: "0123456789abcdef" });
      assert.deepEqual(readBlockOwner(text, "os"), MINE, "foreignOwner compares owners without the generation");
      assert.equal(foreignOwner(readBlockOwner(text, "os"), MINE), undefined);
    });

    it("is recorded alone for a resource without an owner, and absent in blocks from before generations", () => {
      const alone = upsertBlock(HAND_WRITTEN, spec("os"), undefined, undefined, "feed");
      assert.match(alone, /\n# pulumi-garm owner: \{"generation":"feed"\}\n/);
      assert.deepEqual(readBlockClaim(alone, "os"), { generation: "feed" });
      assert.equal(readBlockOwner(alone, "os"), undefined);
      assert.deepEqual(readBlockClaim(upsertBlock(HAND_WRITTEN, spec("os"), undefined, MINE), "os"), { owner: MINE });
      assert.deepEqual(readBlockClaim(upsertBlock(HAND_WRITTEN, spec("os")), "os"), {});
      assert.equal(readBlockClaim(HAND_WRITTEN, "os"), undefined, "no block");
      assert.throws(() => readBlockClaim(alone.replace('"feed"', "7"), "os"), ManagedBlockError);
    });

    it("setBlockClaim rewrites only the owner line, or adds one after BEGIN, keeping every other byte", () => {
      for (const eol of ["\n", "\r\n"]) {
        const base = HAND_WRITTEN.replace(/\n/g, eol);
        const old = upsertBlock(base, spec("os"), undefined, MINE);
        const taken = setBlockClaim(old, "os", MINE, "beef");
        assert.deepEqual(readBlockClaim(taken, "os"), { owner: MINE, generation: "beef" });
        const ownerAt = old.indexOf("# pulumi-garm owner:");
        const lineEnd = old.indexOf(eol, ownerAt);
        assert.equal(taken.slice(0, ownerAt), old.slice(0, ownerAt));
        assert.equal(taken.slice(taken.indexOf(eol, ownerAt)), old.slice(lineEnd));
        // A block without an owner line (before owners) gets one, in the file's line ending.
        const bare = upsertBlock(base, spec("os"));
        const claimed = setBlockClaim(bare, "os", undefined, "beef");
        assert.equal(claimed, bare.replace(`"os"${eol}`, `"os"${eol}# pulumi-garm owner: {"generation":"beef"}${eol}`));
        assert.equal(setBlockClaim(claimed, "os", undefined, undefined), bare);
        assert.equal(setBlockClaim(base, "os", MINE, "beef"), base, "no block: unchanged");
      }
    });
  });

  describe("at check", () => {
    const news = (owner: unknown) => ({
      name: "os",
      executable: "/usr/local/bin/garm-provider-os",
      garmConfigPath: "/etc/garm/config.toml",
      restartCommand: "systemctl restart garm",
      owner,
    });
    const holding = (owner?: typeof MINE) => ({ readConfig: async () => upsertBlock(HAND_WRITTEN, spec("os"), undefined, owner) });

    it("refuses a name whose block another stack owns, naming that owner", async () => {
      const { failures } = await checkGarmProvider(news(MINE), holding(THEIRS));
      assert.equal(failures.length, 1);
      assert.equal(failures[0].property, "name");
      assert.match(failures[0].reason, /Pulumi project "garm-infra", stack "staging", resource "openstack"/);
      assert.match(failures[0].reason, /\/etc\/garm\/config\.toml/);
    });

    it("accepts its own block, an unowned one, and one it owned under its previous name", async () => {
      assert.deepEqual((await checkGarmProvider(news(MINE), holding(MINE))).failures, []);
      assert.deepEqual((await checkGarmProvider(news(MINE), holding(undefined))).failures, []);
      const renamed = { ...MINE, stack: "production" };
      assert.deepEqual((await checkGarmProvider(news(renamed), holding(MINE), news(MINE))).failures, []);
    });

    it("refuses an owner that is not a project, stack and resource name", async () => {
      const { failures } = await checkGarmProvider(news({ project: "p", stack: 3 }), holding(undefined));
      assert.match(failures[0]?.property ?? "", /^owner\.stack$/);
    });
  });

  describe("in the resource operations", () => {
    let dir: string;
    let file: string;
    let restarts: number;
    let listed: string[];
    let deps: GarmProviderDeps;

    const inputs = (owner: unknown, over: Record<string, unknown> = {}) => ({
      name: "os",
      description: "os runners",
      executable: "/usr/local/bin/garm-provider-os",
      garmConfigPath: file,
      restartCommand: "systemctl restart garm",
      restartTimeoutSeconds: 1,
      ...(owner === undefined ? {} : { owner }),
      ...over,
    });

    beforeEach(async () => {
      ({ dir, file } = await tempConfig(HAND_WRITTEN));
      restarts = 0;
      listed = [];
      deps = {
        garm: () => ({
          listProviders: async () => listed.map((name) => ({ name, type: "external", description: "os runners" })),
          listScaleSets: async () => [],
          listPools: async () => [],
        }),
        restarts: new RestartCoordinator({
          run: async () => {
            restarts++;
            const doc = toml.parse(await fs.readFile(file, "utf8")) as { provider?: Array<{ name: string }> };
            listed = (doc.provider ?? []).map((p) => p.name);
            return { code: 0, signal: null, output: "", timedOut: false };
          },
          quietMs: 5,
        }),
        sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
        now: () => Date.now(),
        log: () => undefined,
        pollMs: 5,
        inspectFile: async () => undefined,
      };
    });
    afterEach(async () => removeDir(dir));

    const text = () => fs.readFile(file, "utf8");

    it("create records its owner in the block and refuses a block another stack owns", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs } = await impl.create(inputs(MINE));
      assert.deepEqual(readBlockOwner(await text(), "os"), MINE);
      assert.deepEqual(outs.owner, MINE);
      const before = await text();
      await assert.rejects(impl.create(inputs(THEIRS, { description: "theirs" })), (e: Error) => {
        assert.match(e.message, /belongs to Pulumi project "garm-infra", stack "prod", resource "openstack"/);
        assert.match(e.message, /unchanged/);
        return true;
      });
      assert.equal(await text(), before);
      assert.equal(restarts, 1);
    });

    it("create claims a block written before owners were recorded", async () => {
      await fs.writeFile(file, upsertBlock(HAND_WRITTEN, { ...spec("os"), configFile: undefined, executable: "/usr/local/bin/garm-provider-os", environmentVariables: [] }));
      const impl = makeGarmProviderImpl(deps);
      await impl.create(inputs(MINE));
      assert.deepEqual(readBlockOwner(await text(), "os"), MINE);
    });

    it("update refuses a block another stack took over, and rewrites only the owner line when its own name changes", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs } = await impl.create(inputs(MINE));
      // The stack is renamed: the block moves to the new owner without a restart (GARM reads no comments).
      const renamed = { ...MINE, stack: "production" };
      const { outs: moved } = await impl.update("os", outs as any, inputs(renamed));
      assert.deepEqual(readBlockOwner(await text(), "os"), renamed);
      assert.equal(restarts, 1);
      // Another stack wrote the block meanwhile (by hand here): this resource may not overwrite it.
      await fs.writeFile(file, upsertBlock(await text(), readBlock(await text(), "os")!, undefined, THEIRS));
      const before = await text();
      await assert.rejects(impl.update("os", moved as any, inputs(renamed, { description: "changed" })), /belongs to Pulumi project "garm-infra", stack "staging"/);
      assert.equal(await text(), before);
    });

    it("delete leaves a block another stack owns, and succeeds", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs } = await impl.create(inputs(MINE));
      await fs.writeFile(file, upsertBlock(await text(), readBlock(await text(), "os")!, undefined, THEIRS));
      const before = await text();
      await impl.delete("os", outs as any);
      assert.equal(await text(), before);
      assert.equal(restarts, 1, "no restart");
    });

    it("delete of a state written before owners were recorded leaves a block that now has an owner", async () => {
      const impl = makeGarmProviderImpl(deps);
      await impl.create(inputs(THEIRS));
      const before = await text();
      await impl.delete("os", { ...inputs(undefined), stateVersion: 1 });
      assert.equal(await text(), before);
    });

    it("delete removes its own block and an unowned one", async () => {
      const impl = makeGarmProviderImpl(deps);
      const { outs } = await impl.create(inputs(MINE));
      await impl.delete("os", outs as any);
      assert.equal(await text(), HAND_WRITTEN);
      // A block from before owners (and generations) were recorded, deleted by a state from then.
      await fs.writeFile(file, upsertBlock(HAND_WRITTEN, { ...spec("os"), configFile: undefined, executable: "/usr/local/bin/garm-provider-os", environmentVariables: [] }));
      assert.equal(readBlockOwner(await text(), "os"), undefined);
      await impl.delete("os", { ...inputs(MINE), stateVersion: 1 });
      assert.equal(await text(), HAND_WRITTEN);
    });
  });
});
