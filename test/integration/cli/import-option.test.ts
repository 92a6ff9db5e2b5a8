// Pulumi's `import` resource option with the dynamic provider (issue 26), through the real CLI and the Node language
// host against the GARM simulator: objects made through GARM's REST API, not through pulumi-garm, are taken over with
// no write to GARM; a program that describes them otherwise is refused by field with nothing written; a GarmProvider's
// hand-written entry is taken over as it stands and gets its markers at the next up, without a GARM restart.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { GarmClient } from "../../../provider/garm/client";
import { type Simulator, startSimulator } from "../../../simulator";
import { locatePulumi, runPulumi } from "../../../harness/pulumi-cli";
import { mutatingCalls } from "../../support/fixtures";
import { startSimulatedHost } from "../../../scripts/demo/host";

const BODY = "#!/bin/bash\necho imported template\n";

describe("the import resource option with the dynamic provider (real CLI)", function () {
  this.timeout(300_000);
  let sim: Simulator;
  let dir = "";
  let templateId = 0;

  before(function () {
    try {
      locatePulumi();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-import-option-"));
    sim = await startSimulator({ tickMs: 0 });
    // The GARM a team set up by hand: an endpoint and a template, made through GARM's API.
    const client = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
    await client.createEndpoint("github", {
      name: "ghes",
      description: "company GHES",
      base_url: "https://ghes.example.com",
      api_base_url: "https://ghes.example.com/api/v3/",
      upload_base_url: "https://ghes.example.com/api/uploads/",
    } as never);
    templateId = (await client.createTemplate({ name: "ci-linux", description: "CI runners", os_type: "linux", forge_type: "github", data: Buffer.from(BODY).toString("base64") })).id;
    sim.clearRequests();
  });
  afterEach(async () => {
    await sim?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const endpointArgs: garm.GarmEndpointArgs = {
    name: "ghes",
    description: "company GHES",
    baseUrl: "https://ghes.example.com",
    apiBaseUrl: "https://ghes.example.com/api/v3/",
    uploadBaseUrl: "https://ghes.example.com/api/uploads/",
  };
  const run = (op: "up" | "preview", program: () => Promise<Record<string, unknown>>, stackName = "imports") =>
    runPulumi({
      workDir: dir,
      stackName,
      projectName: "imports",
      program,
      op,
      config: { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true } },
    });
  const failure = (r: { stdout: string; stderr: string; error?: Error }) => `${r.stdout}\n${r.stderr}\n${r.error?.message ?? ""}`;

  it("takes over an endpoint and a template with no write to GARM; the program then previews no change, with or without the option", async () => {
    const program = (withImport: boolean) => async () => {
      const ep = new garm.GarmEndpoint("ep", endpointArgs, withImport ? { import: "ghes" } : {});
      const tpl = new garm.GarmTemplate("tpl", { name: "ci-linux", description: "CI runners", osType: "linux", forgeType: "github", body: BODY }, withImport ? { import: String(templateId) } : {});
      return { endpoint: ep.name, templateId: tpl.templateId };
    };
    const up = await run("up", program(true));
    assert.ok(up.exitOk, failure(up));
    assert.deepEqual(mutatingCalls(sim), [], "an import writes nothing to GARM");
    assert.deepEqual(up.outputs, { endpoint: "ghes", templateId });

    for (const withImport of [true, false]) {
      const preview = await run("preview", program(withImport));
      assert.ok(preview.exitOk, failure(preview));
      assert.deepEqual(Object.keys(preview.changeSummary ?? {}).filter((op) => op !== "same"), [], `with the import option ${withImport}: ${JSON.stringify(preview.changeSummary)}`);
    }
    const again = await run("up", program(false));
    assert.ok(again.exitOk, failure(again));
    assert.deepEqual(mutatingCalls(sim), []);
  });

  it("refuses a program that describes the object otherwise, naming the inputs, and writes and stores nothing", async () => {
    const up = await run("up", async () => {
      new garm.GarmTemplate("tpl", { name: "ci-linux", description: "other runners", osType: "linux", forgeType: "github", body: BODY }, { import: String(templateId) });
      return {};
    });
    assert.equal(up.exitOk, false);
    assert.match(failure(up), new RegExp(`GarmTemplate ${templateId}: the program's inputs differ from the object GARM holds in description; nothing was imported or changed`));
    assert.deepEqual(mutatingCalls(sim), []);
    const preview = await run("preview", async () => ({}));
    assert.ok(preview.exitOk, failure(preview));
    assert.equal(preview.changeSummary?.delete ?? 0, 0, "nothing reached the state");
  });

  it("takes over a hand-written GarmProvider entry as it stands; the next up only puts the markers around it, without restarting GARM; then no change", async () => {
    const host = await startSimulatedHost({ prefix: "pulumi-garm-import-option-provider-", tickMs: 0 });
    try {
      const entry = `[[provider]]\nname = "lxd"\nprovider_type = "external"\ndescription = "LXD on this host"\n  [provider.external]\n  provider_executable = "${host.providerExecutable}"\n`;
      fs.appendFileSync(host.garmConfigPath, `\n${entry}\n[logging]\nlog_level = "info"\n`);
      await host.sim.restart();
      const handWritten = host.garmConfig();
      const restarts = host.restarts();
      const args: garm.GarmProviderArgs = {
        name: "lxd",
        description: "LXD on this host",
        executable: host.providerExecutable,
        garmConfigPath: host.garmConfigPath,
        restartCommand: String(host.stackConfig.restartCommand),
      };
      const program = (withImport: boolean) => async () => {
        const p = new garm.GarmProvider("lxd", args, withImport ? { import: `${host.garmConfigPath}#lxd` } : {});
        return { name: p.name, id: p.id };
      };
      const go = (op: "up" | "preview", withImport: boolean) =>
        runPulumi({
          workDir: dir,
          stackName: "provider",
          projectName: "imports",
          program: program(withImport),
          op,
          config: { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true } },
        });
      host.sim.clearRequests();
      const up = await go("up", true);
      assert.ok(up.exitOk, failure(up));
      assert.equal(host.garmConfig(), handWritten, "the import changes nothing in the file");
      assert.deepEqual(up.outputs, { name: "lxd", id: `${host.garmConfigPath}#lxd` }, "the id is the file and the name, not the name alone");

      const preview = await go("preview", false);
      assert.ok(preview.exitOk, failure(preview));
      assert.deepEqual(preview.changeSummary, { update: 1, same: 1 });
      assert.ok(
        preview.stdout.includes(`GarmProvider "lxd": this update puts pulumi-garm's markers around the hand-written block in ${host.garmConfigPath}, byte for byte otherwise; GARM is not restarted`),
        preview.stdout,
      );
      const marking = await go("up", false);
      assert.ok(marking.exitOk, failure(marking));
      const marked = host.garmConfig();
      // The marking update records a generation of its own: the imported state had none.
      const generation = /"generation":"([0-9a-f]{16})"/.exec(marked)?.[1];
      assert.ok(generation, marked);
      assert.equal(
        marked,
        handWritten.replace(
          entry,
          `# BEGIN pulumi-garm provider "lxd"\n# pulumi-garm owner: {"project":"imports","stack":"provider","resource":"lxd","generation":"${generation}"}\n# Managed by pulumi-garm (GarmProvider); edits inside this block are overwritten.\n${entry}# END pulumi-garm provider "lxd"\n`,
        ),
      );
      assert.equal(host.restarts(), restarts, "GARM is not restarted: it already runs the entry");
      const after = await go("preview", false);
      assert.ok(after.exitOk, failure(after));
      assert.deepEqual(after.changeSummary, { same: 2 });
      assert.deepEqual(mutatingCalls(host.sim), []);
    } finally {
      await host.close();
    }
  });
});
