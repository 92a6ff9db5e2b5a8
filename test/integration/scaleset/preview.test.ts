// What preview tells before anything changes, through the engine harness against the GARM simulator (issue 13,
// items 3 to 5): unknown references fail at preview, an update names its fields old → new, labels compare as a set.
import { strict as assert } from "node:assert";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GarmClient } from "../../../provider/garm/client";
import { garmProviderProvider } from "../../../sdk/nodejs/shim";
import { ref } from "../../../harness/engine";
import { providerInputs } from "../garm-provider/provider-inputs";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Fixture, apiCalls, mutatingCalls, startFixture } from "./fixture";

describe("GarmScaleSet preview against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("fails preview on a providerName GARM has not loaded, naming what it has, without writing (§4.4, §9.3)", async () => {
    fx = await startFixture();
    const preview = await fx.engine.preview([fx.scaleSet("small", { providerName: "nope" })]);
    assert.equal(preview.ok, false);
    const failures = JSON.stringify(preview.checkFailures.small);
    assert.match(failures, /providerName \\"nope\\" is not a provider GARM has loaded \(it has: fake\)/, failures);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("fails preview on an organization or repository GARM does not know", async () => {
    fx = await startFixture();
    const org = await fx.engine.preview([fx.scaleSet("small", { organization: "nobody" })]);
    assert.match(JSON.stringify(org.checkFailures.small), /organization \\"nobody\\" is not known to GARM/);
    const repo = await fx.engine.preview([fx.scaleSet("small", { organization: undefined, repository: "acme/nothing" })]);
    assert.match(JSON.stringify(repo.checkFailures.small), /repository \\"acme\/nothing\\" is not known to GARM/);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("fails preview on an entityId GARM has under no kind, and passes one it has as a repository, without writing (§2.4)", async () => {
    fx = await startFixture();
    const missing = "0b9e5c1a-2f4d-4e8a-9c3b-7d6e5f4a3b2c";
    const bad = await fx.engine.preview([fx.scaleSet("small", { organization: undefined, entityId: missing })]);
    assert.equal(bad.ok, false);
    const failures = JSON.stringify(bad.checkFailures.small);
    assert.match(failures, new RegExp(`entityId \\\\"${missing}\\\\" is not an organization, repository or enterprise known to GARM`), failures);
    assert.match(failures, /"property":"entityId"/, failures);

    const good = await fx.engine.preview([fx.scaleSet("small", { organization: undefined, entityId: fx.sim.repositoryId })]);
    assert.ok(good.ok, JSON.stringify(good.checkFailures));
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("checks a providerName not known at preview when up knows it, before the scale set is created", async () => {
    fx = await startFixture();
    // b's providerName is a's liveName output: unknown while a is planned for creation, "ci-a-<hash>" once a exists.
    const program = [fx.scaleSet("a", { name: "ci-a" }), fx.scaleSet("b", { name: "ci-b", providerName: ref("a", "liveName") })];
    const preview = await fx.engine.preview(program);
    assert.ok(preview.ok, JSON.stringify(preview.checkFailures));
    fx.sim.clearRequests();
    const up = await fx.engine.up(program);
    assert.equal(up.ok, false);
    assert.match(JSON.stringify(up.checkFailures.b), /providerName \\"ci-a-[0-9a-f]{8}\\" is not a provider GARM has loaded/, JSON.stringify(up));
    assert.deepEqual(
      mutatingCalls(fx.sim).map((r) => r.method),
      ["POST"],
      "only a's create was sent",
    );
    assert.deepEqual(fx.sim.scaleSets().map((s) => s.name.replace(/-[0-9a-f]{8}$/, "")), ["ci-a"]);
  });

  it("does not ask GARM about an existing scale set's unchanged provider, so other changes still plan (§9)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "garm-preview-"));
    try {
      const exe = join(dir, "provider");
      writeFileSync(exe, "#!/bin/sh\nexit 0\n");
      chmodSync(exe, 0o755);
      const config = join(dir, "config.toml");
      const block = (name: string) => `[[provider]]\nname = "${name}"\nprovider_type = "external"\n  [provider.external]\n  provider_executable = "${exe}"\n`;
      writeFileSync(config, `[default]\n\n${block("fake")}\n${block("other")}`);
      fx = await startFixture({ garmConfigPath: config, restartDownMs: 100 });
      assert.ok((await fx.engine.up([fx.scaleSet("small")])).ok);
      writeFileSync(config, `[default]\n\n${block("other")}`);
      await fx.sim.restart();
      const preview = await fx.engine.preview([fx.scaleSet("small", { maxRunners: 5 })]);
      assert.ok(preview.ok, JSON.stringify(preview.checkFailures));
      assert.deepEqual(preview.steps.map((s) => s.op), ["update"]);
      const moved = await fx.engine.preview([fx.scaleSet("small", { providerName: "gone" })]);
      assert.match(JSON.stringify(moved.checkFailures.small), /providerName \\"gone\\" is not a provider GARM has loaded \(it has: other\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes the preview of a new GarmProvider and a scale set using its name, which GARM loads only at up (§9)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "garm-preview-"));
    try {
      const executable = join(dir, "provider");
      writeFileSync(executable, "#!/bin/sh\nexit 0\n");
      chmodSync(executable, 0o755);
      const configFile = join(dir, "config.toml");
      writeFileSync(configFile, "# GARM config\n");
      fx = await startFixture({ garmConfigPath: configFile, restartDownMs: 100 });
      const program = [
        { name: "lxd", type: "GarmProvider", module: "garm", provider: garmProviderProvider, inputs: providerInputs({ url: fx.sim.url, executable, configFile }, "lxd") },
        fx.scaleSet("small", { providerName: ref("lxd", "name") }),
      ];
      const preview = await fx.engine.preview(program);
      assert.ok(preview.ok, JSON.stringify(preview.checkFailures));
      assert.deepEqual(mutatingCalls(fx.sim), []);
      const up = await fx.engine.up(program);
      assert.ok(up.ok, JSON.stringify(up.errors));
      assert.equal(fx.sim.scaleSets()[0]?.providerName, "lxd");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("checks 10 scale sets' references with a few GETs, and passes preview with one warning when GARM is down", async () => {
    fx = await startFixture();
    const program = Array.from({ length: 10 }, (_, i) => fx.scaleSet(`s${i}`, { name: `ci-${i}` }));
    fx.sim.clearRequests();
    const preview = await fx.engine.preview(program);
    assert.ok(preview.ok, JSON.stringify(preview.checkFailures));
    assert.ok(apiCalls(fx.sim).length <= 3, JSON.stringify(apiCalls(fx.sim).map((r) => `${r.method} ${r.path}`)));
    fx.sim.stopServing("refuse");
    const down = await fx.engine.preview(program);
    assert.ok(down.ok, JSON.stringify(down.checkFailures));
    const warnings = down.logs.filter((l) => /could not read GARM/.test(l));
    assert.equal(warnings.length, 1, down.logs.join("\n"));
  });

  it("after a refresh picked up an outside change, names the fields an update changes, old → new", async () => {
    fx = await startFixture();
    const program = [fx.scaleSet("small", { maxRunners: 3 })];
    assert.ok((await fx.engine.up(program)).ok);
    const [ss] = fx.sim.scaleSets();
    const rest = new GarmClient({ url: fx.sim.url, username: fx.sim.username, password: fx.sim.password });
    await rest.updateScaleSet(ss.id, { max_runners: 10, enabled: false });
    assert.ok((await fx.engine.refresh()).ok);

    const preview = await fx.engine.preview(program);
    assert.deepEqual(preview.steps.map((s) => s.op), ["update"]);
    const line = preview.logs.find((l) => l.includes("will update"));
    assert.ok(line, preview.logs.join("\n"));
    assert.match(line, new RegExp(`GarmScaleSet ${ss.name} \\(id ${ss.id}\\): will update enabled false → true, maxRunners 10 → 3$`));

    assert.ok((await fx.engine.up(program)).ok);
    const again = await fx.engine.preview(program);
    assert.deepEqual(again.steps.map((s) => s.op), ["same"]);
    assert.ok(!again.logs.some((l) => l.includes("will update")), "no line for a no-op");
  });

  it("names a label change as labels added and removed, not positions", async () => {
    fx = await startFixture();
    assert.ok((await fx.engine.up([fx.scaleSet("small", { labels: ["linux", "small", "x64"] })])).ok);
    const [ss] = fx.sim.scaleSets();
    const preview = await fx.engine.preview([fx.scaleSet("small", { labels: ["linux", "gpu", "x64"] })]);
    assert.equal(preview.steps[0]?.op, "replace");
    const line = preview.logs.find((l) => l.includes("will replace"));
    assert.ok(line, preview.logs.join("\n"));
    assert.match(line, new RegExp(`GarmScaleSet ${ss.name} \\(id ${ss.id}\\): will replace: labels \\(\\+gpu -small\\)$`));
  });
});

describe("GarmScaleSet on a live name another stack holds (issue 13 item 6)", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("refuses before sending a create, tells a pulumi-garm scale set by its name's hash, and warns what adopting means (§8)", async () => {
    fx = await startFixture();
    assert.ok((await fx.engine.up([fx.scaleSet("small")])).ok);
    const [theirs] = fx.sim.scaleSets();
    const other = engineForGarm(fx.sim, "scaleset-it", "other");
    fx.sim.clearRequests();
    const refused = await other.up([fx.scaleSet("twin")]);
    assert.equal(refused.ok, false);
    const message = String(refused.errors.twin);
    assert.match(message, new RegExp(`a scale set named ${theirs.name} already exists under organization acme \\(GARM id ${theirs.id}\\)`), message);
    assert.match(message, /a pulumi-garm stack made it/, message);
    assert.match(message, /two stacks manage one scale set and either stack's `pulumi destroy` deletes it/, message);
    assert.deepEqual(mutatingCalls(fx.sim), [], "the duplicate is found before the create is sent, not by GitHub's refusal");

    const adopted = await other.up([fx.scaleSet("twin", { adoptExisting: true })]);
    assert.ok(adopted.ok, JSON.stringify(adopted.errors));
    assert.ok(
      adopted.logs.some((l) => /adopting the existing scale set .*which a pulumi-garm stack made and this stack has no record of.*either stack's `pulumi destroy` deletes it/.test(l)),
      adopted.logs.join("\n"),
    );
  });

  it("says a scale set made outside pulumi-garm's hashed naming does not show who made it", async () => {
    fx = await startFixture();
    const rest = new GarmClient({ url: fx.sim.url, username: fx.sim.username, password: fx.sim.password });
    const [org] = await rest.findEntities("organization", "acme");
    await rest.createScaleSet(
      { kind: "organization", id: org.id },
      { name: "ci-manual", provider_name: "fake", image: "i", flavor: "f", os_type: "linux", os_arch: "amd64", labels: ["linux"], max_runners: 1, min_idle_runners: 0 } as never,
    );
    fx.sim.clearRequests();
    const refused = await fx.engine.up([fx.scaleSet("manual", { name: "ci-manual", naming: "exact", labels: ["linux"] })]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.manual), /its name does not show who made it/);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });
});

describe("GarmScaleSet create when GARM cannot be reached", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it("does not claim Pulumi keeps a resource that it never recorded", async () => {
    fx = await startFixture();
    fx.sim.stopServing("refuse");
    const up = await fx.engine.up([fx.scaleSet("small")]);
    assert.equal(up.ok, false);
    const message = String(up.errors.small);
    assert.match(message, /check that GARM is running and garm:url is right, then run again/, message);
    assert.doesNotMatch(message, /Pulumi keeps the resource/, message);
    assert.equal(fx.engine.state().resources.find((r) => r.name === "small"), undefined);
  });
});
