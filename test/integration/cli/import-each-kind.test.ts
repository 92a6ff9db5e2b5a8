// Every importable kind taken over alone with the `import` option of its TypeScript class (issue 26), through the real
// CLI and the Node language host against the GARM simulator: the object is made through GARM's REST API, the program
// states the inputs the kind's importer reads (those `pulumi import` writes with the plugin), the `up` writes nothing
// to GARM, and the next preview plans no change.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { GarmClient } from "../../../provider/garm/client";
import { BOUND_KINDS } from "../../../provider/registry/implementations";
import type { KindKey } from "../../../provider/registry/kinds";
import { type Simulator, startSimulator } from "../../../simulator";
import { locatePulumi, runPulumi } from "../../../harness/pulumi-cli";
import { mutatingCalls } from "../../support/fixtures";

type Made = { id: string; config?: Record<string, { value: string; secret: true }> };

/** How a team would have made each kind by hand: one object, over GARM's REST API. */
const MADE_BY_HAND: Partial<Record<KindKey, (rest: GarmClient, sim: Simulator) => Promise<Made>>> = {
  scaleSet: async (rest, sim) => ({
    id: String(
      (
        await rest.createScaleSet(
          { kind: "organization", id: sim.organizationId },
          { name: "hand-runners", provider_name: "fake", image: "img", flavor: "big", os_type: "linux", os_arch: "amd64", labels: ["self-hosted", "arm"], max_runners: 4, enabled: true },
        )
      ).id,
    ),
  }),
  pool: async (rest, sim) => ({
    id: (
      await rest.createPool(
        { kind: "organization", id: sim.organizationId },
        { provider_name: "fake", image: "img", flavor: "big", os_type: "linux", os_arch: "amd64", tags: ["Self-Hosted", "gpu"], max_runners: 3, min_idle_runners: 0, enabled: true, priority: 5, runner_prefix: "ci" },
      )
    ).id,
  }),
  template: async (rest) => ({
    id: String((await rest.createTemplate({ name: "hand-made", description: "made with garm-cli", os_type: "linux", forge_type: "github", data: Buffer.from("#!/bin/bash\necho hi\n").toString("base64") } as never)).id),
  }),
  endpoint: async (rest) => ({
    id: (await rest.createEndpoint("gitea", { name: "forgejo", description: "our Gitea", base_url: "https://git.example.com", api_base_url: "https://git.example.com/api/v1" } as never)).name,
  }),
  controller: async (_rest, sim) => ({ id: sim.controllerId() }),
  credentials: async (rest) => ({
    id: `github/${(await rest.createCredentials("github", { name: "hand-pat", endpoint: "github.com", auth_type: "pat", pat: { oauth2_token: "ghp_hand" } })).id}`,
    config: { "garm:credentials-hand-pat-token": { value: "ghp_hand", secret: true } },
  }),
  organization: async (rest) => {
    await rest.createEntity("organization", { name: "hand-org", credentials_name: "acme-pat", webhook_secret: "hook-1" });
    return { id: "hand-org", config: { "garm:organization-hand-org-webhook-secret": { value: "hook-1", secret: true } } };
  },
  repository: async (rest) => {
    await rest.createEntity("repository", { owner: "acme", name: "hand-repo", credentials_name: "acme-pat", webhook_secret: "hook-2" });
    return { id: "acme/hand-repo", config: { "garm:repository-acme--hand-repo-webhook-secret": { value: "hook-2", secret: true } } };
  },
  enterprise: async (rest) => ({
    id: (await rest.createEntity("enterprise", { name: "hand-ent", credentials_name: "acme-pat", webhook_secret: "hook-3" })).id,
    config: { "garm:enterprise-hand-ent-webhook-secret": { value: "hook-3", secret: true } },
  }),
};

/** The program's inputs from the importer's: a TypeScript program passes each secret itself (`token`), not its key. */
function withSecretsGiven(inputs: Record<string, unknown>, config: Made["config"]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(inputs).map(([k, v]) => (k.endsWith("FromConfig") ? [k.slice(0, -"FromConfig".length), config?.[String(v)]?.value] : [k, v])),
  );
}

describe("the import option of each kind's TypeScript class (real CLI, dynamic provider)", function () {
  this.timeout(300_000);
  let sim: Simulator;
  let dir = "";

  before(function () {
    try {
      locatePulumi();
    } catch (err) {
      console.log(`      skipped: ${(err as Error).message}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-import-kind-"));
    sim = await startSimulator({ tickMs: 0 });
  });
  afterEach(async () => {
    await sim?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // GarmProvider reads GARM's config file, not its API, and its first up puts markers: import-option.test.ts has its test.
  const ALONE = BOUND_KINDS.filter((k) => k.importable === true && k.key !== "garmProvider");

  it("has a way to make each importable kind by hand", () => {
    const importable = ALONE.map((k) => k.key);
    assert.deepEqual(importable.filter((k) => !MADE_BY_HAND[k]), []);
  });

  for (const row of ALONE) {
    it(`imports a ${row.sdkClass} made over REST with no write to GARM; the next preview plans no change`, async () => {
      const make = MADE_BY_HAND[row.key];
      assert.ok(make, `no way to make a ${row.key} by hand`);
      const rest = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
      const made = await make(rest, sim);
      const read = await row.impl.importer!(rest, made.id, (key) => made.config?.[key]?.value);
      const inputs = withSecretsGiven(read.inputs, made.config);
      const Class = (garm as unknown as Record<string, new (name: string, args: object, opts: object) => unknown>)[row.sdkClass];
      assert.ok(Class, `pulumi-garm exports ${row.sdkClass}`);
      const program = (withImport: boolean) => async () => {
        new Class("imported", inputs, withImport ? { import: made.id } : {});
        return {};
      };
      const run = (op: "up" | "preview", withImport: boolean) =>
        runPulumi({
          workDir: dir,
          stackName: "each",
          projectName: "import-each",
          program: program(withImport),
          op,
          config: { "garm:url": sim.url, "garm:username": sim.username, "garm:password": { value: sim.password, secret: true }, ...made.config },
        });
      sim.clearRequests();
      const up = await run("up", true);
      assert.ok(up.exitOk, `${up.error?.message}\n${up.stdout}`);
      assert.deepEqual(mutatingCalls(sim), [], "an import writes nothing to GARM");
      const preview = await run("preview", false);
      assert.ok(preview.exitOk, `${preview.error?.message}\n${preview.stdout}`);
      assert.deepEqual(preview.changeSummary, { same: 2 }, JSON.stringify(inputs));
    });
  }
});
