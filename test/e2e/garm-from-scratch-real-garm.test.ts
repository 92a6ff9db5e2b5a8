// examples/garm-from-scratch as a user runs it, against the REAL GARM v0.2.1 as first-run leaves it (startRealGarm's
// bootstrapEntities and controllerUrls false: only the admin user, and the garm-agent releases URL kept on loopback)
// with the mock GitHub and the fake external provider. `pulumi up` sets the controller URLs and makes the endpoint, the
// credentials, the organization and its webhook, the provider entry and the scale set; `pulumi destroy` takes GARM back
// to empty. After each step the test reads GARM's own API, its config file and the
// mock GitHub's hooks, not only the CLI's exit code. This replaces, for this path, the REST bootstrap
// (harness/real-garm/index.ts) that makes the endpoint, credentials, org and repo for the other e2e tests.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { installFakeProvider, type FakeProvider } from "../../harness/fake-provider";
import { locateLanguageHost, locatePulumi } from "../../harness/pulumi-cli";
import { PulumiProject, packOnce } from "../../harness/pulumi-cli/project";
import { locateGarm, waitFor } from "../../harness/real-garm";
import { startE2eEnvironment, type E2eEnvironment } from "../../harness/real-garm/environment";
import { providerNamesIn, startRestartControl, type RestartControl } from "./scenario-support";

interface Named {
  id: string | number;
  name: string;
}
interface Endpoint extends Named {
  base_url: string;
  api_base_url: string;
  upload_base_url: string;
}
interface Credentials extends Named {
  endpoint: { name: string };
}
interface Organization extends Named {
  credentials_name: string;
}
interface ScaleSet extends Named {
  provider_name?: string;
  org_id?: string;
  min_idle_runners?: number;
}
interface Instance {
  name: string;
  status: string;
  runner_status?: string;
}

/** The GARM provider name the example's GarmProvider adds; the hand-written one startRealGarm writes is "fake". */
const PROVIDER = "pulumi-fake";
const TOKEN = "ghp_fromScratchE2eToken0123456789abcdef";
const WEBHOOK_SECRET = "from-scratch-e2e-webhook-secret";

describe("e2e: examples/garm-from-scratch (npm tarball, `pulumi` from the project directory) takes an empty real GARM v0.2.1 to a scale set and back to empty", function () {
  this.timeout(600_000);
  let env: E2eEnvironment | undefined;
  let control: RestartControl | undefined;
  let fake: FakeProvider;
  let agent: { stop(): void } | undefined;
  let project: PulumiProject | undefined;
  let originalConfig = "";
  let failed = false;

  const garm = () => env!.garm;
  const list = async <T>(apiPath: string): Promise<T[]> => {
    const r = await garm().api<T[]>("GET", apiPath);
    assert.equal(r.status, 200, `GET ${apiPath}: ${r.text}`);
    // An empty list is `null` on some routes: Go's nil slice (e.g. database/sql/github.go L390-398 for credentials).
    return r.body ?? [];
  };
  const orgHooks = () => env!.mock.hooks.of("orgs/acme");
  /** Nothing the example makes is in GARM, its config file or GitHub: only GARM's default endpoint and the harness's provider. */
  async function assertEmpty(): Promise<void> {
    assert.deepEqual(await list("/scalesets"), []);
    assert.deepEqual(await list("/organizations"), []);
    assert.deepEqual(await list("/repositories"), []);
    assert.deepEqual(await list("/enterprises"), []);
    assert.deepEqual(await list("/github/credentials"), []);
    assert.deepEqual((await list<Endpoint>("/github/endpoints")).map((e) => e.name), ["github.com"]);
    assert.deepEqual((await list<Named>("/providers")).map((p) => p.name), ["fake"]);
    assert.equal(fs.readFileSync(garm().configPath, "utf8"), originalConfig, "GARM's config file is as the operator wrote it");
    assert.deepEqual(orgHooks(), [], "no webhook in the GitHub organization");
  }

  before(async function () {
    locateGarm();
    locatePulumi();
    locateLanguageHost();
    const tarball = await packOnce();
    env = await startE2eEnvironment({ bootstrapEntities: false, controllerUrls: false });
    originalConfig = fs.readFileSync(garm().configPath, "utf8");
    fake = installFakeProvider({ dir: path.join(env.workDir, "providers", PROVIDER), name: PROVIDER });
    // Acts as the runner: reports installing -> idle for each new instance, as a real runner agent would.
    agent = fake.startRunnerAgent({ intervalMs: 500 });
    control = await startRestartControl(env.garm);
    project = await PulumiProject.fromExample({ example: "garm-from-scratch", tarball, prefix: "pulumi-garm-e2e-from-scratch-" });
    await project.initStack("dev", {
      "garm:url": garm().url,
      "garm:username": garm().username,
      "garm:password": { value: garm().password, secret: true },
      providerName: PROVIDER,
      providerExecutable: fake.executable,
      providerConfigFile: fake.configFile,
      garmConfigPath: garm().configPath,
      restartCommand: control.command,
      githubUrl: env.mock.url,
      githubToken: { value: TOKEN, secret: true },
      webhookSecret: { value: WEBHOOK_SECRET, secret: true },
    });
  });
  afterEach(function () {
    if (this.currentTest?.state === "failed") {
      failed = true;
      if (env) console.log(`    GARM log tail:\n${garm().logs().split("\n").slice(-40).join("\n")}`);
    }
  });
  after(async function () {
    if (project) console.log(`    (${project.timings()})`);
    agent?.stop();
    await control?.close();
    await env?.stop({ keep: failed });
    project?.close({ keep: failed });
  });

  it("up sets the controller URLs and makes endpoint, credentials, organization with webhook, provider entry and scale set with an idle runner; no-change preview; destroy leaves GARM empty", async function () {
    const p = project!;
    // Fresh from first-run: every route but /controller answers 409 until the URLs are set (auth/init_required.go L65-79).
    const fresh = async (what: string) => {
      const r = await garm().api<{ error: string }>("GET", "/scalesets");
      assert.deepEqual([r.status, r.body.error], [409, "urls_required"], what);
      assert.equal(fs.readFileSync(garm().configPath, "utf8"), originalConfig, what);
    };
    await fresh("GARM starts as first-run leaves it");
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { create: 7 });
    await fresh("preview changes nothing");

    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    const controller = (
      await garm().api<{ controller_id: string; controller_webhook_url: string; metadata_url: string; callback_url: string; webhook_url: string }>("GET", "/controller")
    ).body;
    assert.deepEqual(
      [controller.metadata_url, controller.callback_url, controller.webhook_url],
      [`${garm().url}/api/v1/metadata`, `${garm().url}/api/v1/callbacks`, `${garm().url}/webhooks`],
      "the GarmController set the URLs",
    );
    const endpoints = (await list<Endpoint>("/github/endpoints")).filter((e) => e.name !== "github.com");
    assert.deepEqual(
      endpoints.map((e) => [e.name, e.base_url, e.api_base_url, e.upload_base_url]),
      [["ghes", env!.mock.url, `${env!.mock.url}/api/v3/`, `${env!.mock.url}/api/uploads/`]],
    );
    const creds = await list<Credentials>("/github/credentials");
    assert.deepEqual(creds.map((c) => [c.name, c.endpoint.name]), [["from-scratch-pat", "ghes"]]);
    const orgs = await list<Organization>("/organizations");
    assert.deepEqual(orgs.map((o) => [o.name, o.credentials_name]), [["acme", "from-scratch-pat"]]);
    const hooks = orgHooks();
    assert.deepEqual(hooks.map((h) => [h.url, h.secret]), [[controller.controller_webhook_url, WEBHOOK_SECRET]], "GARM installed its webhook, signed with the stack's secret");
    assert.deepEqual((await list<Named>("/providers")).map((pr) => pr.name).sort(), ["fake", PROVIDER]);
    assert.deepEqual(providerNamesIn(fs.readFileSync(garm().configPath, "utf8")).sort(), ["fake", PROVIDER]);
    assert.equal(control!.events.length, 1, "one GARM restart loads the new provider entry");
    const sets = await list<ScaleSet>("/scalesets");
    assert.equal(sets.length, 1);
    const [set] = sets;
    assert.equal(set.provider_name, PROVIDER);
    assert.equal(set.org_id, orgs[0].id);
    assert.deepEqual(out, {
      controllerWebhookUrl: controller.controller_webhook_url,
      endpointName: "ghes",
      credentialsName: "from-scratch-pat",
      organizationId: orgs[0].id,
      webhookInstalled: true,
      providerName: PROVIDER,
      liveName: set.name,
      scaleSetId: set.id,
    });
    const runner = await waitFor(
      `an idle runner in scale set ${set.id}`,
      async () => (await list<Instance>(`/scalesets/${set.id}/instances`)).find((i) => i.status === "running" && i.runner_status === "idle"),
      120_000,
    );
    assert.deepEqual(fake.instances().map((i) => i.name), [runner.name], "the runner comes from the provider the example added");

    await p.cli(["preview", "--expect-no-changes"]);
    await p.cli(["refresh", "--yes"]);
    assert.deepEqual(await p.outputs(), out, "refresh finds GARM as the stack recorded it");

    await p.cli(["destroy", "--yes"]);
    await assertEmpty();
    assert.equal(control!.events.length, 2, "one more restart unloads the provider entry");
    assert.deepEqual(await p.outputs(), {});
  });
});
