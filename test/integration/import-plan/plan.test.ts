// `pulumi-garm import-plan` against a simulated GARM populated over REST: the plan lists every object with its token,
// import id and a stable name, leaves GARM's own objects out, narrows to chosen entities, and reads with one list per kind.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { importPlan } from "../../../cli/import-plan/command";
import type { ImportFile } from "../../../cli/import-plan/plan";
import { type PopulatedGarm, importSecretsConfig, populateGarm } from "../../../harness/populated-garm";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { BOUND_KINDS } from "../../../provider/registry/implementations";
import { tokenOf } from "../../../provider/registry/kinds";
import { type Simulator, startSimulator } from "../../../simulator";

/** `file` names every object planned; `written` is the file as written, the importable ones only. */
async function plan(sim: Simulator, extra: string[] = []): Promise<{ file: ImportFile; written: ImportFile; stderr: string[]; calls: number }> {
  let out = "";
  const stderr: string[] = [];
  const outcome = await importPlan(["--url", sim.url, "--username", sim.username, "--password", sim.password, ...extra], { stdout: (t) => (out += t), stderr: (l) => stderr.push(l), env: {} });
  return { file: { resources: outcome!.plan.entries.map((e) => e.spec) }, written: JSON.parse(out) as ImportFile, stderr, calls: outcome!.garmCalls };
}

describe("pulumi-garm import-plan (simulator populated over REST)", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let made: PopulatedGarm;

  before(async () => {
    sim = await startSimulator({ tickMs: 0 });
    made = await populateGarm(sim);
  });
  after(() => sim.stop());

  it("lists every object with its token, import id and name, and the same plan on a second run", async () => {
    const first = await plan(sim);
    const [acmePool1, acmePool2] = made.poolIds.slice(0, 2).sort();
    const byName = Object.fromEntries(first.file.resources.map((r) => [r.name, `${r.type} ${r.id}`]));
    assert.deepEqual(byName, {
      "endpoint-ghes": "garm:index:GarmEndpoint ghes",
      "endpoint-gitea-local": "garm:index:GarmEndpoint gitea-local",
      "credentials-acme-pat": "garm:index:GarmCredentials github/1",
      "credentials-ghes-pat": "garm:index:GarmCredentials github/2",
      "credentials-ghes-app": "garm:index:GarmCredentials github/3",
      "credentials-gitea-token": "garm:index:GarmCredentials gitea/1",
      "provider-fake": "garm:index:GarmProvider fake",
      "template-custom-linux": `garm:index:GarmTemplate ${made.templateId}`,
      "org-acme": `garm:index:GarmOrganization ${made.organizations.acme}`,
      "org-forge-org": `garm:index:GarmOrganization ${made.organizations["forge-org"]}`,
      "repo-acme-app": `garm:index:GarmRepository ${made.repositories["acme/app"]}`,
      "enterprise-acme-ent": `garm:index:GarmEnterprise ${made.enterprises["acme-ent"]}`,
      // Alike in entity, image and flavor: each named with the start of its GARM id.
      [`pool-acme-ubuntu-24-04-small-${acmePool1.slice(0, 8)}`]: `garm:index:GarmPool ${acmePool1}`,
      [`pool-acme-ubuntu-24-04-small-${acmePool2.slice(0, 8)}`]: `garm:index:GarmPool ${acmePool2}`,
      "pool-acme-ent-ubuntu-24-04-large": `garm:index:GarmPool ${made.poolIds[2]}`,
      // A hashed live name gives its base name; names GARM holds without a hash are kept.
      "scaleset-ci-small": `garm:index:GarmScaleSet ${Object.entries(made.scaleSets).find(([n]) => n.startsWith("ci-small-"))![1]}`,
      "scaleset-hand-made": `garm:index:GarmScaleSet ${made.scaleSets["hand-made"]}`,
      "scaleset-app-builds": `garm:index:GarmScaleSet ${made.scaleSets["app-builds"]}`,
      "scaleset-app-ci": `garm:index:GarmScaleSet ${Object.entries(made.scaleSets).find(([n]) => n.startsWith("app-ci-"))![1]}`,
      controller: `garm:index:GarmController ${sim.controllerId()}`,
    });
    assert.deepEqual((await plan(sim)).file, first.file, "the same GARM gives the same plan");
  });

  it("writes only the objects whose kind has an importer, as pulumi import refuses a whole file for one it cannot import", async () => {
    const { file, written, stderr } = await plan(sim);
    const PROVIDER = "garm:index:GarmProvider";
    const importable = new Set(BOUND_KINDS.filter((k) => k.importable === true).map((k) => tokenOf(k)));
    // Provider entries are read from GARM's config file, which this run was not given.
    assert.deepEqual(written.resources, file.resources.filter((r) => importable.has(r.type) && r.type !== PROVIDER));
    for (const t of new Set(file.resources.filter((r) => !importable.has(r.type)).map((r) => r.type))) {
      assert.ok(stderr.some((l) => l.startsWith(`note: ${t} cannot be imported with this version of pulumi-garm, so the file leaves out those objects`)), stderr.join("\n"));
    }
    assert.ok(
      stderr.includes(`note: ${PROVIDER} entries are read from GARM's config file, which was not given, so the file leaves out those objects: give --garm-config <path> (GARM's --config, e.g. /etc/garm/config.toml)`),
      stderr.join("\n"),
    );
    assert.ok(!stderr.some((l) => l.includes("garm:garmRestartCommand")), "no provider import, no restart command to set");
  });

  it("--garm-config plans the provider entries as <file>#<name>, and names the stack config key their restart command comes from", async () => {
    const { written, stderr } = await plan(sim, ["--garm-config", "/etc/garm/config.toml", "--garm-restart-command", "systemctl restart garm"]);
    assert.deepEqual(
      written.resources.filter((r) => r.type === "garm:index:GarmProvider"),
      [{ type: "garm:index:GarmProvider", name: "provider-fake", id: "/etc/garm/config.toml#fake" }],
    );
    const at = stderr.indexOf("GARM's config file does not hold the command that restarts GARM: the 1 provider imports take it from stack config:");
    assert.ok(at >= 0, stderr.join("\n"));
    assert.equal(stderr[at + 1], "  pulumi config set garm:garmRestartCommand 'systemctl restart garm'");
    await assert.rejects(plan(sim, ["--garm-config", "config.toml"]), /--garm-config config.toml: give the absolute path of GARM's config file/);
    await assert.rejects(plan(sim, ["--garm-restart-command", "true"]), /--garm-restart-command is for provider entries, which need --garm-config too/);
  });

  it("leaves GARM's system templates and default github.com endpoint out, and says it refers to them", async () => {
    const { file, stderr } = await plan(sim);
    assert.ok(!file.resources.some((r) => r.type === "garm:index:GarmEndpoint" && r.id === "github.com"));
    const templates = file.resources.filter((r) => r.type === "garm:index:GarmTemplate").map((r) => r.id);
    assert.deepEqual(templates, [String(made.templateId)]);
    assert.ok(stderr.includes("left to refer to, not imported: GARM's default endpoint github.com"), stderr.join("\n"));
    assert.equal(stderr.filter((l) => /system template (github|gitea)_(linux|windows)/.test(l)).length, 4, stderr.join("\n"));
  });

  it("reads with one list per kind and forge and nothing else: 11 lists, the controller and the login", async () => {
    sim.clearRequests();
    const { calls, stderr } = await plan(sim);
    const asked = sim.requests().map((r) => `${r.method} ${r.path.replace(/^\/api\/v1/, "")}`).sort();
    assert.deepEqual(asked, [
      "GET /controller",
      "GET /enterprises",
      "GET /gitea/credentials",
      "GET /gitea/endpoints",
      "GET /github/credentials",
      "GET /github/endpoints",
      "GET /organizations",
      "GET /pools",
      "GET /providers",
      "GET /repositories",
      "GET /scalesets",
      "GET /templates",
      "POST /auth/login",
    ]);
    assert.equal(calls, asked.length);
    assert.equal(stderr.at(-1), `GARM calls: ${asked.length}`);
  });

  it("lists the pulumi config set commands for every secret GARM never returns: exactly the keys the imports read", async () => {
    const { stderr } = await plan(sim);
    const commands = stderr.filter((l) => l.startsWith("  pulumi config set "));
    const keys = commands.map((l) => /pulumi config set (?:--secret )?(\S+)/.exec(l)![1]).sort();
    const wanted = await importSecretsConfig(sim);
    assert.deepEqual(keys, Object.keys(wanted).sort());
    for (const line of commands) {
      const key = /pulumi config set (?:--secret )?(\S+)/.exec(line)![1];
      assert.equal(line.includes("--secret"), wanted[key].secret, `tokens, keys and webhook secrets are set as secrets, an App's ids not: ${line}`);
    }
    assert.ok(stderr.some((l) => /^GARM never returns secrets: set these \d+ values in the stack's config first/.test(l)));
    const narrowed = (await plan(sim, ["--org", "acme"])).stderr.filter((l) => l.startsWith("  pulumi config set "));
    assert.deepEqual(narrowed.map((l) => l.split("# ")[1]), ['credentials "acme-pat"', 'organization "acme"']);
  });

  it("--org narrows the plan to the organization, what runs under it, and what those use", async () => {
    const { file } = await plan(sim, ["--org", "acme"]);
    assert.deepEqual(file.resources.map((r) => r.name).sort(), [
      "credentials-acme-pat",
      `pool-acme-ubuntu-24-04-small-${made.poolIds.slice(0, 2).sort()[0].slice(0, 8)}`,
      `pool-acme-ubuntu-24-04-small-${made.poolIds.slice(0, 2).sort()[1].slice(0, 8)}`,
      "org-acme",
      "provider-fake",
      "scaleset-ci-small",
      "scaleset-hand-made",
      "template-custom-linux",
    ].sort());
    const byRepoId = await plan(sim, ["--repo", made.repositories["acme/app"], "--enterprise", "acme-ent"]);
    assert.deepEqual(byRepoId.file.resources.map((r) => r.name).sort(), ["credentials-acme-pat", "enterprise-acme-ent", "pool-acme-ent-ubuntu-24-04-large", "provider-fake", "repo-acme-app", "scaleset-app-builds", "scaleset-app-ci"]);
    await assert.rejects(plan(sim, ["--org", "nobody"]), /--org nobody: GARM has no organization of that name or id/);
  });

  it("runs as `pulumi-garm import-plan` with GARM_* from the environment, the plan to --out and progress on stderr", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "import-plan-"));
    try {
      const out = path.join(dir, "plan.json");
      const env = { PATH: process.env.PATH, GARM_URL: sim.url, GARM_USERNAME: sim.username, GARM_PASSWORD: sim.password };
      const bin = path.join(REPO_ROOT, JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).bin["pulumi-garm"]);
      const run = (args: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
          execFile(process.execPath, [bin, ...args], { env }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr })),
        );
      const importable = (await plan(sim)).written.resources.length;
      const ok = await run(["import-plan", "--out", out]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout, "");
      assert.match(ok.stderr, new RegExp(`wrote ${importable} resources to .*plan\\.json: run \`pulumi import --file `));
      assert.equal((JSON.parse(fs.readFileSync(out, "utf8")) as ImportFile).resources.length, importable);
      assert.ok(!ok.stderr.includes(sim.password));
      const bad = await run(["import-plan", "--url", "garm.example.com"]);
      assert.deepEqual([bad.code, bad.stderr], [1, 'pulumi-garm import-plan: --url "garm.example.com" is not a URL: expected e.g. https://garm.example.com:9997\n']);
      const plainHttp = await run(["import-plan", "--url", "http://garm.example.com:9997"]);
      assert.equal(plainHttp.stderr, "pulumi-garm import-plan: --url uses plain http to garm.example.com, which would send the GARM password unencrypted: use https, or give `--insecure` to accept that\n");
      const missing = await new Promise<string>((resolve) => execFile(process.execPath, [bin, "import-plan"], { env: { PATH: process.env.PATH } }, (_e, _o, stderr) => resolve(stderr)));
      assert.equal(missing, "pulumi-garm import-plan: no GARM url: give --url or set GARM_URL\n");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
