// The CLI tests' npm installs of the packed package: one full install per tarball and declared dependencies, the
// other projects (in this process or another worker's) starting from a copy of its tree.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { installKey, installShared } from "../../../harness/pulumi-cli/shared-install";

describe("shared npm install of the packed package", () => {
  let scratch: string;
  let tarball: string;
  beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-shared-install-"));
    tarball = path.join(scratch, "pulumi-garm-0.1.0.tgz");
    fs.writeFileSync(tarball, "tarball bytes");
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  function project(name: string, dependencies: Record<string, string>): string {
    const dir = path.join(scratch, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, dependencies }));
    return dir;
  }
  /** A stand-in for npm install: records what the project held before it, then adds a package. */
  function fakeInstall(dir: string, seen: Map<string, string[]>, delayMs = 50): () => Promise<void> {
    return async () => {
      const modules = path.join(dir, "node_modules");
      seen.set(path.basename(dir), fs.existsSync(modules) ? fs.readdirSync(modules).sort() : []);
      await new Promise((r) => setTimeout(r, delayMs));
      fs.mkdirSync(path.join(modules, "dep"), { recursive: true });
      fs.writeFileSync(path.join(modules, "dep", "index.js"), "");
      fs.mkdirSync(path.join(modules, ".bin"), { recursive: true });
      if (!fs.existsSync(path.join(modules, ".bin", "dep"))) fs.symlinkSync("../dep/index.js", path.join(modules, ".bin", "dep"));
    };
  }

  it("installs in full once for projects declaring the same dependencies, started together; the others start from its tree", async () => {
    const deps = { "@pulumi/pulumi": "3.248.0", "pulumi-garm": "^0.1.0" };
    const dirs = ["a", "b", "c"].map((n) => project(n, deps));
    const seen = new Map<string, string[]>();
    await Promise.all(dirs.map((d) => installShared(d, tarball, fakeInstall(d, seen))));
    const empty = [...seen.values()].filter((s) => s.length === 0);
    assert.equal(empty.length, 1, `one full install, got ${JSON.stringify([...seen])}`);
    assert.equal([...seen.values()].filter((s) => s.join() === ".bin,dep").length, 2);
    for (const d of dirs) assert.equal(fs.readlinkSync(path.join(d, "node_modules", ".bin", "dep")), "../dep/index.js", "links kept as npm wrote them");
  });

  it("keeps separate trees for other declared dependencies or another tarball", async () => {
    const seen = new Map<string, string[]>();
    const a = project("a", { "pulumi-garm": "^0.1.0" });
    const b = project("b", { "pulumi-garm": "^0.1.0", extra: "1.0.0" });
    await installShared(a, tarball, fakeInstall(a, seen));
    await installShared(b, tarball, fakeInstall(b, seen));
    assert.deepEqual(seen.get("b"), []);
    assert.notEqual(installKey(tarball, '{"dependencies":{"x":"1"}}'), installKey(tarball, '{"dependencies":{"x":"2"}}'));
    const before = installKey(tarball, '{"dependencies":{"x":"1"}}');
    fs.writeFileSync(tarball, "other bytes");
    assert.notEqual(installKey(tarball, '{"dependencies":{"x":"1"}}'), before);
  });

  it("installs a project without package.json (a YAML project) on its own, sharing nothing", async () => {
    const dir = path.join(scratch, "yaml");
    fs.mkdirSync(dir);
    const seen = new Map<string, string[]>();
    await installShared(dir, tarball, fakeInstall(dir, seen));
    assert.deepEqual(seen.get("yaml"), []);
    assert.equal(fs.existsSync(path.join(scratch, "installs")), false);
  });

  it("takes over a lock left by a process that is gone, and shares nothing from an install that failed", async () => {
    const deps = { "pulumi-garm": "^0.1.0" };
    const a = project("a", deps);
    const store = path.join(scratch, "installs", installKey(tarball, fs.readFileSync(path.join(a, "package.json"), "utf8")));
    fs.mkdirSync(`${store}.lock`, { recursive: true });
    const dead = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" }).stdout.trim();
    fs.writeFileSync(path.join(`${store}.lock`, "pid"), dead);
    await assert.rejects(installShared(a, tarball, async () => Promise.reject(new Error("npm failed"))), /npm failed/);
    assert.equal(fs.existsSync(`${store}.lock`), false);
    const seen = new Map<string, string[]>();
    const b = project("b", deps);
    await installShared(b, tarball, fakeInstall(b, seen));
    assert.deepEqual(seen.get("b"), [], "a failed install leaves no tree to copy");
  });
});
