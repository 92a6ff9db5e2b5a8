// GARM's config file edited by a user that is not its owner (issue 10 items 2 and 14): the edit keeps the file's
// owner, group and mode, or refuses saying why; a directory the user cannot write is reported as that, at once.
// The edits run in a child process as uid 65534 with gid 4242, since the tests themselves run as root.
import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as lockfile from "proper-lockfile";
import { editConfigFile } from "../../../provider/kinds/garm-provider/config-file";
import { HAND_WRITTEN, removeDir, tempDir } from "./helpers";

const USER = 65534;
const GROUP = 4242;

interface ChildEdit {
  ok: boolean;
  message?: string;
  ms: number;
}

/** Appends a line to `file` with editConfigFile in a child process running as USER:GROUP. */
function editAsUser(file: string): Promise<ChildEdit> {
  const mod = require.resolve("../../../provider/kinds/garm-provider/config-file");
  const script = `const started = Date.now();
    require(${JSON.stringify(mod)}).editConfigFile(process.argv[1], (t) => t + "# edited by a non-root user\\n", () => {}, { lockWaitMs: 5000 })
      .then(() => console.log(JSON.stringify({ ok: true, ms: Date.now() - started })))
      .catch((e) => console.log(JSON.stringify({ ok: false, message: e.message, ms: Date.now() - started })))`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["-e", script, file], { uid: USER, gid: GROUP, timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`child failed: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as ChildEdit);
    });
  });
}

async function ownerOf(file: string): Promise<string> {
  const st = await fs.stat(file);
  return `${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8).padStart(4, "0")}`;
}

describe("garm-provider config file edited as a non-root user", function () {
  this.timeout(30_000);
  let dir: string;
  let file: string;

  before(function () {
    if (process.getuid?.() !== 0) {
      console.log("      (skipped: making a root-owned file of another group, and running a child as uid 65534, need root)");
      this.skip();
    }
  });

  beforeEach(async () => {
    dir = await tempDir();
    file = path.join(dir, "config.toml");
    await fs.writeFile(file, HAND_WRITTEN);
    await fs.chown(file, 0, GROUP);
    await fs.chmod(file, 0o660);
  });
  afterEach(async () => removeDir(dir));

  async function directory(mode: number, gid = GROUP): Promise<void> {
    await fs.chown(dir, 0, gid);
    await fs.chmod(dir, mode);
  }

  it("keeps a root-owned file's owner, group and mode when a member of its group edits it", async () => {
    await directory(0o770);
    const r = await editAsUser(file);
    assert.ok(r.ok, r.message);
    assert.equal(await ownerOf(file), `0:${GROUP} 0660`);
    assert.equal(await fs.readFile(file, "utf8"), `${HAND_WRITTEN}# edited by a non-root user\n`);
    assert.deepEqual(await fs.readdir(dir), ["config.toml"], "no temp file or lock left behind");
  });

  it("keeps owner, group and mode in a directory the user may not write, except for the lock it needs", async () => {
    // The group may create the lock next to the file (sticky, so it cannot remove others' files) but not rename over it.
    await directory(0o1770);
    const r = await editAsUser(file);
    assert.ok(r.ok, r.message);
    assert.equal(await ownerOf(file), `0:${GROUP} 0660`);
  });

  it("refuses, naming owner and group and the remedy, when the owner cannot be kept and the file is not writable", async () => {
    await directory(0o770);
    await fs.chmod(file, 0o640);
    const r = await editAsUser(file);
    assert.equal(r.ok, false);
    assert.match(r.message!, /owner uid 0, group gid 4242 and mode 0640/);
    assert.match(r.message!, /uid 65534 \(gid 4242\) may not give a new file that owner/);
    assert.match(r.message!, /chmod g\+w/);
    assert.match(r.message!, /unchanged/);
    assert.equal(await ownerOf(file), `0:${GROUP} 0640`);
    assert.equal(await fs.readFile(file, "utf8"), HAND_WRITTEN);
    assert.deepEqual(await fs.readdir(dir), ["config.toml"]);
  });

  it("reports a directory the user cannot write as a permission problem naming it, without waiting for a lock", async () => {
    await directory(0o755, 0);
    const r = await editAsUser(file);
    assert.equal(r.ok, false);
    assert.ok(!/another process holds/.test(r.message!), r.message);
    assert.match(r.message!, new RegExp(`directory ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    assert.match(r.message!, /permission/i);
    assert.ok(r.ms < 2000, `gave up after ${r.ms} ms`);
    assert.equal(await fs.readFile(file, "utf8"), HAND_WRITTEN);
  });
});

describe("garm-provider config file lock wait", function () {
  this.timeout(10_000);
  let dir: string;
  let file: string;

  beforeEach(async () => {
    dir = await tempDir();
    file = path.join(dir, "config.toml");
    await fs.writeFile(file, HAND_WRITTEN);
  });
  afterEach(async () => removeDir(dir));

  it("waits for a held lock as long as lockWaitMs says, then names the holder's lock file", async () => {
    const release = await lockfile.lock(file, { realpath: false });
    try {
      const started = Date.now();
      await assert.rejects(editConfigFile(file, (t) => `${t}# x\n`, () => undefined, { lockWaitMs: 1500 }), (e: Error) => {
        assert.match(e.message, /another process holds .*config\.toml\.lock/);
        assert.match(e.message, /1\.5 ?s/);
        return true;
      });
      const waited = Date.now() - started;
      assert.ok(waited >= 1400 && waited < 2500, `waited ${waited} ms for a 1500 ms lock wait`);
    } finally {
      await release();
    }
  });
});
