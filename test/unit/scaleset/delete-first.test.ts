// A delete-first replacement checks what its create needs at diff and again just before the delete, and a delete is
// never sent for a create GARM would refuse (issue 34 item 4b).
import { strict as assert } from "node:assert";
import { scaleSetMethodsWith } from "../../../provider/kinds/scaleset/resource";
import { PlannedReplacements, replacementBlockers } from "../../../provider/kinds/scaleset/replacement";
import { withDefaults } from "../../../provider/kinds/scaleset/inputs";
import type { ScaleSetOutputs } from "../../../provider/kinds/scaleset/state";

const ORG = "8a2f6b1e-0000-4000-8000-000000000001";
const inputs = withDefaults({ name: "ci-exact", naming: "exact", organization: "acme", providerName: "fake", image: "ubuntu", flavor: "small", labels: ["linux", "x64"], maxRunners: 2 });
const olds = {
  ...inputs,
  stateVersion: 1,
  scaleSetId: 7,
  liveName: "ci-exact",
  githubScaleSetId: 3,
  entityKind: "organization",
  entityId: ORG,
  entityName: "acme",
  endpointName: "github.com",
  runnerPrefix: "garm",
  runnerGroup: "Default",
  runnerBootstrapTimeout: 20,
  enableShell: false,
  templateId: 2,
  templateName: "github_linux",
  forgeType: "github",
} as unknown as ScaleSetOutputs;
const news = { ...inputs, labels: ["linux", "x64", "gpu"], __provider: "shim" };

/** A GARM that answers the create's prerequisites and records every write. */
function fakeGarm() {
  const garm = {
    orgs: [{ id: ORG, name: "acme", endpoint: "github.com" }],
    providers: [{ name: "fake" }],
    scaleSets: [{ id: 7, name: "ci-exact" }],
    writes: [] as string[],
    findEntities: async () => garm.orgs,
    getEntity: async () => garm.orgs[0],
    listProviders: async () => garm.providers,
    listEntityScaleSets: async () => garm.scaleSets,
    getTemplate: async (id: number) => ({ id, osType: "linux", forgeType: "github" }),
    listTemplates: async () => [{ id: 2, osType: "linux", forgeType: "github", owner: "system" }],
    updateScaleSet: async (id: number) => void garm.writes.push(`PUT ${id}`),
    deleteScaleSet: async (id: number) => void garm.writes.push(`DELETE ${id}`),
  };
  return garm;
}

const quiet = { info: () => {}, warn: () => {} };

describe("GarmScaleSet delete-first replacement", () => {
  it("diff refuses it at preview when the new one's entity is ambiguous", async () => {
    const garm = fakeGarm();
    garm.orgs.push({ id: "8a2f6b1e-0000-4000-8000-000000000002", name: "acme", endpoint: "ghes" });
    const methods = scaleSetMethodsWith({ client: () => garm as never, log: quiet, now: Date.now, sleep: async () => {} });
    await assert.rejects(methods.diff("7", olds, news), /organization acme exists under several GARM endpoints \(github\.com, ghes\).*Nothing was sent/);
    assert.deepEqual(garm.writes, []);
  });

  it("delete checks again and sends nothing when the create has become impossible since diff", async () => {
    const garm = fakeGarm();
    const methods = scaleSetMethodsWith({ client: () => garm as never, log: quiet, now: Date.now, sleep: async () => {} });
    const planned = await methods.diff("7", olds, news);
    assert.equal(planned.deleteBeforeReplace, true);
    garm.providers = [];
    await assert.rejects(methods.delete!("7", olds), /providerName "fake" is not a provider GARM has loaded.*so it was not deleted/);
    assert.deepEqual(garm.writes, [], "no disabling PUT, no DELETE");
  });

  it("names each thing the create would be refused for", async () => {
    const garm = fakeGarm();
    garm.orgs = [];
    garm.providers = [{ name: "lxd" }];
    garm.getTemplate = async (id: number) => ({ id, osType: "windows", forgeType: "github" });
    const reasons = await replacementBlockers(garm as never, { ...news, templateId: 9 }, { id: 7, liveName: "ci-exact", forgeType: "github" });
    assert.deepEqual(reasons, [
      "organization acme is not known to GARM",
      'providerName "fake" is not a provider GARM has loaded (it has: lxd)',
      "templateId 9 is a github windows template; this scale set needs a github linux one",
    ]);
    const declared = { isDeclaredProvider: (n: string) => n === "fake", isDeclaredEntity: (k: string, n: string) => k === "organization" && n === "acme" };
    assert.deepEqual(
      await replacementBlockers(garm as never, news, { id: 7, liveName: "ci-exact", forgeType: "github" }, declared),
      [],
      "at preview, a provider or entity this run declares is left to the check in delete",
    );
    const taken = fakeGarm();
    taken.scaleSets.push({ id: 8, name: "ci-exact" });
    assert.match((await replacementBlockers(taken as never, news, { id: 7, liveName: "ci-exact" })).join(), /GARM id 8, already holds the name ci-exact/);
  });

  it("a replacement whose create already ran (create first) is not checked again at delete", () => {
    const planned = new PlannedReplacements<string>();
    planned.record(7, news, "old outputs");
    assert.deepEqual(
      planned.created({ ...news }).map((r) => [r.id, r.old]),
      [[7, "old outputs"]],
      "the create learns which scale set it replaces, to retire it once it is ready",
    );
    assert.equal(planned.take(7), undefined);
    planned.record(7, news, "old outputs");
    assert.deepEqual(planned.take(7), { ...inputs, labels: ["linux", "x64", "gpu"] });
    assert.equal(planned.take(7), undefined, "taken once");
  });
});
