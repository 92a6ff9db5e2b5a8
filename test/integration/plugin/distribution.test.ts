// How the plugin reaches users, through the real CLI: the release archives provider-plugin/build.sh makes (named as the
// CLI asks a release for them, one per os/arch, the same files in each), the README's walk-through (a YAML project whose
// Pulumi.yaml names the plugin's directory, against `npm run sim`), and the schema's pluginDownloadURL, which the CLI
// turns into a request for the archive of this os/arch.
import { strict as assert } from "node:assert";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { PLUGIN_DOWNLOAD_URL } from "../../../provider-plugin/schema";
import { liveName } from "../../../provider/runners/naming";
import { fencedBlock } from "./doc-blocks";
import { PLUGIN_VERSION, PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";

const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64"];
const archiveOf = (platform: string) => path.join(REPO_ROOT, "build", `pulumi-resource-garm-v${PLUGIN_VERSION}-${platform}.tar.gz`);
const here = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;

/** `npm run sim` as the README runs it (on a free port), until `stop`: the URL and login it prints. */
async function runSim(): Promise<{ url: string; username: string; password: string; stop: () => void }> {
  const child: ChildProcess = spawn("npm", ["run", "--silent", "sim", "--", "--port", "0", "--tick-ms", "200"], { cwd: REPO_ROOT, detached: true, stdio: ["ignore", "pipe", "ignore"] });
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  };
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /GARM simulator at .*\n/.exec(out);
      if (m) resolve(m[0]);
    });
    child.once("exit", (code) => reject(new Error(`npm run sim exited ${code} before it printed its URL: ${out}`)));
  });
  const m = /at (\S+) username=(\S+) password=(\S+)/.exec(line)!;
  return { url: m[1]!, username: m[2]!, password: m[3]!, stop };
}

describe("plugin distribution: release archives, a local path install, the download URL (real CLI)", function () {
  this.timeout(300_000);
  let home: string;
  const cleanup: (() => unknown)[] = [];

  before(() => {
    buildPluginOnce();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-dist-home-"));
  });
  after(() => fs.rmSync(home, { recursive: true, force: true }));
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("make plugin writes one archive per os/arch under the name the CLI asks for, each the same runnable Node program", () => {
    const bytes = PLATFORMS.map((p) => fs.readFileSync(archiveOf(p)));
    for (const b of bytes) assert.ok(b.equals(bytes[0]!), "nothing in node_modules is native, so every platform gets the same files");
    const listing = execFileSync("tar", ["-tvzf", archiveOf("linux-amd64")], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).split("\n");
    const entry = (name: string) => listing.find((l) => l.endsWith(` ./${name}`));
    assert.match(entry("pulumi-resource-garm") ?? "", /^-rwxr-xr-x/, "the plugin executable sits at the archive's root");
    assert.ok(entry("node_modules/pulumi-garm/dist/provider-plugin/main.js"), "with the package it runs");
    assert.ok(entry("node_modules/@pulumi/pulumi/package.json"), "and @pulumi/pulumi");
    // A binding.gyp is source (ssh2 ships one for an optional addon); build.sh runs no install script that would build it.
    assert.deepEqual(listing.filter((l) => /\.node$/.test(l)), [], "no compiled addon");
  });

  it("the README's walk-through: a Pulumi.yaml naming the plugin's directory, against npm run sim, with no plugin installed", async () => {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    const sim = await runSim();
    cleanup.push(sim.stop);
    const source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-try-src-"));
    cleanup.push(() => fs.rmSync(source, { recursive: true, force: true }));
    // The walk-through writes Pulumi.yaml with a quoted here-document, so its text is the file's.
    const walkThrough = fencedBlock("README.md", "sh", "npm run sim");
    const yaml = /<<'EOF'\n([\s\S]*?)^EOF$/m.exec(walkThrough)![1]!;
    const pluginPath = /^\s+path: (\S+)/m.exec(yaml)![1]!;
    assert.equal(pluginPath, `../plugin/garm-v${PLUGIN_VERSION}`, "the walk-through's project is build/try, beside build/plugin");
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), yaml);
    // The project sits at <work>/project, so its plugin path is <work>/plugin/garm-v<version>: the archive, unpacked.
    const p = new PluginProject(source, path.join(home, "walk-through"), [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    const pluginDir = path.resolve(p.dir, pluginPath);
    fs.mkdirSync(pluginDir, { recursive: true });
    execFileSync("tar", ["-xzf", archiveOf(here), "-C", pluginDir]);
    // The walk-through's login is the simulator's; its port is fixed there and free here.
    assert.ok(walkThrough.includes(`garm:username ${sim.username}`) && walkThrough.includes(`garm:password '${sim.password}'`), "the README gives the simulator's login");
    await p.initStack("dev", { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } });
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { create: 2 });
    await p.cli(["up", "--yes"]);
    assert.equal((await p.outputs()).liveName, liveName("ci-small", ["linux", "x64"], "fake", "hashed"));
    await p.cli(["destroy", "--yes"]);
    assert.equal(fs.existsSync(path.join(p.home, "plugins")) && fs.readdirSync(path.join(p.home, "plugins")).some((d) => d.startsWith("resource-garm")), false, "nothing was installed into PULUMI_HOME");
  });

  it("the schema's pluginDownloadURL: the CLI asks that repository's release v<version> for this os/arch's archive", async () => {
    const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "schema.json"), "utf8")) as { pluginDownloadURL?: string };
    assert.equal(schema.pluginDownloadURL, PLUGIN_DOWNLOAD_URL);
    // GitHub stands in: the CLI's documented override maps the github:// URL to a local server holding build/'s archives.
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? "");
      const m = /^\/download\/v([^/]+)\/([^/]+)$/.exec(req.url ?? "");
      const file = m && m[1] === PLUGIN_VERSION ? path.join(REPO_ROOT, "build", decodeURIComponent(m[2]!)) : "";
      if (!file || !fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": fs.statSync(file).size });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const port = (server.address() as AddressInfo).port;
    const source = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-dl-src-"));
    cleanup.push(() => fs.rmSync(source, { recursive: true, force: true }));
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), "name: garm-download\nruntime: yaml\n");
    const p = new PluginProject(source, path.join(home, "download"), [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    const escaped = PLUGIN_DOWNLOAD_URL.replace(/[.]/g, "\\.");
    p.env.PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES = `^${escaped}$=http://127.0.0.1:${port}/download/v\${VERSION}`;
    await p.cli(["plugin", "install", "resource", "garm", PLUGIN_VERSION, "--server", PLUGIN_DOWNLOAD_URL]);
    assert.deepEqual(asked, [`/download/v${PLUGIN_VERSION}/pulumi-resource-garm-v${PLUGIN_VERSION}-${here}.tar.gz`]);
    assert.ok(fs.existsSync(path.join(p.home, "plugins", `resource-garm-v${PLUGIN_VERSION}`, "pulumi-resource-garm")));
  });
});
