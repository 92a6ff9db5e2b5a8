// What import-plan writes where GARM's names and ids clash (issue 34 items 2, 3, 4a): organization acme under two
// GitHub endpoints, each with a scale set and a pool; GitHub and Gitea credentials both numbered 1; a pool whose extra
// specs hold a null. The TypeScript and Python writers name the endpoint of each acme user and refer to the acme on it,
// the entities to the credentials on their endpoint; the import ids of credentials name their forge.
import { strict as assert } from "node:assert";
import type { CredentialsView, EndpointView, EntityView, PoolView, ScaleSetView } from "../../../provider/garm/client";
import { inputsFor } from "../../../cli/import-plan/inputs";
import type { Inventory } from "../../../cli/import-plan/inventory";
import { buildPlan } from "../../../cli/import-plan/plan";
import { typescriptProgram } from "../../../cli/import-plan/typescript";
import { pythonProgram } from "../../../cli/import-plan/python";
import { importedPoolInputs } from "../../../provider/kinds/pool/import";
import { importedInputs } from "../../../provider/kinds/scaleset/import";
import { importedRunnerSettings } from "../../../provider/runners/import";
import { OMITTED_MEANS } from "../../../provider/kinds/pool/diff";
import { credentialsImportId } from "../../../provider/kinds/credentials/import";
import { credentialsPulumiId, garmIdOfPulumiId } from "../../../provider/kinds/credentials/identity";
import { sameExtraSpecs } from "../../../provider/runners/extra-specs";

const ACME_GH = "00000000-0000-4000-8000-000000000001";
const ACME_GHES = "00000000-0000-4000-8000-000000000002";
const endpoint = (name: string, forge: "github" | "gitea"): EndpointView => ({ name, description: "", apiBaseUrl: `https://${name}/api`, uploadBaseUrl: "", baseUrl: `https://${name}`, caCertBundle: "", forge });
const creds = (id: number, name: string, forge: "github" | "gitea", at: string): CredentialsView => ({ id, name, description: "", authType: "pat", forge, endpoint: at, repositories: [], organizations: [], enterprises: [] });
const org = (id: string, name: string, credentials: string, at: string): EntityView => ({ id, name, credentials, endpoint: at, poolBalancerType: "roundrobin", agentMode: false });
const RUNNER = { providerName: "fake", image: "ubuntu", flavor: "small", osType: "linux", osArch: "amd64", maxRunners: 2, minIdleRunners: 0, enabled: false, runnerPrefix: "garm", runnerGroup: "", runnerBootstrapTimeout: 20, enableShell: false, forgeType: "github" };
const scaleSet = (id: number, name: string, entityId: string, at: string) =>
  ({ ...RUNNER, id, name, labels: ["linux"], entity: { kind: "organization", id: entityId, name: "acme" }, endpoint: at, extraSpecs: undefined }) as unknown as ScaleSetView;
const pool = (id: string, entityId: string, extraSpecs: unknown) => ({ ...RUNNER, id, labels: ["linux"], priority: 0, entityName: "acme", entity: { kind: "organization", id: entityId, name: "acme" }, extraSpecs }) as unknown as PoolView;

function inventory(): Inventory {
  return {
    controller: { controllerId: "", metadataUrl: "", callbackUrl: "", webhookUrl: "", controllerWebhookUrl: "", minimumJobAgeBackoff: 0, version: "v0.2.1" },
    endpoints: [endpoint("github.com", "github"), endpoint("ghes", "github"), endpoint("gitea-local", "gitea")],
    // Each forge numbers its own: GitHub's acme-pat and Gitea's shared are both 1; "shared" is a name on both forges.
    credentials: [creds(1, "acme-pat", "github", "github.com"), creds(2, "shared", "github", "ghes"), creds(1, "shared", "gitea", "gitea-local")],
    entities: [
      { kind: "organization", view: org(ACME_GH, "acme", "acme-pat", "github.com") },
      { kind: "organization", view: org(ACME_GHES, "acme", "shared", "ghes") },
      { kind: "organization", view: org("00000000-0000-4000-8000-000000000003", "forge-org", "shared", "gitea-local") },
    ],
    templates: [],
    pools: [pool("p-gh", ACME_GH, undefined), pool("p-ghes", ACME_GHES, { disk_gb: 10, zone: null })],
    scaleSets: [scaleSet(1, "ci-gh", ACME_GH, "github.com"), scaleSet(2, "ci-ghes", ACME_GHES, "ghes")],
    providers: [],
  };
}

async function written() {
  const inv = inventory();
  const plan = buildPlan(inv);
  const client = { getPool: async (id: string) => inv.pools.find((p) => p.id === id)! };
  const inputs = await inputsFor(plan.entries, { client: client as never, templates: [], entities: inv.entities });
  return { plan, inputs, ts: typescriptProgram(plan, inputs, "https://garm.example"), py: pythonProgram(plan, inputs, "https://garm.example") };
}

describe("import-plan where GARM's names and ids clash (issue 34)", () => {
  it("credentials' import ids, which are also their Pulumi ids, name the forge; bare numbers of older state still read", async () => {
    const { plan } = await written();
    assert.deepEqual(plan.file.resources.filter((r) => r.type === "garm:index:GarmCredentials").map((r) => r.id), ["github/1", "github/2", "gitea/1"]);
    assert.equal(credentialsImportId({ forge: "gitea", id: 1 }), credentialsPulumiId("gitea", 1));
    assert.deepEqual([garmIdOfPulumiId("gitea/7"), garmIdOfPulumiId("7"), garmIdOfPulumiId("gitlab/7"), garmIdOfPulumiId("x")], [7, 7, undefined, undefined]);
  });

  it("each entry names what it uses as its parent (credentials their endpoint, an entity its credentials, a pool or scale set its entity), so destroy keeps GARM's order where Pulumi's codegen writes no reference", async () => {
    const { plan } = await written();
    const parents = Object.fromEntries(plan.file.resources.map((r) => [r.name, r.parent]));
    const acme = (id: string) => plan.entries.find((e) => e.spec.id === id)!.spec.name;
    assert.deepEqual(parents, {
      "endpoint-ghes": undefined,
      "endpoint-gitea-local": undefined,
      // On GARM's default endpoint, which is not imported.
      "credentials-acme-pat": undefined,
      "credentials-github-shared": "endpoint-ghes",
      "credentials-gitea-shared": "endpoint-gitea-local",
      [acme(ACME_GH)]: "credentials-acme-pat",
      [acme(ACME_GHES)]: "credentials-github-shared",
      "org-forge-org": "credentials-gitea-shared",
      "pool-acme-ubuntu-small-p-gh": acme(ACME_GH),
      "pool-acme-ubuntu-small-p-ghes": acme(ACME_GHES),
      "scaleset-ci-gh": acme(ACME_GH),
      "scaleset-ci-ghes": acme(ACME_GHES),
    });
  });

  it("a scale set or pool of acme, which two endpoints hold, names its endpoint; one whose entity name is unique does not", async () => {
    const { plan, inputs } = await written();
    const of = (id: string) => inputs[plan.entries.findIndex((e) => e.spec.id === id)] as Record<string, unknown>;
    assert.deepEqual([of("1").organization, of("1").endpoint, of("2").endpoint, of("p-gh").endpoint, of("p-ghes").endpoint], ["acme", "github.com", "ghes", "github.com", "ghes"]);
    const unique = scaleSet(3, "x", ACME_GH, "github.com");
    assert.equal(importedInputs(unique).endpoint, undefined);
    assert.equal(importedInputs(unique, "github.com").endpoint, "github.com");
  });

  it("TypeScript and Python refer to the acme on the named endpoint, and entities to the credentials on their own endpoint", async () => {
    const { ts, py } = await written();
    // Logical names of the two acme organizations carry a suffix from their ids.
    const tsDecl = (variable: string) => ts.slice(ts.indexOf(`const ${variable} =`)).split("\n});")[0]!;
    const pyDecl = (variable: string) => py.slice(py.indexOf(`${variable} = garm.`)).split("\n)")[0]!;
    const ghesSet = tsDecl("scalesetCiGhes");
    const ghSet = tsDecl("scalesetCiGh");
    const orgVar = (code: string) => /organization: (\w+)\.name/.exec(code)?.[1];
    assert.ok(orgVar(ghesSet) && orgVar(ghSet) && orgVar(ghesSet) !== orgVar(ghSet), `each acme scale set refers to its own acme:\n${ghSet}\n${ghesSet}`);
    assert.match(ghSet, /endpoint: "github\.com",/, "GARM's default endpoint is not declared: a literal");
    assert.match(tsDecl(orgVar(ghesSet)!), /credentials: credentialsGithubShared\.name,/, "the acme the ghes scale set refers to is the one on ghes");
    assert.match(ghesSet, /endpoint: endpointGhes\.name,/);
    assert.match(pyDecl("scaleset_ci_ghes"), /organization=org_acme_\w+\.name,\n {4}endpoint=endpoint_ghes\.name,/);
    // GitHub's "shared" on ghes and Gitea's on gitea-local: each entity refers to the one on its endpoint.
    const credVar = (code: string) => /credentials: (\w+)\.name/.exec(code)?.[1];
    assert.match(ts, /name: "acme",\n {2}credentials: credentialsGithubShared\.name,/);
    assert.match(ts, /name: "forge-org",\n {2}credentials: credentialsGiteaShared\.name,/);
    assert.equal(credVar(tsDecl("orgForgeOrg")), "credentialsGiteaShared");
    assert.match(py, /credentials=credentials_gitea_shared\.name,/);
  });

  it("extra specs holding a null are stated as their JSON string, which the diff reads as GARM's object; a whole null is no extra specs", () => {
    const withNull = importedPoolInputs(pool("p", ACME_GH, { disk_gb: 10, zone: null, nested: { a: [null] } }));
    assert.equal(withNull.extraSpecs, '{"disk_gb":10,"zone":null,"nested":{"a":[null]}}');
    assert.ok(sameExtraSpecs(withNull.extraSpecs, { disk_gb: 10, zone: null, nested: { a: [null] } }));
    assert.ok(!sameExtraSpecs(withNull.extraSpecs, { disk_gb: 10 }), "the null counts");
    assert.deepEqual(importedPoolInputs(pool("p", ACME_GH, { disk_gb: 10 })).extraSpecs, { disk_gb: 10 }, "without a null the object stays");
    assert.equal(importedRunnerSettings({ ...pool("p", ACME_GH, null) }, OMITTED_MEANS, "pool p").extraSpecs, undefined);

  });
});
