// One replacement rule for the entity of scale sets and pools (provider/runners/diff.ts): the resolved entity is
// compared, so naming it another way (by entityId instead of by name, adding the endpoint it already lives under, the
// name in another case) replaces neither kind, and naming another entity replaces both.
import { strict as assert } from "node:assert";
import { diffPool } from "../../../provider/kinds/pool/diff";
import type { PoolOutputs } from "../../../provider/kinds/pool/state";
import { diffScaleSet } from "../../../provider/kinds/scaleset/diff";
import { withDefaults } from "../../../provider/kinds/scaleset/inputs";
import type { ScaleSetOutputs } from "../../../provider/kinds/scaleset/state";
import { liveName } from "../../../provider/runners/naming";
import { UNKNOWN } from "../../../provider/common/unknown";

const ENTITY_ID = "8f0b6c1e-1111-4222-8333-444455556666";
const entity = { entityKind: "organization", entityId: ENTITY_ID, entityName: "acme", endpointName: "github.com" } as const;
const settings = {
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
} as const;
const held = { runnerPrefix: "garm", runnerBootstrapTimeout: 20, enableShell: false, templateId: 2, templateName: "github_linux", stateVersion: 1 };

const poolOlds = { ...settings, ...entity, ...held, poolId: "0b5a6f0e-2d7e-4a0e-8f5c-3c1d2a9b7e61", runnerGroup: "", priority: 0 } as unknown as PoolOutputs;
const scaleSetInputs = withDefaults({ ...settings, labels: [...settings.labels], name: "ci" });
const scaleSetOlds = {
  ...scaleSetInputs,
  ...entity,
  ...held,
  scaleSetId: 12,
  liveName: liveName("ci", ["linux", "x64"], "fake", "hashed"),
  githubScaleSetId: 5,
  runnerGroup: "Default",
} as ScaleSetOutputs;

const kinds = [
  ["GarmPool", (change: Record<string, unknown>) => diffPool(poolOlds, { ...settings, ...change })],
  ["GarmScaleSet", (change: Record<string, unknown>) => diffScaleSet(scaleSetOlds, { ...scaleSetInputs, ...change })],
] as const;

const sameEntity: [string, Record<string, unknown>][] = [
  ["named by entityId instead of by name", { organization: undefined, entityId: ENTITY_ID }],
  ["named by entityId in upper case", { organization: undefined, entityId: ENTITY_ID.toUpperCase() }],
  ["with the endpoint it already lives under added", { endpoint: "github.com" }],
  ["with the organization name in another case", { organization: "ACME" }],
  ["with its endpoint's name in another case", { endpoint: "GitHub.com" }],
];
const otherEntity: [string, Record<string, unknown>, string[]][] = [
  ["another organization", { organization: "other" }, ["organization"]],
  ["a repository instead", { organization: undefined, repository: "acme/app" }, ["organization", "repository"]],
  ["another entity's id", { organization: undefined, entityId: "8f0b6c1e-1111-4222-8333-000000000000" }, ["organization", "entityId"]],
  ["another endpoint", { endpoint: "ghes.example.com" }, ["organization", "endpoint"]],
  ["an entity not known yet", { organization: UNKNOWN }, ["organization"]],
];

for (const [kind, diff] of kinds) {
  describe(`${kind}: the entity replaces only when it resolves to another one`, () => {
    for (const [what, change] of sameEntity) {
      it(`no change: ${what}`, () => {
        const result = diff(change);
        assert.deepEqual(result.replaces, []);
        assert.equal(result.changes, false);
      });
    }
    for (const [what, change, replaces] of otherEntity) {
      it(`replaces: ${what}`, () => {
        assert.deepEqual(diff(change).replaces, replaces);
      });
    }
  });
}
