// The functions against real GARM v0.2.1 (the mock GitHub and the fake provider): getController, getProviders,
// getTemplates and getTemplate (the system templates GARM makes), getOrganization, getScaleSet and getRunners of a scale
// set GARM brings a runner up for. The answers come from GARM's own JSON, which keeps the views honest.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type MockGithub, startMockGithub } from "../../harness/mock-github";
import { type RealGarm, locateGarm, startRealGarm, waitFor } from "../../harness/real-garm";
import { ProgramFunctions } from "../../provider/functions";

describe("e2e: functions against real GARM v0.2.1", function () {
  this.timeout(300_000);
  let workDir = "";
  let mock: MockGithub | undefined;
  let garm: RealGarm | undefined;
  let functions: ProgramFunctions;

  before(async () => {
    const garmBinary = locateGarm();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-e2e-functions-"));
    mock = await startMockGithub({ longPollMs: 1500 });
    garm = await startRealGarm({ garmBinary, workDir, mockGithubUrl: mock.url });
    const config: Record<string, string> = { "garm:url": garm.url, "garm:username": garm.username, "garm:password": garm.password };
    functions = new ProgramFunctions({ get: (key) => config[key] }, {});
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed" && garm) console.log(`    GARM log tail:\n${garm.logs().split("\n").slice(-40).join("\n")}`);
  });

  after(async () => {
    await garm?.stop();
    await mock?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it("getController and getProviders answer what GARM says of itself", async () => {
    const controller = await functions.invoke("getController", {});
    assert.equal(controller.controllerId, garm!.controllerId);
    assert.match(controller.version, /^v0\.2\.1/);
    assert.equal(controller.controllerWebhookUrl, `${controller.webhookUrl}/${controller.controllerId}`);
    assert.deepEqual((await functions.invoke("getProviders", {})).providers.map((p) => [p.name, p.type]), [["fake", "external"]]);
  });

  it("getTemplates lists GARM's system templates and getTemplate finds the one for a forge and OS", async () => {
    const templates = (await functions.invoke("getTemplates", {})).templates;
    assert.deepEqual(
      templates.filter((t) => t.owner === "system").map((t) => t.name).sort(),
      ["gitea_linux", "gitea_windows", "github_linux", "github_windows"],
    );
    const linux = await functions.invoke("getTemplate", { forge: "github", osType: "linux" });
    assert.equal(linux.name, "github_linux");
    assert.equal((await functions.invoke("getTemplate", { name: "github_linux" })).id, linux.id);
  });

  it("getOrganization, getScaleSet and getRunners of a scale set GARM runs a runner for", async () => {
    const g = garm!;
    assert.equal((await functions.invoke("getOrganization", { name: "ACME" })).id, g.orgId);
    const created = await g.api<{ id: number }>("POST", `/organizations/${g.orgId}/scalesets`, {
      name: "functions-e2e-1a2b3c4d",
      provider_name: "fake",
      min_idle_runners: 1,
      max_runners: 2,
      os_type: "linux",
      os_arch: "amd64",
      image: "ubuntu:24.04",
      flavor: "small",
      enabled: true,
      labels: ["e2e"],
    });
    assert.equal(created.status, 200, created.text);
    const byName = await functions.invoke("getScaleSet", { name: "functions-e2e", organization: "acme" });
    assert.equal(byName.id, created.body.id);
    assert.equal(byName.maxRunners, 2);
    assert.equal(byName.providerName, "fake");
    // Each call asks GARM afresh only for a request not asked before: a fresh ProgramFunctions per poll.
    const config: Record<string, string> = { "garm:url": g.url, "garm:username": g.username, "garm:password": g.password };
    const runners = await waitFor(
      "a running runner",
      async (seen) => {
        const answer = (await new ProgramFunctions({ get: (key) => config[key] }, {}).invoke("getRunners", { scaleSetId: created.body.id })).runners;
        seen(answer.map((r) => `${r.name} ${r.status}`));
        return answer.some((r) => r.status === "running") ? answer : undefined;
      },
      120_000,
      1000,
    );
    assert.ok(runners.every((r) => r.name && r.createdAt && r.updatedAt));
  });
});
