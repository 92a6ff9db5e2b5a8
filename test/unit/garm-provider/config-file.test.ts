import * as assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import * as lockfile from "proper-lockfile";
import { editConfigFile, readConfigText } from "../../../provider/kinds/garm-provider/config-file";
import { GarmConfigError, verifyEdit } from "../../../provider/kinds/garm-provider/garm-config";
import { renderBlock, upsertBlock } from "../../../provider/kinds/garm-provider/managed-block";
import { HAND_WRITTEN, removeDir, spec, tempConfig } from "./helpers";

describe("garm-provider config file", () => {
  let dir: string;
  let file: string;

  beforeEach(async () => {
    ({ dir, file } = await tempConfig(HAND_WRITTEN, 0o640));
  });
  afterEach(async () => removeDir(dir));

  const upsert = (name: string) => (text: string) => upsertBlock(text, spec(name));
  const verify = (name: string) => (before: string, after: string) => verifyEdit(before, after, name, spec(name), file);

  it("writes the edit and keeps the file mode", async () => {
    await fs.chmod(file, 0o604);
    const r = await editConfigFile(file, upsert("a"), verify("a"));
    assert.equal(r.changed, true);
    assert.equal(await fs.readFile(file, "utf8"), upsertBlock(HAND_WRITTEN, spec("a")));
    assert.equal((await fs.stat(file)).mode & 0o7777, 0o604);
    assert.deepEqual((await fs.readdir(dir)).sort(), ["config.toml"], "no temp file or lock left behind");
  });

  it("does not write when the edit changes nothing", async () => {
    const before = await fs.stat(file);
    const r = await editConfigFile(file, (t) => t, () => assert.fail("validate must not run"));
    assert.equal(r.changed, false);
    assert.equal((await fs.stat(file)).mtimeMs, before.mtimeMs);
  });

  it("refuses invalid TOML and leaves the file untouched", async () => {
    await assert.rejects(
      editConfigFile(file, (t) => `${t}[[provider]\nname = "x"\n`, (b, a) => verifyEdit(b, a, "x", undefined, file)),
      (e: Error) => e instanceof GarmConfigError && /not be valid TOML/.test(e.message) && /unchanged/.test(e.message),
    );
    assert.equal(await fs.readFile(file, "utf8"), HAND_WRITTEN);
    assert.deepEqual(await fs.readdir(dir), ["config.toml"]);
  });

  it("refuses a duplicate provider name (GARM would not start) and leaves the file untouched", async () => {
    await assert.rejects(
      editConfigFile(file, upsert("lxd_local"), verify("lxd_local")),
      /define provider "lxd_local" more than once/,
    );
    assert.equal(await fs.readFile(file, "utf8"), HAND_WRITTEN);
  });

  it("refuses an edit that TOML would read into another table", async () => {
    // A key written after the END marker belongs to the block's [provider.external]; removing the block would move it.
    const trap = `${upsertBlock(HAND_WRITTEN, spec("a"))}stray_key = 1\n`;
    await fs.writeFile(file, trap);
    await assert.rejects(
      editConfigFile(file, (t) => t.replace(renderBlock(spec("a")), ""), (b, a) => verifyEdit(b, a, "a", undefined, file)),
      /would also change other settings/,
    );
    assert.equal(await fs.readFile(file, "utf8"), trap);
  });

  it("never shows a partial file: until the rename the original is in place", async () => {
    let seen = "";
    await editConfigFile(file, upsert("a"), verify("a"), {
      hooks: {
        afterTempWritten: async (temp) => {
          assert.equal(path.dirname(temp), `${file}.lock`, "the temp file is in the lock beside the config file (one file system, gone with a takeover)");
          assert.equal(await fs.readFile(temp, "utf8"), upsertBlock(HAND_WRITTEN, spec("a")));
          seen = await fs.readFile(file, "utf8");
        },
      },
    });
    assert.equal(seen, HAND_WRITTEN);
  });

  it("leaves the original and no temp file when the write fails midway", async () => {
    await assert.rejects(
      editConfigFile(file, upsert("a"), verify("a"), {
        hooks: {
          afterTempWritten: () => {
            throw new Error("disk full");
          },
        },
      }),
      /disk full/,
    );
    assert.equal(await fs.readFile(file, "utf8"), HAND_WRITTEN);
    assert.deepEqual(await fs.readdir(dir), ["config.toml"]);
  });

  it("lets concurrent writers all land without a lost update", async () => {
    const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
    await Promise.all(names.map((n) => editConfigFile(file, upsert(n), verify(n))));
    const text = await readConfigText(file);
    for (const n of names) assert.ok(text.includes(renderBlock(spec(n))), `block ${n} present`);
    assert.ok(text.startsWith(HAND_WRITTEN));
  });

  it("lets writers in separate processes all land (the lock file arbitrates)", async function () {
    this.timeout(20_000);
    const mod = require.resolve("../../../provider/kinds/garm-provider/config-file");
    const script = `require(${JSON.stringify(mod)}).editConfigFile(process.argv[1], (t) => t + "# writer " + process.argv[2] + "\\n", () => {})
      .catch((e) => { console.error(e.message); process.exit(1); })`;
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => promisify(execFile)(process.execPath, ["-e", script, file, String(i)])),
    );
    const text = await readConfigText(file);
    for (let i = 0; i < 6; i++) assert.ok(text.includes(`# writer ${i}\n`), `writer ${i} landed`);
    assert.ok(text.startsWith(HAND_WRITTEN));
  });

  it("waits for a lock another holder has, and gives up after lockWaitMs leaving the file untouched", async () => {
    const release = await lockfile.lock(file, { realpath: false });
    await assert.rejects(editConfigFile(file, upsert("a"), verify("a"), { lockWaitMs: 200 }), /cannot lock GARM config file/);
    assert.equal(await fs.readFile(file, "utf8"), HAND_WRITTEN);
    const pending = editConfigFile(file, upsert("a"), verify("a"));
    setTimeout(() => void release(), 150);
    await pending;
    assert.ok((await fs.readFile(file, "utf8")).includes(renderBlock(spec("a"))));
  });

  it("writes through a symlink to its target", async () => {
    const link = path.join(dir, "link.toml");
    await fs.symlink(file, link);
    await editConfigFile(link, upsert("a"), verify("a"));
    assert.ok((await fs.lstat(link)).isSymbolicLink());
    assert.ok((await fs.readFile(file, "utf8")).includes(renderBlock(spec("a"))));
  });

  it("reports a missing config file", async () => {
    await assert.rejects(editConfigFile(path.join(dir, "nope.toml"), upsert("a"), verify("a")), /does not exist/);
  });

  it("refuses a file that is not UTF-8", async () => {
    await fs.writeFile(file, Buffer.from([0x61, 0x20, 0x3d, 0x20, 0x22, 0xff, 0x22, 0x0a]));
    await assert.rejects(readConfigText(file), /not valid UTF-8/);
  });
});
