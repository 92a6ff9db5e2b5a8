// The YAML quick start through the garm resource plugin, with the real CLI, the real YAML language host and the plugin
// installed from its tarball, against GARM simulators: preview, up, a label change, a no-change preview, destroy;
// `pulumi import` of a scale set made over REST; two explicit provider instances reaching two GARMs.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GarmClient } from "../../../provider/garm/client";
import { type SimulatedHost, startSimulatedHost } from "../../../scripts/demo/host";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";
import { startSimulator } from "../../../simulator";
import { APP_KEY_1 } from "../../../harness/forge-pem";
import { handWriteFakeProvider } from "./imported-lifecycle";
import { PluginProject, YAML_HOST_DIR, buildPluginOnce } from "./plugin-project";
import { runQuickstart, writes } from "./quickstart-scenario";


describe("YAML programs through the garm resource plugin (real CLI, YAML host, simulator)", function () {
  this.timeout(300_000);
  let tarball: string;
  let home: string;
  const cleanup: (() => unknown)[] = [];

  before(function () {
    if (!fs.existsSync(path.join(YAML_HOST_DIR, "pulumi-language-yaml"))) {
      throw new Error(`the YAML language host is not built at ${YAML_HOST_DIR}: run \`scripts/tools.sh yaml\``);
    }
    tarball = buildPluginOnce();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-plugin-home-"));
  });

  after(() => fs.rmSync(home, { recursive: true, force: true }));

  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function project(example: string, hostOpts: { tickMs?: number } = {}): Promise<{ p: PluginProject; host: SimulatedHost }> {
    const host = await startSimulatedHost({ prefix: "pulumi-garm-plugin-host-", ...hostOpts });
    cleanup.push(() => host.close());
    const p = new PluginProject(path.join(REPO_ROOT, "examples", example), home, [YAML_HOST_DIR]);
    cleanup.push(() => p.close());
    await p.installPlugin(tarball);
    return { p, host };
  }

  it("quickstart: preview, up, label change (replace, new generation first), no-change preview, destroy", async () => {
    const { p, host } = await project("quickstart-yaml");
    await runQuickstart(p, host, {
      project: "garm-quickstart-yaml",
      // A list in stack config is set element by element; the program's default is [linux, x64].
      baseLabels: async (q) => {
        await q.cli(["config", "set", "--path", "labels[0]", "linux"]);
        await q.cli(["config", "set", "--path", "labels[1]", "x64"]);
      },
      addLabel: async (q) => void (await q.cli(["config", "set", "--path", "labels[2]", "large"])),
    });
    console.log(`      ${p.timings()}`);
  });

  /** Each importable kind, made over REST as garm-cli would: its token, the id to import, what the written code holds. */
  const IMPORTS: {
    kind: string;
    token: string;
    make: (rest: GarmClient, host: SimulatedHost) => Promise<string>;
    code: RegExp;
    /** Stack config set before the import: the secrets GARM never returns, under the keys the import names. */
    config?: Record<string, string | { value: string; secret: boolean }>;
  }[] = [
    {
      kind: "scale set (legacy token)",
      token: "garm:index:ScaleSet",
      make: async (rest, host) =>
        String(
          (
            await rest.createScaleSet(
              { kind: "organization", id: host.sim.organizationId },
              { name: "legacy-runners", provider_name: "fake", image: "img", flavor: "big", os_type: "linux", os_arch: "amd64", labels: ["self-hosted", "arm"], max_runners: 4, enabled: true },
            )
          ).id,
        ),
      code: /type: garm:(index:)?ScaleSet[\s\S]*name: legacy-runners/,
    },
    {
      kind: "pool",
      token: "garm:index:GarmPool",
      make: async (rest, host) => {
        await handWriteFakeProvider(host);
        return (
          await rest.createPool(
            { kind: "organization", id: host.sim.organizationId },
            { provider_name: "fake", image: "img", flavor: "big", os_type: "linux", os_arch: "amd64", tags: ["Self-Hosted", "gpu"], max_runners: 3, min_idle_runners: 0, enabled: true, priority: 5, runner_prefix: "ci" },
          )
        ).id;
      },
      code: /type: garm:(index:)?GarmPool[\s\S]*priority: 5/,
    },
    {
      kind: "template",
      token: "garm:index:GarmTemplate",
      make: async (rest) =>
        String(
          (
            await rest.createTemplate({ name: "hand-made", description: "made with garm-cli", os_type: "linux", forge_type: "github", data: Buffer.from("#!/bin/bash\necho {{ .RunnerName }}\n").toString("base64") } as never)
          ).id,
        ),
      code: /type: garm:(index:)?GarmTemplate[\s\S]*name: hand-made/,
    },
    {
      kind: "GitHub Enterprise endpoint",
      token: "garm:index:GarmEndpoint",
      make: async (rest) =>
        (
          await rest.createEndpoint("github", {
            name: "ghes",
            description: "our GHES",
            base_url: "https://ghes.example.com",
            api_base_url: "https://ghes.example.com/api/v3/",
            upload_base_url: "https://ghes.example.com/api/uploads/",
          })
        ).name,
      code: /type: garm:(index:)?GarmEndpoint[\s\S]*uploadBaseUrl: https:\/\/ghes\.example\.com\/api\/uploads\//,
    },
    {
      kind: "controller",
      token: "garm:index:GarmController",
      make: async (_rest, host) => host.sim.controllerId(),
      code: /type: garm:(index:)?GarmController[\s\S]*metadataUrl: http/,
    },
    {
      kind: "GitHub PAT credentials",
      token: "garm:index:GarmCredentials",
      make: async (rest) =>
        `github/${(await rest.createCredentials("github", { name: "ci-pat", description: "made with garm-cli", endpoint: "github.com", auth_type: "pat", pat: { oauth2_token: "ghp_imported_1" } })).id}`,
      code: /type: garm:(index:)?GarmCredentials[\s\S]*tokenFromConfig: garm:credentials-ci-pat-token/,
      config: { "garm:credentials-ci-pat-token": { value: "ghp_imported_1", secret: true } },
    },
    {
      kind: "GitHub App credentials",
      token: "garm:index:GarmCredentials",
      make: async (rest) =>
        `github/${(await rest.createCredentials("github", { name: "ci-app", endpoint: "github.com", auth_type: "app", app: { app_id: 12, installation_id: 34, private_key_bytes: Buffer.from(APP_KEY_1).toString("base64") } })).id}`,
      code: /type: garm:(index:)?GarmCredentials[\s\S]*appId: 12[\s\S]*installationId: 34[\s\S]*privateKeyFromConfig: garm:credentials-ci-app-private-key/,
      config: {
        "garm:credentials-ci-app-private-key": { value: APP_KEY_1, secret: true },
        "garm:credentials-ci-app-app-id": "12",
        "garm:credentials-ci-app-installation-id": "34",
      },
    },
    {
      kind: "Gitea token credentials",
      token: "garm:index:GarmCredentials",
      make: async (rest) => {
        await rest.createEndpoint("gitea", { name: "forgejo", base_url: "https://git.example.com", api_base_url: "https://git.example.com/api/v1" });
        return `gitea/${(await rest.createCredentials("gitea", { name: "forgejo-bot", endpoint: "forgejo", auth_type: "pat", pat: { oauth2_token: "gitea_tok_1" } })).id}`;
      },
      code: /type: garm:(index:)?GarmCredentials[\s\S]*forge: gitea[\s\S]*tokenFromConfig: garm:credentials-gitea--forgejo-bot-token/,
      config: { "garm:credentials-gitea--forgejo-bot-token": { value: "gitea_tok_1", secret: true } },
    },
    {
      kind: "organization (by name)",
      token: "garm:index:GarmOrganization",
      make: async (rest) => {
        await rest.createEntity("organization", { name: "widgets", credentials_name: "acme-pat", webhook_secret: "hook-secret-1", pool_balancer_type: "pack" });
        return "widgets";
      },
      code: /type: garm:(index:)?GarmOrganization[\s\S]*poolBalancerType: pack[\s\S]*webhookSecretFromConfig: garm:organization-widgets-webhook-secret/,
      config: { "garm:organization-widgets-webhook-secret": { value: "hook-secret-1", secret: true } },
    },
    {
      kind: "repository (by owner/name)",
      token: "garm:index:GarmRepository",
      make: async (rest) => {
        await rest.createEntity("repository", { owner: "acme", name: "tools", credentials_name: "acme-pat", webhook_secret: "hook-secret-2" });
        return "acme/tools";
      },
      code: /type: garm:(index:)?GarmRepository[\s\S]*name: acme\/tools[\s\S]*webhookSecretFromConfig: garm:repository-acme--tools-webhook-secret/,
      config: { "garm:repository-acme--tools-webhook-secret": { value: "hook-secret-2", secret: true } },
    },
    {
      kind: "enterprise (by GARM id)",
      token: "garm:index:GarmEnterprise",
      make: async (rest) => (await rest.createEntity("enterprise", { name: "acme-corp", credentials_name: "acme-pat", webhook_secret: "hook-secret-3" })).id,
      code: /type: garm:(index:)?GarmEnterprise[\s\S]*webhookSecretFromConfig: garm:enterprise-acme-corp-webhook-secret/,
      config: { "garm:enterprise-acme-corp-webhook-secret": { value: "hook-secret-3", secret: true } },
    },
  ];

  for (const { kind, token, make, code: expected, config } of IMPORTS) {
    it(`imports a ${kind} set up over REST; the program Pulumi writes for it previews with no change`, async () => {
      const { p, host } = await project("quickstart-yaml");
      const rest = new GarmClient({ url: host.sim.url, username: host.sim.username, password: host.sim.password });
      const id = await make(rest, host);
      // An empty program: only the imported resource.
      fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: garm-import-yaml\nruntime: yaml\n");
      await p.initStack("dev", { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true }, ...config });
      const generated = path.join(p.workDir, "generated.yaml");
      await p.cli(["import", token, "imported", id, "--yes", "--out", generated]);
      const code = fs.readFileSync(generated, "utf8");
      assert.match(code, expected);
      fs.appendFileSync(path.join(p.dir, "Pulumi.yaml"), code);
      host.sim.clearRequests();
      const preview = await p.preview();
      assert.deepEqual(preview.changeSummary, { same: 2 }, `after import the written program has no change:\n${code}`);
      assert.deepEqual(writes(host.sim), []);
      const secrets = Object.values(config ?? {}).flatMap((v) => (typeof v === "object" && v.secret ? [v.value] : []));
      const state = (await p.cli(["stack", "export"])).stdout;
      for (const secret of secrets) assert.ok(!code.includes(secret) && !state.includes(secret), "the secret is in neither the written program nor the state");
    });
  }

  it("two explicit provider instances reach two GARMs", async () => {
    const { p } = await project("two-providers-yaml");
    const west = await startSimulator({ tickMs: 100 });
    cleanup.push(() => west.stop());
    const east = await startSimulator({ tickMs: 100 });
    cleanup.push(() => east.stop());
    await p.initStack("dev", {
      eastUrl: east.url,
      eastUsername: east.username,
      eastPassword: { value: east.password, secret: true },
      westUrl: west.url,
      westUsername: west.username,
      westPassword: { value: west.password, secret: true },
    });
    await p.cli(["up", "--yes"]);
    const out = await p.outputs();
    assert.deepEqual(east.scaleSets().map((s) => s.name), [out.eastLiveName]);
    assert.deepEqual(west.scaleSets().map((s) => s.name), [out.westLiveName]);
    const state = (await p.cli(["stack", "export"])).stdout;
    assert.ok(!state.includes(east.password) && !state.includes(west.password), "the passwords are kept as secrets in state");
    await p.cli(["destroy", "--yes"]);
    assert.deepEqual([east.scaleSets().length, west.scaleSets().length], [0, 0]);
  });
});
