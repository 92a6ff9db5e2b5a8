// Runs each project of examples/ as a user does: the package packed with `npm pack` and installed from the tarball into
// a copy of the project, then the real `pulumi` CLI (file backend, real Node language host) from that directory:
// preview, up, preview --expect-no-changes, the example's change, refresh, destroy, against the in-process GARM
// simulator. After each step the test checks the stack's outputs and what GARM holds, not only the exit code.
import * as assert from "node:assert/strict";
import { INITIAL_GARM_CONFIG, type SimulatedHost, startSimulatedHost, waitFor } from "../../../scripts/demo/host";
import { diagnosticsErrors, providerMessages, summarizeCalls } from "../../../scripts/demo/transcript";
import { locateLanguageHost, locatePulumi } from "../../../harness/pulumi-cli";
import { type Preview, PulumiProject, packOnce, urnName } from "../../../harness/pulumi-cli/project";

const EXAMPLES = ["quickstart", "label-change", "two-providers", "busy-destroy", "pools-templates", "garm-from-scratch"] as const;
type Example = (typeof EXAMPLES)[number];

describe("examples/ as users run them: package installed from its npm tarball, `pulumi` run from the project directory, GARM simulator", function () {
  this.timeout(300_000);
  // Each project's copy and npm install start together in before(); a test awaits its own.
  const projects = new Map<Example, Promise<PulumiProject>>();
  let host: SimulatedHost;
  let project: PulumiProject | undefined;

  before(async function () {
    try {
      locatePulumi();
      locateLanguageHost();
    } catch (err) {
      // The only reason to skip: these tests exist to drive the real CLI and host (make test builds them via make tools).
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
    const started = Date.now();
    const tarball = await packOnce();
    for (const example of EXAMPLES) {
      const p = PulumiProject.fromExample({ example, tarball });
      p.catch(() => undefined); // awaited (and reported) by the example's own test
      projects.set(example, p);
    }
    await Promise.allSettled(projects.values());
    console.log(`      (npm pack and npm install of ${EXAMPLES.length} projects: ${((Date.now() - started) / 1000).toFixed(1)}s)`);
  });
  after(async () => {
    for (const p of projects.values()) (await p.catch(() => undefined))?.close();
  });

  /** The example's project with a fresh simulated GARM host, and stack "dev" configured for it. */
  async function open(
    example: Example,
    config: Record<string, string | { value: string; secret: boolean }> = {},
    hostOpts: { fresh?: boolean } = {},
  ): Promise<PulumiProject> {
    host = await startSimulatedHost({ prefix: `pulumi-garm-${example}-host-`, ...hostOpts });
    project = await projects.get(example)!;
    await project.initStack("dev", { ...host.stackConfig, ...config });
    host.sim.clearRequests();
    return project;
  }
  afterEach(async function () {
    const failed = this.currentTest?.state === "failed";
    if (failed) console.log(`      simulator log:\n        ${host?.simLog.slice(-30).join("\n        ")}`);
    await host?.close({ keep: failed && process.env.KEEP_E2E_DIRS === "1" });
    if (failed && project) console.log(`      project: ${project.dir}`);
    if (project) console.log(`      (${project.timings()})`);
    project = undefined;
  });

  /** GARM's mutating calls since the last call of this function. */
  function writes(): string[] {
    const w = summarizeCalls(host.sim.requests()).writes;
    host.sim.clearRequests();
    return w;
  }
  const idleRunner = (scaleSetId: number) =>
    waitFor(`an idle runner in scale set ${scaleSetId}`, () =>
      host.sim.instances().find((i) => i.scaleSetId === scaleSetId && i.status === "running" && i.runnerStatus === "idle"),
    );
  /** `preview --expect-no-changes` passes (exit 0) and calls nothing that changes GARM. */
  async function expectNoChanges(p: PulumiProject): Promise<void> {
    await p.cli(["preview", "--expect-no-changes"]);
    assert.deepEqual(writes(), [], "a preview must not change GARM");
  }
  /** GARM's REST API as an admin (garm-cli's calls), to read what the simulator holds beyond its own records. */
  async function restApi(): Promise<(method: string, path: string) => Promise<{ status: number; body: unknown }>> {
    const login = await fetch(`${host.sim.url}/api/v1/auth/login`, { method: "POST", body: JSON.stringify({ username: host.sim.username, password: host.sim.password }) });
    const { token } = (await login.json()) as { token: string };
    return async (method, path) => {
      const res = await fetch(`${host.sim.url}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${token}` } });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    };
  }
  const ops = (pv: Preview) => Object.fromEntries(pv.steps.filter((s) => s.op !== "same").map((s) => [urnName(s.urn), s.op]));
  /** After a destroy: GARM holds nothing the example made, the operator's config file is back byte for byte, no outputs. */
  async function assertAllGone(p: PulumiProject) {
    assert.deepEqual(host.sim.scaleSets(), []);
    assert.deepEqual(host.sim.providers(), []);
    assert.deepEqual(host.sim.instances(), []);
    assert.equal(host.garmConfig(), INITIAL_GARM_CONFIG);
    assert.deepEqual(await p.outputs(), {});
  }
  /** refresh: reads only, and leaves outputs and GARM as they were. */
  async function refreshChangesNothing(p: PulumiProject) {
    const before = { outputs: await p.outputs(), sets: host.sim.scaleSets().map((s) => [s.id, s.name, s.enabled]) };
    writes();
    await p.cli(["refresh", "--yes"]);
    assert.deepEqual(writes(), [], "refresh must not change GARM");
    assert.deepEqual(await p.outputs(), before.outputs);
    assert.deepEqual(host.sim.scaleSets().map((s) => [s.id, s.name, s.enabled]), before.sets);
  }

  it("quickstart: creates the provider entry and a scale set with an idle runner; an extra label replaces it; destroy removes both", async () => {
    const p = await open("quickstart");
    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { create: 3 }); // stack, GarmProvider, GarmScaleSet
    assert.deepEqual(writes(), [], "preview must not change GARM");

    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    assert.deepEqual(host.sim.providers().map((pr) => pr.name), ["fake"]);
    const [set] = host.sim.scaleSets();
    assert.equal(host.sim.scaleSets().length, 1);
    assert.deepEqual(out, { providerName: "fake", liveName: set.name, scaleSetId: set.id, labels: ["linux", "x64"] });
    assert.match(set.name, /^ci-small-[0-9a-f]{8}$/);
    assert.equal(set.entityId, host.sim.organizationId);
    assert.equal(set.minIdleRunners, 1);
    // Installed from the tarball, each resource's state names the provider module instead of holding its source.
    const state = JSON.parse((await p.cli(["stack", "export"])).stdout) as { deployment: { resources: { type: string; inputs?: { __provider?: string } }[] } };
    const shims = state.deployment.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/")).map((r) => r.inputs?.__provider ?? "");
    assert.equal(shims.length, 2);
    for (const shim of shims) assert.match(shim, /require\("pulumi-garm\/dist\/sdk\/nodejs\/dynamic\/(scaleset|garm-provider)\.js"\)/);
    await idleRunner(set.id);
    writes();
    await expectNoChanges(p);

    // The change: one more label, from the stack config (README: `pulumi config set --path 'extraLabels[0]' large`).
    await p.cli(["config", "set", "--path", "extraLabels[0]", "large"]);
    const change = await p.preview();
    assert.deepEqual(ops(change), { small: "replace" });
    assert.deepEqual(change.steps.find((s) => urnName(s.urn) === "small")?.replaceReasons, ["labels"]);
    assert.deepEqual(writes(), []);
    await p.cli(["up", "--yes"]);
    const out2 = await p.outputs();
    assert.deepEqual(out2.labels, ["large", "linux", "x64"]);
    assert.notEqual(out2.liveName, out.liveName);
    assert.deepEqual(host.sim.scaleSets().map((s) => [s.id, s.name]), [[out2.scaleSetId, out2.liveName]], "only the new generation remains");
    await idleRunner(Number(out2.scaleSetId));

    await refreshChangesNothing(p);
    await p.cli(["destroy", "--yes"]);
    await assertAllGone(p);
  });

  it("label-change: the new generation is created before the old one is disabled, drained and deleted", async () => {
    const p = await open("label-change", { labels: JSON.stringify(["linux", "x64", "gpu"]) });
    assert.deepEqual((await p.preview()).changeSummary, { create: 3 });
    await p.cli(["up", "--yes"]);
    const out1 = await p.outputs();
    const oldId = Number(out1.scaleSetId);
    assert.deepEqual(out1.labels, ["gpu", "linux", "x64"]);
    assert.equal(host.sim.scaleSets().find((s) => s.id === oldId)?.entityId, host.sim.repositoryId);
    const oldRunner = await idleRunner(oldId);
    writes();
    await expectNoChanges(p);

    await p.cli(["config", "set", "labels", JSON.stringify(["linux", "x64", "gpu", "CUDA"])]);
    const change = await p.preview();
    assert.deepEqual(ops(change), { gpu: "replace" }, "a label change must show as a replacement");
    assert.deepEqual(change.steps.find((s) => urnName(s.urn) === "gpu")?.replaceReasons, ["labels"]);
    assert.deepEqual(writes(), []);
    await p.cli(["up", "--yes"]);
    const out2 = await p.outputs();
    const newId = Number(out2.scaleSetId);
    assert.notEqual(out2.liveName, out1.liveName);
    assert.deepEqual(out2.labels, ["cuda", "gpu", "linux", "x64"]);
    assert.deepEqual(host.sim.scaleSets().map((s) => s.id), [newId], "only the new generation remains");
    assert.ok(!host.sim.instances().some((i) => i.name === oldRunner.name), "the old generation's runner is gone");
    const order = writes();
    const created = order.findIndex((w) => /^POST \/repositories\/\{id\}\/scalesets$/.test(w));
    const disabled = order.indexOf(`PUT /scalesets/${oldId}`);
    assert.ok(created >= 0 && disabled > created, `new generation first, then the old one disabled: ${order.join(", ")}`);
    assert.ok(order.indexOf(`DELETE /scalesets/${oldId}`) > disabled, order.join(", "));
    await idleRunner(newId);

    await refreshChangesNothing(p);
    await p.cli(["destroy", "--yes"]);
    await assertAllGone(p);
  });

  it("two-providers: a second region adds its provider entry and scale set and leaves the first alone; destroy removes scale sets before providers", async () => {
    const p = await open("two-providers", { regions: JSON.stringify(["east"]) });
    assert.deepEqual((await p.preview()).changeSummary, { create: 3 });
    await p.cli(["up", "--yes"]);
    const out1 = (await p.outputs()) as { scaleSetsByRegion: Record<string, { liveName: string; scaleSetId: number }> };
    assert.deepEqual(host.sim.providers().map((pr) => pr.name), ["east"]);
    assert.deepEqual(host.sim.scaleSets().map((s) => [s.providerName, s.name]), [["east", out1.scaleSetsByRegion.east.liveName]]);
    writes();
    await expectNoChanges(p);

    const restarts = host.restarts();
    await p.cli(["config", "set", "regions", JSON.stringify(["east", "west"])]);
    const change = await p.preview();
    assert.deepEqual(ops(change), { west: "create", "ci-west": "create" });
    assert.deepEqual(writes(), []);
    await p.cli(["up", "--yes"]);
    const out2 = (await p.outputs()) as typeof out1 & { providers: string[] };
    assert.deepEqual(out2.providers, ["east", "west"]);
    assert.deepEqual(out2.scaleSetsByRegion.east, out1.scaleSetsByRegion.east, "the first region's scale set is untouched");
    assert.deepEqual(host.sim.providers().map((pr) => pr.name).sort(), ["east", "west"]);
    const byProvider = Object.fromEntries(host.sim.scaleSets().map((s) => [s.providerName, s.name]));
    assert.deepEqual(byProvider, { east: out2.scaleSetsByRegion.east.liveName, west: out2.scaleSetsByRegion.west.liveName });
    assert.equal(host.restarts() - restarts, 1, "adding one provider entry restarts GARM once");
    const config = host.garmConfig();
    assert.ok(config.startsWith(INITIAL_GARM_CONFIG), "the operator's part of the config file is kept");
    assert.match(config, /name = "east"[\s\S]*name = "west"/);

    await refreshChangesNothing(p);
    const logFrom = host.simLog.length;
    await p.cli(["destroy", "--yes"]);
    const destroyLog = host.simLog.slice(logFrom);
    const lastScaleSetDelete = Math.max(...destroyLog.map((l, i) => (/^deleted scale set/.test(l) ? i : -1)));
    const firstRestart = destroyLog.indexOf("restarting");
    assert.ok(lastScaleSetDelete >= 0 && firstRestart > lastScaleSetDelete, `scale sets deleted before providers:\n${destroyLog.join("\n")}`);
    await assertAllGone(p);
  });

  it("busy-destroy: a busy runner fails the destroy by name and keeps everything; after the job completes destroy succeeds", async () => {
    const p = await open("busy-destroy", { drainTimeoutSeconds: "3" });
    assert.deepEqual((await p.preview()).changeSummary, { create: 3 });
    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    const id = Number(out.scaleSetId);
    assert.deepEqual(host.sim.scaleSets().map((s) => [s.id, s.name]), [[id, out.liveName]]);
    const runner = (await idleRunner(id)).name;
    writes();
    await expectNoChanges(p);

    // The change: a job lands on the idle runner.
    host.sim.startJob(runner);
    const failed = await p.cli(["destroy", "--yes"], { expectOk: false });
    assert.notEqual(failed.code, 0, "destroy must fail while a job runs");
    const errors = diagnosticsErrors(`${failed.stdout}\n${failed.stderr}`).join("\n");
    assert.match(errors, new RegExp(`${runner}.*(job|busy)`), `the error names the busy runner:\n${failed.stdout}`);
    assert.match(errors, /the next `pulumi destroy` retries the delete/);
    assert.ok(providerMessages(failed.stdout).some((m) => m.includes("draining") && m.includes(runner)), "progress lines name the runner");
    // Nothing was cut short: the scale set is kept disabled, the runner still runs its job, the provider entry stays.
    const set = host.sim.scaleSets().find((s) => s.id === id);
    assert.ok(set, "the scale set must survive a failed drain");
    assert.equal(set.enabled, false);
    assert.equal(host.sim.instances().find((i) => i.name === runner)?.runnerStatus, "active");
    assert.deepEqual(host.sim.providers().map((pr) => pr.name), ["fake"]);
    assert.deepEqual(await p.outputs(), out, "the stack keeps its resources and outputs");

    await p.cli(["refresh", "--yes"]);
    assert.ok(host.sim.scaleSets().some((s) => s.id === id), "refresh deletes nothing");
    host.sim.completeJob(runner);
    await p.cli(["destroy", "--yes"]);
    await assertAllGone(p);
  });

  it("pools-templates: a template used by a pool and a scale set; a new template text updates it in place; destroy removes the template last", async () => {
    const p = await open("pools-templates");
    assert.deepEqual((await p.preview()).changeSummary, { create: 5 }); // stack, GarmProvider, GarmTemplate, GarmPool, GarmScaleSet
    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    const template = host.sim.templates().find((t) => t.name === "ci-linux");
    assert.equal(template?.id, out.templateId);
    assert.equal(host.sim.pools().find((pl) => pl.id === out.poolId)?.templateId, template?.id);
    assert.equal(host.sim.scaleSets().find((s) => s.id === out.scaleSetId)?.templateId, template?.id);
    writes();
    await expectNoChanges(p);

    // The change: new template text, updated in place under the same id.
    await p.cli(["config", "set", "templateBody", "#!/bin/bash\necho v2\n"]);
    // A dynamic resource shows only its inputs while its update is previewed, so templateId is unknown to the pool and
    // the scale set then and they preview as updates; `up` then finds the id unchanged and touches neither.
    const preview = await p.preview();
    assert.deepEqual(ops(preview), { install: "update", "linux-pool": "update", small: "update" });
    await p.cli(["up", "--yes"]);
    assert.deepEqual(writes(), [`PUT /templates/${template?.id}`]);
    const updated = host.sim.templates().find((t) => t.id === template?.id);
    assert.equal(Buffer.from(updated?.data ?? "", "base64").toString(), "#!/bin/bash\necho v2\n");

    await p.cli(["destroy", "--yes"]);
    assert.deepEqual(host.sim.pools(), []);
    assert.equal(host.sim.templates().some((t) => t.name === "ci-linux"), false);
    await assertAllGone(p);
  });

  it("garm-from-scratch: a freshly initialised GARM gets controller URLs, an endpoint, credentials, an organization with its webhook, a provider entry and a scale set; destroy empties it in dependency order", async () => {
    const p = await open(
      "garm-from-scratch",
      {
        githubUrl: "https://ghes.example.com",
        githubToken: { value: "ghp_fromScratchExampleToken0123456789", secret: true },
        webhookSecret: { value: "from-scratch-webhook-secret", secret: true },
      },
      { fresh: true },
    );
    const api = await restApi();
    // An empty credentials list is null, GARM's nil slice (test/integration/simulator/credentials-list.test.ts).
    const listed = async (path: string) => ((await api("GET", path)).body ?? []) as { name: string; id?: string }[];
    const nothingMade = async () => {
      assert.deepEqual(await listed("/scalesets"), []);
      assert.deepEqual(await listed("/organizations"), []);
      assert.deepEqual(await listed("/github/credentials"), []);
      assert.deepEqual((await listed("/github/endpoints")).map((e) => e.name), ["github.com"], "only GARM's default endpoint");
      assert.deepEqual(host.sim.providers(), []);
    };
    // A fresh GARM answers nothing but its controller settings until their URLs are set (auth/init_required.go L65-79).
    assert.deepEqual((await api("GET", "/scalesets")).status, 409);
    assert.equal(((await api("GET", "/controller")).body as { webhook_url?: string }).webhook_url ?? "", "", "a fresh GARM has no webhook URL");

    const preview = await p.preview();
    assert.deepEqual(preview.changeSummary, { create: 7 }); // stack, controller, provider, endpoint, credentials, organization, scale set
    assert.deepEqual(writes(), [], "preview must not change GARM");

    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    const controller = (await api("GET", "/controller")).body as { controller_id: string; webhook_url: string; callback_url: string; metadata_url: string };
    assert.deepEqual(
      [controller.metadata_url, controller.callback_url, controller.webhook_url],
      [`${host.sim.url}/api/v1/metadata`, `${host.sim.url}/api/v1/callbacks`, `${host.sim.url}/webhooks`],
    );
    const endpoints = (await listed("/github/endpoints")) as unknown as { name: string; base_url: string; api_base_url: string; upload_base_url: string }[];
    assert.deepEqual(
      endpoints.filter((e) => e.name !== "github.com").map((e) => [e.name, e.base_url, e.api_base_url, e.upload_base_url]),
      [["ghes", "https://ghes.example.com", "https://ghes.example.com/api/v3/", "https://ghes.example.com/api/uploads/"]],
    );
    const creds = (await listed("/github/credentials")) as unknown as { name: string; endpoint: { name: string } }[];
    assert.deepEqual(creds.map((c) => [c.name, c.endpoint.name]), [["from-scratch-pat", "ghes"]]);
    const orgs = (await listed("/organizations")) as unknown as { id: string; name: string; credentials_name: string }[];
    assert.deepEqual(orgs.map((o) => [o.name, o.credentials_name]), [["acme", "from-scratch-pat"]]);
    const hook = await api("GET", `/organizations/${orgs[0].id}/webhook`);
    assert.equal(hook.status, 200, "the organization's webhook is installed");
    assert.equal((hook.body as { url: string }).url, `${host.sim.url}/webhooks/${controller.controller_id}`);
    assert.deepEqual(host.sim.providers().map((pr) => pr.name), ["fake"]);
    const [set] = host.sim.scaleSets();
    assert.equal(host.sim.scaleSets().length, 1);
    assert.equal(set.entityId, orgs[0].id);
    assert.equal(set.providerName, "fake");
    assert.deepEqual(out, {
      controllerWebhookUrl: `${host.sim.url}/webhooks/${controller.controller_id}`,
      endpointName: "ghes",
      credentialsName: "from-scratch-pat",
      organizationId: orgs[0].id,
      webhookInstalled: true,
      providerName: "fake",
      liveName: set.name,
      scaleSetId: set.id,
    });
    const stack = (await p.cli(["stack", "export"])).stdout;
    for (const secret of ["ghp_fromScratchExampleToken0123456789", "from-scratch-webhook-secret"]) assert.ok(!stack.includes(secret), "secrets stay encrypted in the state");
    await idleRunner(set.id);
    writes();
    await expectNoChanges(p);
    await refreshChangesNothing(p);

    const logFrom = host.simLog.length;
    await p.cli(["destroy", "--yes"]);
    const order = writes();
    const at = (w: string) => {
      const i = order.indexOf(w);
      assert.ok(i >= 0, `${w} in ${order.join(", ")}`);
      return i;
    };
    const chain = [`DELETE /scalesets/${set.id}`, "DELETE /organizations/{id}", "DELETE /github/credentials/" + String((creds[0] as unknown as { id: number }).id), "DELETE /github/endpoints/ghes"];
    const positions = chain.map(at);
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, `deleted in dependency order: ${order.join(", ")}`);
    const destroyLog = host.simLog.slice(logFrom);
    assert.ok(destroyLog.indexOf("restarting") > destroyLog.findIndex((l) => /^deleted scale set/.test(l)), `the provider entry goes after the scale set:\n${destroyLog.join("\n")}`);
    await nothingMade();
    await assertAllGone(p);
  });
});
