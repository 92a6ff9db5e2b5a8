// The "will replace" line: its shape, and that every resource kind's diff prints it in that shape with its own reasons.
import { strict as assert } from "node:assert";
import type * as pulumi from "@pulumi/pulumi";
import { credentialsProviderWith } from "../../provider/kinds/credentials/resource";
import { endpointProviderWith } from "../../provider/kinds/endpoint/resource";
import { entityMethodsWith } from "../../provider/kinds/entity/resource";
import { poolMethodsWith } from "../../provider/kinds/pool/resource";
import { logReplacements, replaceLine } from "../../provider/common/replace-line";
import { scaleSetMethodsWith } from "../../provider/kinds/scaleset/resource";
import { templateMethodsWith } from "../../provider/kinds/template/resource";

/** `<label>: will replace: <field> (<why>)[, <field> (<why>)][; <then>]`. */
const SHAPE = /^Garm\w+ [^:]+: will replace: \w+ \([^;]+\)(, \w+ \([^;]+\))*(; .+)?$/;

function capture() {
  const lines: string[] = [];
  // A diff that replaces decides without GARM: any call is a failure of this test.
  const client = () => {
    throw new Error("diff called GARM");
  };
  return { lines, deps: { client: client as never, log: { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(`warning: ${l}`) } } };
}

async function diffLines(diff: NonNullable<pulumi.dynamic.ResourceProvider["diff"]>, lines: string[], id: string, olds: object, news: object) {
  const planned = await diff(id, olds, news);
  assert.ok(planned.replaces?.length, "the change replaces");
  return lines;
}

describe("replaceLine", () => {
  it("names each field with why it replaces, then what the replacement does", () => {
    assert.equal(replaceLine("GarmEndpoint ghe", [{ field: "name", why: "the name is the key" }]), "GarmEndpoint ghe: will replace: name (the name is the key)");
    assert.equal(
      replaceLine("GarmPool p-1", [{ field: "providerName", why: "cannot change in GARM" }, { field: "endpoint", why: "cannot change in GARM" }], "the new pool comes up first"),
      "GarmPool p-1: will replace: providerName (cannot change in GARM), endpoint (cannot change in GARM); the new pool comes up first",
    );
  });

  it("logs nothing when there is nothing to replace", () => {
    const lines: string[] = [];
    logReplacements({ info: (l) => lines.push(l), warn: (l) => lines.push(l) }, "GarmScaleSet ci", []);
    assert.deepEqual(lines, []);
  });
});

describe("every resource's replacement line has the same shape", () => {
  it("GarmCredentials", async () => {
    const { lines, deps } = capture();
    const olds = { credentialsId: 3, forge: "github", name: "pat", description: "", endpoint: "github.com", authType: "pat", secretSalt: "s", secretDigest: "d", adoptExisting: false, stateVersion: 1 };
    await diffLines(credentialsProviderWith(deps).diff!, lines, "3", olds, { ...olds, endpoint: "ghe", token: "t" });
    assert.deepEqual(lines, ["GarmCredentials pat (id 3): will replace: endpoint (GARM cannot move credentials to another endpoint)"]);
    assert.match(lines[0]!, SHAPE);
  });

  it("GarmEndpoint", async () => {
    const { lines, deps } = capture();
    const olds = { name: "ghe", forge: "github", description: "", baseUrl: "https://g", apiBaseUrl: "https://g/api", uploadBaseUrl: "", caCertBundle: "", adoptExisting: false, stateVersion: 1 };
    await diffLines(endpointProviderWith(deps).diff!, lines, "ghe", olds, { ...olds, name: "ghe2", forge: "gitea" });
    assert.deepEqual(lines, ["GarmEndpoint ghe: will replace: name (the name is the endpoint's key in GARM), forge (GitHub and Gitea endpoints are separate kinds in GARM)"]);
    assert.match(lines[0]!, SHAPE);
  });

  it("GarmOrganization", async () => {
    const { lines, deps } = capture();
    const olds = { name: "acme", credentials: "pat", entityId: "e-1", entityKind: "organization", endpointName: "github.com", stateVersion: 1 };
    await diffLines(entityMethodsWith("organization", deps).diff!, lines, "e-1", olds, { ...olds, name: "acme2" });
    assert.deepEqual(lines, ['GarmOrganization acme (id e-1): will replace: name (GARM cannot rename a organization: "acme" → "acme2")']);
    assert.match(lines[0]!, SHAPE);
  });

  it("GarmPool keeps what the replacement does after the fields", async () => {
    const { lines, deps } = capture();
    const olds = { organization: "acme", providerName: "fake", image: "i", flavor: "f", labels: ["linux"], maxRunners: 1, entityId: "e-1", poolId: "p-1", stateVersion: 1 };
    await diffLines(poolMethodsWith({ ...deps, now: Date.now, sleep: async () => {} }).diff!, lines, "p-1", olds, { ...olds, providerName: "lxd" });
    assert.deepEqual(lines, ["GarmPool p-1: will replace: providerName (cannot change in GARM); the new pool comes up before this one is drained"]);
    assert.match(lines[0]!, SHAPE);
  });

  it("GarmTemplate", async () => {
    const { lines, deps } = capture();
    const olds = { name: "ci-linux", description: "", body: "#!/bin/bash\n", osType: "linux", forgeType: "github", templateId: 7, adoptExisting: false, stateVersion: 1 };
    const methods = templateMethodsWith({ ...deps, readBody: () => "" });
    await diffLines(methods.diff!, lines, "7", olds, { ...olds, osType: "windows" });
    assert.deepEqual(lines, ["GarmTemplate ci-linux (id 7): will replace: osType (GARM cannot change a template's OS type)"]);
    assert.match(lines[0]!, SHAPE);
  });

  it("GarmScaleSet names what changed", async () => {
    const { lines, deps } = capture();
    const olds = {
      name: "ci", liveName: "ci-0123abcd", organization: "acme", providerName: "fake", image: "i", flavor: "f", labels: ["linux", "small"], maxRunners: 1,
      entityId: "e-1", entityKind: "organization", entityName: "acme", scaleSetId: 12, stateVersion: 1,
    };
    await diffLines(scaleSetMethodsWith({ ...deps, now: Date.now, sleep: async () => {} }).diff!, lines, "12", olds, { ...olds, labels: ["linux", "gpu"], providerName: "lxd" });
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0]!, /^GarmScaleSet ci-0123abcd \(id 12\): will replace: /);
    assert.match(lines[0]!, /providerName \(fake → lxd\)/);
    assert.match(lines[0]!, /labels \(\+gpu -small\)/);
    assert.match(lines[0]!, SHAPE);
  });
});
