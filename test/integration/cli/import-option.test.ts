// Pulumi's `import` resource option with the dynamic provider (issue 26), through the real CLI and the Node language
// host against the GARM simulator: objects made through GARM's REST API, not through pulumi-garm, are taken over with
// no write to GARM; a program that describes them otherwise is refused by field with nothing written; a kind that
// cannot be imported is refused at preview.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { GarmClient } from "../../../provider/garm/client";
import { type Simulator, startSimulator } from "../../../simulator";
import { locatePulumi, runPulumi } from "../../../harness/pulumi-cli";
import { mutatingCalls } from "../../support/fixtures";

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

  it("refuses the import option at preview for a kind that cannot be imported, saying what to do instead", async () => {
    const preview = await run("preview", async () => {
      new garm.GarmProvider("lxd", { name: "lxd", providerType: "external", configFile: "/etc/garm/garm.toml", restartCommand: "true", externalExecutable: "/bin/true", externalConfigFile: "/dev/null" } as never, { import: "lxd" });
      return {};
    });
    assert.equal(preview.exitOk, false);
    assert.match(failure(preview), /GarmProvider lxd: the import option is not supported for this kind: declare it in the program/);
    assert.deepEqual(mutatingCalls(sim), []);
  });
});
