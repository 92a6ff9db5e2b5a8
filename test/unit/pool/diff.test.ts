// GarmPool's diff and update body: only the provider and the entity replace (absent from UpdatePoolParams,
// params/requests.go L163-183); tags and the rest change in place, and a PUT carries only what changed.
import { strict as assert } from "node:assert";
import { changedPoolFields, diffPool, poolUpdateBody } from "../../../provider/kinds/pool/diff";
import type { PoolOutputs } from "../../../provider/kinds/pool/state";
import { UNKNOWN } from "../../../provider/common/unknown";
import { marks } from "../../support/diff-marks";

const olds = {
  organization: "acme",
  providerName: "fake",
  image: "ubuntu-24.04",
  flavor: "small",
  osType: "linux",
  osArch: "amd64",
  labels: ["linux", "x64"],
  maxRunners: 3,
  minIdleRunners: 0,
  enabled: true,
  drain: { timeoutSeconds: 600, pollSeconds: 5, jobStaleAfterHours: 120 },
  poolId: "0b5a6f0e-2d7e-4a0e-8f5c-3c1d2a9b7e61",
  entityKind: "organization",
  entityId: "8f0b6c1e-1111-4222-8333-444455556666",
  entityName: "acme",
  endpointName: "github.com",
  runnerPrefix: "garm",
  runnerGroup: "",
  runnerBootstrapTimeout: 20,
  enableShell: false,
  priority: 0,
  templateId: 2,
  templateName: "github_linux",
  stateVersion: 1,
} as PoolOutputs;
const inputs = { organization: "acme", providerName: "fake", image: "ubuntu-24.04", flavor: "small", osType: "linux", osArch: "amd64", labels: ["x64", "Linux"], maxRunners: 3, minIdleRunners: 0, enabled: true, drain: { jobStaleAfterHours: 120, pollSeconds: 5, timeoutSeconds: 600 } };

describe("GarmPool diff", () => {
  const cases: [string, Record<string, unknown>, string[], boolean, Record<string, string>][] = [
    ["nothing (labels in another order and case, drain keys in another order)", {}, [], false, {}],
    ["labels, in place", { labels: ["linux", "gpu"] }, [], true, { labels: "update" }],
    ["image and priority, in place", { image: "x", priority: 5 }, [], true, { image: "update", priority: "update" }],
    ["an unknown maxRunners, in place", { maxRunners: UNKNOWN }, [], true, { maxRunners: "update" }],
    ["the provider replaces", { providerName: "other" }, ["providerName"], true, { providerName: "updateReplace" }],
    ["the entity replaces", { organization: undefined, repository: "acme/app" }, ["organization", "repository"], true, { organization: "deleteReplace", repository: "addReplace" }],
    ["an entityId naming the same entity does not replace", { organization: undefined, entityId: olds.entityId.toUpperCase() }, [], false, {}],
    ["labels reordered beside a real change: only the change", { labels: ["X64", "linux"], minIdleRunners: 1 }, [], true, { minIdleRunners: "update" }],
  ];
  for (const [what, change, replaces, changes, marked] of cases) {
    it(what, () => {
      const result = diffPool(olds, { ...inputs, ...change });
      assert.deepEqual(result.replaces, replaces);
      assert.equal(result.changes, changes);
      assert.equal(result.deleteBeforeReplace, false);
      assert.deepEqual(marks(result), marked);
    });
  }

  it("marks exactly the field GARM holds otherwise after a refresh: the outputs, not the old inputs, are compared", () => {
    assert.deepEqual(marks(diffPool({ ...olds, maxRunners: 7 }, inputs)), { maxRunners: "update" });
    assert.deepEqual(marks(diffPool({ ...olds, labels: ["gpu", "linux"] }, inputs)), { labels: "update" }, "tags changed in GARM");
  });

  it("an omitted runner group, prefix and priority put GARM's defaults back", () => {
    const held = { ...olds, runnerGroup: "gpu", runnerPrefix: "ci", priority: 4 };
    assert.deepEqual(changedPoolFields(held, inputs).sort(), ["priority", "runnerGroup", "runnerPrefix"]);
  });

  it("the PUT carries only the changed fields, labels as tags and the runner group under github-runner-group", () => {
    const news = { ...inputs, labels: ["linux", "gpu"], runnerGroup: "ci" } as never;
    assert.deepEqual(poolUpdateBody(news, ["labels", "runnerGroup"]), { tags: ["linux", "gpu"], "github-runner-group": "ci" });
  });
});
