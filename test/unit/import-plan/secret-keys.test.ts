// The stack config keys of the secrets GARM never returns (issue 34 item 6): one key per object, by a rule the importers
// apply to the one object they read, so `pulumi config set` for one object never overwrites another's, and import-plan's
// commands name exactly the keys `pulumi import` reads.
import { strict as assert } from "node:assert";
import type { CredentialsView, EntityView } from "../../../provider/garm/client";
import { importCredentials } from "../../../provider/kinds/credentials/import";
import { importEntity } from "../../../provider/kinds/entity/import";
import type { Inventory } from "../../../cli/import-plan/inventory";
import { type PlanEntry, buildPlan } from "../../../cli/import-plan/plan";
import { configCommandsFor } from "../../../cli/import-plan/secrets";
import { hostileInventory } from "./hostile-garm";

const credentials = (id: number, name: string, forge: "github" | "gitea", authType = "pat"): CredentialsView => ({ id, name, description: "", authType, forge, endpoint: forge === "github" ? "github.com" : "gitea.example", repositories: [], organizations: [], enterprises: [] });
const entity = (id: string, name: string, endpoint = "github.com"): EntityView => ({ id, name, credentials: "ci", endpoint, poolBalancerType: "roundrobin", agentMode: false });

/** The clashes of issue 34: `a/b-c` and `a-b/c`; GitHub's `gitea-ci` and Gitea's `ci`; and an endpoint read as part of a name. */
function clashing(): Inventory {
  return {
    controller: { controllerId: "", metadataUrl: "", callbackUrl: "", webhookUrl: "", controllerWebhookUrl: "", minimumJobAgeBackoff: 0, version: "" },
    endpoints: [],
    credentials: [credentials(1, "gitea-ci", "github"), credentials(1, "ci", "gitea"), credentials(2, "gitea-ci-app", "github", "app"), credentials(2, "ci-app", "gitea", "app"), credentials(3, "CI Pat", "github"), credentials(5, "ci-pat", "github")],
    entities: [
      { kind: "repository", view: entity("10000000-0000-4000-8000-000000000001", "a/b-c") },
      { kind: "repository", view: entity("10000000-0000-4000-8000-000000000002", "a-b/c") },
      { kind: "repository", view: entity("10000000-0000-4000-8000-000000000003", "b-c/d", "a") },
      { kind: "organization", view: entity("20000000-0000-4000-8000-000000000001", "ghes-acme") },
      { kind: "organization", view: entity("20000000-0000-4000-8000-000000000002", "acme", "ghes") },
      { kind: "organization", view: entity("20000000-0000-4000-8000-000000000004", "my-ghes-acme") },
      { kind: "organization", view: entity("20000000-0000-4000-8000-000000000005", "ghes-acme", "my") },
    ],
    templates: [],
    pools: [],
    scaleSets: [],
    providers: [],
  };
}

/** The key of each `pulumi config set` line, with the object its comment names. */
function keysOf(entries: readonly PlanEntry[]): string[] {
  return configCommandsFor(entries).map((c) => /^pulumi config set (?:--secret )?(\S+) /.exec(c)![1]);
}

/** The keys an importer asks stack config for, reading the one object `view`. */
async function keysTheImporterReads(entry: PlanEntry): Promise<string[]> {
  const asked: string[] = [];
  const config = (key: string) => {
    asked.push(key);
    return undefined;
  };
  const { object } = entry;
  if (object.kind === "credentials") {
    const { forge, ...view } = object.view;
    await assert.rejects(importCredentials({ getCredentials: async () => view as CredentialsView }, entry.spec.id, config), /pulumi config set/);
  } else if (object.kind === "organization" || object.kind === "repository" || object.kind === "enterprise") {
    const client = { getEntity: async () => object.view, listEntities: async () => [object.view] };
    await assert.rejects(importEntity(object.kind, client as never, entry.spec.id, config), /pulumi config set/);
  }
  return asked;
}

describe("import-plan's secret config keys", () => {
  it("give each object its own key: a/b-c and a-b/c, GitHub's gitea-ci and Gitea's ci, an endpoint and a name", () => {
    const keys = keysOf(buildPlan(clashing()).entries);
    assert.equal(keys.length, 10 + 7);
    assert.equal(new Set(keys).size, keys.length, keys.join("\n"));
  });

  it("are the same every run, whatever order GARM lists the objects in", () => {
    const inv = clashing();
    const once = buildPlan(inv).entries;
    const keyed = new Map(once.map((e, i) => [e.spec.id + e.spec.type, keysOf([e])] as const));
    const reversed = buildPlan({ ...inv, credentials: [...inv.credentials].reverse(), entities: [...inv.entities].reverse() }).entries;
    for (const e of reversed) assert.deepEqual(keysOf([e]), keyed.get(e.spec.id + e.spec.type));
    assert.deepEqual(keysOf(buildPlan(clashing()).entries), keysOf(once));
  });

  it("stay readable where the name reads back, and valid config keys everywhere", () => {
    const plain = keysOf(buildPlan(clashing()).entries);
    for (const key of ["garm:credentials-gitea-ci-token", "garm:credentials-gitea--ci-token", "garm:credentials-ci-pat-token", "garm:repository-a--b-c-webhook-secret", "garm:repository-a-b--c-webhook-secret", "garm:repository-a--b-c--d-webhook-secret", "garm:organization-ghes-acme-webhook-secret", "garm:organization-ghes--acme-webhook-secret"]) {
      assert.ok(plain.includes(key), `${key} in\n${plain.join("\n")}`);
    }
    // "CI Pat" does not read back (its space), so its key ends in a hash of the object.
    assert.ok(plain.some((k) => /^garm:credentials-ci-pat_[0-9a-f]{8}-token$/.test(k)), plain.join("\n"));
    for (const key of [...plain, ...keysOf(buildPlan(hostileInventory()).entries)]) assert.match(key, /^garm:[a-z][a-z0-9_.-]*$/);
  });

  it("are the keys the importers read at `pulumi import` time, object by object", async () => {
    for (const inv of [clashing(), hostileInventory()]) {
      for (const entry of buildPlan(inv).entries) {
        if (!["credentials", "organization", "repository", "enterprise"].includes(entry.object.kind)) continue;
        assert.deepEqual(await keysTheImporterReads(entry), keysOf([entry]), `${entry.spec.name}: plan and importer agree`);
      }
    }
  });

  it("are unique across a GARM of hostile names", () => {
    const keys = keysOf(buildPlan(hostileInventory()).entries);
    assert.equal(new Set(keys).size, keys.length);
  });
});
