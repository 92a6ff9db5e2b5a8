// GARM's system install templates are per forge (runner/repositories.go L208-246: findTemplate matches the entity's
// credentials forge): a Gitea pool with templateId omitted holds gitea_linux, which is what the program means, and
// a GitHub one github_linux. One rule (provider/runners/diff.ts templateChanged) for pools and scale sets.
import { strict as assert } from "node:assert";
import { changedPoolFields, diffPool } from "../../../provider/kinds/pool/diff";
import type { PoolOutputs } from "../../../provider/kinds/pool/state";
import { changedFields } from "../../../provider/kinds/scaleset/diff";
import type { ScaleSetOutputs } from "../../../provider/kinds/scaleset/state";
import { systemTemplateId, systemTemplateName } from "../../../provider/runners/templates";

const inputs = {
  organization: "acme",
  providerName: "fake",
  image: "ubuntu-24.04",
  flavor: "small",
  osType: "linux",
  osArch: "amd64",
  labels: ["linux"],
  maxRunners: 3,
  minIdleRunners: 0,
  enabled: true,
  drain: { timeoutSeconds: 600, pollSeconds: 5, jobStaleAfterHours: 120 },
};
const held = (forgeType: string | undefined, templateName: string, templateId: number) =>
  ({
    ...inputs,
    poolId: "0b5a6f0e-2d7e-4a0e-8f5c-3c1d2a9b7e61",
    entityKind: "organization",
    entityId: "8f0b6c1e-1111-4222-8333-444455556666",
    entityName: "acme",
    endpointName: "gitea",
    runnerPrefix: "garm",
    runnerGroup: "",
    runnerBootstrapTimeout: 20,
    enableShell: false,
    priority: 0,
    templateId,
    templateName,
    ...(forgeType ? { forgeType } : {}),
    stateVersion: 1,
  }) as unknown as PoolOutputs;

describe("system install templates per forge", () => {
  it("names GARM's system templates by forge and OS", () => {
    assert.equal(systemTemplateName("gitea", "linux"), "gitea_linux");
    assert.equal(systemTemplateName("github", "windows"), "github_windows");
  });

  it("a Gitea pool that holds gitea_linux, templateId omitted: no change", () => {
    const olds = held("gitea", "gitea_linux", 3);
    assert.deepEqual(changedPoolFields(olds, inputs), []);
    assert.equal(diffPool(olds, inputs).changes, false);
  });

  it("a Gitea pool that holds GitHub's template, templateId omitted: the template changes (back to Gitea's)", () => {
    assert.deepEqual(changedPoolFields(held("gitea", "github_linux", 2), inputs), ["templateId"]);
  });

  it("a GitHub pool that holds github_linux: no change; one that holds another template: a change", () => {
    assert.deepEqual(changedPoolFields(held("github", "github_linux", 2), inputs), []);
    assert.deepEqual(changedPoolFields(held("github", "custom", 9), inputs), ["templateId"]);
  });

  it("state written before the forge was kept: either forge's system template for the OS is no change", () => {
    assert.deepEqual(changedPoolFields(held(undefined, "gitea_linux", 3), inputs), []);
    assert.deepEqual(changedPoolFields(held(undefined, "github_linux", 2), inputs), []);
    assert.deepEqual(changedPoolFields(held(undefined, "gitea_windows", 4), inputs), ["templateId"]);
  });

  it("the scale set's diff reads the same rule", () => {
    const olds = { ...held("gitea", "gitea_linux", 3), name: "ci", naming: "hashed", runnerGroup: "Default" } as unknown as ScaleSetOutputs;
    assert.deepEqual(changedFields(olds, { ...inputs, name: "ci", naming: "hashed" }), []);
  });

  it("looks the system template up among the forge's templates", async () => {
    const asked: [string, string][] = [];
    const client = {
      listTemplates: async (osType: string, forge: string) => {
        asked.push([osType, forge]);
        return [
          { id: 2, name: "github_linux", osType: "linux", forgeType: "github", owner: "system" },
          { id: 3, name: "gitea_linux", osType: "linux", forgeType: "gitea", owner: "system" },
        ].filter((t) => t.forgeType === forge && t.osType === osType);
      },
    };
    assert.equal(await systemTemplateId(client as never, "gitea", "linux"), 3);
    assert.deepEqual(asked, [["linux", "gitea"]]);
  });
});
