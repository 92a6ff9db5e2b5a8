// The plugin's Node SDK (sdk/nodejs-plugin, @pulumi-garm/garm) as a TypeScript user of the plugin takes it: compiled
// as docs/other-languages.md says, installed into a project's node_modules, and run by the real CLI and Node language
// host against the GARM simulator, with an explicit provider instance (`new garm.Provider`), which the dynamic
// provider's package has no equivalent of.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { liveName } from "../../../provider/runners/naming";
import { startSimulator } from "../../../simulator";
import { PluginProject, buildPluginOnce } from "./plugin-project";

const PROGRAM = `const pulumi = require("@pulumi/pulumi");
const garm = require("@pulumi-garm/garm");
const config = new pulumi.Config();
const sim = new garm.Provider("sim", { url: config.require("url"), username: config.require("username"), password: config.requireSecret("password") });
const small = new garm.GarmScaleSet("small", {
  name: "ci-small", organization: "acme", providerName: "fake", image: "ubuntu-24.04", flavor: "small",
  labels: ["linux", "x64"], maxRunners: 2, drain: { timeoutSeconds: 60, pollSeconds: 1 },
}, { provider: sim });
exports.liveName = small.liveName;
`;

describe("a Node.js program through the plugin's Node SDK with an explicit provider (real CLI, Node host, simulator)", function () {
  this.timeout(300_000);
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("up creates the scale set in the provider's GARM; destroy removes it", async () => {
    const tarball = buildPluginOnce();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-nodejs-sdk-"));
    cleanup.push(() => fs.rmSync(scratch, { recursive: true, force: true }));
    // The package as docs/other-languages.md builds it: tsc into a directory, with package.json beside the output.
    const pkg = path.join(scratch, "garm-sdk");
    execFileSync("npx", ["--no-install", "tsc", "-p", path.join(REPO_ROOT, "sdk", "nodejs-plugin", "tsconfig.json"), "--outDir", pkg], { cwd: REPO_ROOT });
    fs.copyFileSync(path.join(REPO_ROOT, "sdk", "nodejs-plugin", "package.json"), path.join(pkg, "package.json"));
    const source = path.join(scratch, "source");
    fs.mkdirSync(source);
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), "name: garm-nodejs-sdk\nruntime: nodejs\nmain: index.js\n");
    fs.writeFileSync(path.join(source, "package.json"), JSON.stringify({ name: "garm-nodejs-sdk", private: true }));
    fs.writeFileSync(path.join(source, "index.js"), PROGRAM);
    // Seeded: org "acme" and provider "fake".
    const sim = await startSimulator({ tickMs: 200 });
    cleanup.push(() => sim.stop());
    const p = new PluginProject(source, path.join(scratch, "home"));
    cleanup.push(() => p.close());
    const modules = path.join(p.dir, "node_modules");
    fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
    fs.mkdirSync(path.join(modules, "@pulumi-garm"), { recursive: true });
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi"), path.join(modules, "@pulumi", "pulumi"));
    fs.cpSync(pkg, path.join(modules, "@pulumi-garm", "garm"), { recursive: true });
    await p.installPlugin(tarball);
    // No garm:* stack config: the explicit provider carries the connection.
    await p.initStack("dev", { "garm-nodejs-sdk:url": sim.url, "garm-nodejs-sdk:username": sim.username, "garm-nodejs-sdk:password": { value: sim.password, secret: true } });
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { create: 3 }, "the stack, the provider sim and GarmScaleSet small");
    await p.cli(["up", "--yes"]);
    const expected = liveName("ci-small", ["linux", "x64"], "fake", "hashed");
    assert.equal((await p.outputs()).liveName, expected);
    assert.deepEqual(sim.scaleSets().map((s) => s.name), [expected]);
    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(sim.scaleSets(), []);
  });
});
