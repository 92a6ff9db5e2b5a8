// pulumi-resource-garm over its gRPC protocol, against GARM simulators: the calls the engine makes for preview, up,
// replace, import and destroy, and two provider instances reaching two GARMs.
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { GetSchemaRequest } from "@pulumi/pulumi/proto/provider_pb";
import { GarmClient } from "../../../provider/garm/client";
import { SECRET_SIG, SIG_KEY } from "../../../provider-plugin/protocol";
import { type Simulator, startSimulator } from "../../../simulator";
import { type PluginProcess, secret, servePluginInProcess, settingsOf, startPlugin } from "../../../harness/plugin-process";

const SCALE_SET = "garm:index:GarmScaleSet";
const inputs = {
  name: "ci-small",
  organization: "acme",
  providerName: "fake",
  image: "ubuntu-24.04",
  flavor: "small",
  labels: ["linux", "x64"],
  maxRunners: 3,
  drain: { timeoutSeconds: 20, pollSeconds: 1 },
};

describe("pulumi-resource-garm protocol (plugin process against the GARM simulator)", function () {
  this.timeout(60_000);
  let sims: Simulator[] = [];
  let plugins: PluginProcess[] = [];

  afterEach(async () => {
    await Promise.all(plugins.map((p) => p.stop()));
    await Promise.all(sims.map((s) => s.stop()));
    plugins = [];
    sims = [];
  });

  async function simulator(): Promise<Simulator> {
    const sim = await startSimulator({ tickMs: 25, consolidationMs: 300 });
    sims.push(sim);
    return sim;
  }

  async function plugin(env: NodeJS.ProcessEnv = {}): Promise<PluginProcess> {
    const p = await startPlugin(env);
    plugins.push(p);
    return p;
  }

  it("serves a schema with the plugin's tokens, a secret password and the explicit provider's inputs", async () => {
    const p = await plugin();
    const res = await p.call<GetSchemaRequest, proto.GetSchemaResponse>("getSchema", new GetSchemaRequest());
    const schema = JSON.parse(res.getSchema());
    assert.deepEqual(Object.keys(schema.resources).sort(), [
      "garm:index:GarmController",
      "garm:index:GarmCredentials",
      "garm:index:GarmEndpoint",
      "garm:index:GarmEnterprise",
      "garm:index:GarmOrganization",
      "garm:index:GarmPool",
      "garm:index:GarmProvider",
      "garm:index:GarmRepository",
      "garm:index:GarmScaleSet",
      "garm:index:GarmTemplate",
      "garm:index:ScaleSet",
    ]);
    assert.deepEqual(schema.resources[SCALE_SET].aliases, [{ type: "garm:index:ScaleSet" }], "state under the earlier token follows the class");
    assert.match(schema.resources["garm:index:ScaleSet"].deprecationMessage, /use GarmScaleSet/);
    assert.equal(schema.resources["garm:index:GarmOrganization"].inputProperties.webhookSecret.secret, true);
    assert.equal(schema.provider.inputProperties.password.secret, true);
    assert.equal(schema.config.variables.password.secret, true);
    assert.equal(schema.resources[SCALE_SET].inputProperties.labels.willReplaceOnChanges, true);
    const committed = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "..", "schema.json"), "utf8"));
    assert.deepEqual(schema, committed, "the plugin serves the checked-in schema.json");
  });

  it("creates, diffs in detail, updates and deletes a scale set with the same code as the dynamic provider", async () => {
    const sim = await simulator();
    const p = await plugin();
    await p.configure(settingsOf(sim));

    const checked = await p.check(SCALE_SET, "small", inputs);
    assert.deepEqual(checked.failures, []);
    assert.equal(checked.inputs.minIdleRunners, 0, "check fills the defaults, as for the dynamic provider");
    const bad = await p.check(SCALE_SET, "small", { ...inputs, maxRunners: -1 });
    assert.match(bad.failures.join("\n"), /maxRunners/);

    const created = await p.create(SCALE_SET, "small", checked.inputs);
    assert.match(String(created.outs.liveName), /^ci-small-[0-9a-f]{8}$/);
    assert.deepEqual(sim.scaleSets().map((s) => [s.id, s.name]), [[Number(created.id), created.outs.liveName]]);

    const same = await p.diff(SCALE_SET, "small", created.id, created.outs, checked.inputs, checked.inputs);
    assert.equal(same.getChanges(), proto.DiffResponse.DiffChanges.DIFF_NONE);

    const relabelled = (await p.check(SCALE_SET, "small", { ...inputs, labels: ["linux", "x64", "gpu"] })).inputs;
    const replace = await p.diff(SCALE_SET, "small", created.id, created.outs, relabelled, checked.inputs);
    assert.equal(replace.getChanges(), proto.DiffResponse.DiffChanges.DIFF_SOME);
    assert.deepEqual(replace.getReplacesList(), ["labels"]);
    assert.equal(replace.getDeletebeforereplace(), false, "hashed names: the new generation comes up first");
    assert.equal(replace.getHasdetaileddiff(), true);
    assert.equal(replace.getDetaileddiffMap().get("labels")?.getKind(), proto.PropertyDiff.Kind.UPDATE_REPLACE);

    const bigger = (await p.check(SCALE_SET, "small", { ...inputs, maxRunners: 5 })).inputs;
    const update = await p.diff(SCALE_SET, "small", created.id, created.outs, bigger, checked.inputs);
    assert.deepEqual(update.getReplacesList(), []);
    assert.deepEqual([...update.getDetaileddiffMap().entries()].map(([k, v]) => [k, v.getKind()]), [["maxRunners", proto.PropertyDiff.Kind.UPDATE]]);
    // Drift a refresh read (outputs 9, inputs unchanged) is marked, its old value shown from the outputs.
    const drifted = await p.diff(SCALE_SET, "small", created.id, { ...created.outs, maxRunners: 9 }, checked.inputs, checked.inputs);
    assert.equal(drifted.getChanges(), proto.DiffResponse.DiffChanges.DIFF_SOME);
    assert.deepEqual([...drifted.getDetaileddiffMap().entries()].map(([k, v]) => [k, v.getKind(), v.getInputdiff()]), [["maxRunners", proto.PropertyDiff.Kind.UPDATE, false]]);
    assert.deepEqual(drifted.getDiffsList(), ["maxRunners"]);
    const updated = await p.update(SCALE_SET, "small", created.id, created.outs, bigger);
    assert.equal(updated.maxRunners, 5);
    assert.equal(sim.scaleSets()[0].maxRunners, 5);

    await p.delete(SCALE_SET, "small", created.id, updated);
    assert.deepEqual(sim.scaleSets(), []);
  });

  it("imports a scale set created over REST, and the imported inputs diff as no change (§3.1)", async () => {
    const sim = await simulator();
    const rest = new GarmClient({ url: sim.url, username: sim.username, password: sim.password });
    const made = await rest.createScaleSet(
      { kind: "organization", id: sim.organizationId },
      { name: "legacy-set", provider_name: "fake", image: "img", flavor: "big", os_type: "linux", os_arch: "arm64", labels: ["Self-Hosted", "arm"], max_runners: 4, min_idle_runners: 1, enabled: true },
    );
    const p = await plugin();
    await p.configure(settingsOf(sim));
    const imported = await p.read(SCALE_SET, "legacy", String(made.id));
    assert.equal(imported.id, String(made.id));
    assert.equal(imported.inputs.name, "legacy-set");
    assert.equal(imported.inputs.naming, "exact", "a name without this package's hash is kept as it is");
    assert.equal(imported.inputs.organization, "acme");
    assert.equal(imported.props.scaleSetId, made.id);
    const checked = await p.check(SCALE_SET, "legacy", imported.inputs, imported.inputs);
    assert.deepEqual(checked.failures, []);
    const diff = await p.diff(SCALE_SET, "legacy", imported.id, imported.props, checked.inputs, imported.inputs);
    assert.equal(diff.getChanges(), proto.DiffResponse.DiffChanges.DIFF_NONE, JSON.stringify(diff.getDiffsList()));
    await assert.rejects(p.read(SCALE_SET, "nope", "abc"), /scale set id "abc" is not a GARM id: give the number as garm-cli scaleset list shows it/);
  });

  it("two provider instances reach two GARMs (one connection per instance)", async () => {
    const [a, b] = [await simulator(), await simulator()];
    const [pa, pb] = [await plugin(), await plugin()];
    await pa.configure(settingsOf(a));
    await pb.configure(settingsOf(b));
    const ia = (await pa.check(SCALE_SET, "a", { ...inputs, name: "in-a" })).inputs;
    const ib = (await pb.check(SCALE_SET, "b", { ...inputs, name: "in-b" })).inputs;
    await Promise.all([pa.create(SCALE_SET, "a", ia), pb.create(SCALE_SET, "b", ib)]);
    assert.deepEqual(a.scaleSets().map((s) => s.name.replace(/-[0-9a-f]{8}$/, "")), ["in-a"]);
    assert.deepEqual(b.scaleSets().map((s) => s.name.replace(/-[0-9a-f]{8}$/, "")), ["in-b"]);
  });

  it("a name a GarmProvider or organization declares for one GARM does not pass the other GARM's preview check", async () => {
    const [a, b] = [await simulator(), await simulator()];
    // Two provider instances in one process: what one keeps process-wide, the other would see.
    const [pa, pb] = [await servePluginInProcess(), await servePluginInProcess()];
    plugins.push(pa, pb);
    await pa.configure(settingsOf(a));
    await pb.configure(settingsOf(b));
    await pa.check("garm:index:GarmProvider", "lxd", { name: "lxd" });
    const org = await pa.check("garm:index:GarmOrganization", "newco", { name: "newco", credentials: "acme-pat", webhookSecret: "s3cret-s3cret" });
    assert.deepEqual(org.failures, []);
    const declared = { ...inputs, providerName: "lxd", organization: "newco" };
    assert.deepEqual((await pa.check(SCALE_SET, "in-a", declared)).failures, [], "declared for GARM a: its preview trusts them");
    const other = (await pb.check(SCALE_SET, "in-b", declared)).failures.join("\n");
    assert.match(other, /providerName: providerName "lxd" is not a provider GARM has loaded/);
    assert.match(other, /organization: organization "newco" under endpoint .* is not known to GARM|organization: organization "newco" is not known to GARM/);
  });

  it("falls back to GARM_* variables when the provider config is empty, and keeps secret inputs secret", async () => {
    const sim = await simulator();
    const p = await plugin({ GARM_URL: sim.url, GARM_USERNAME: sim.username, GARM_PASSWORD: sim.password });
    await p.configure({});
    const checked = await p.check(SCALE_SET, "env", { ...inputs, extraSpecs: secret('{"token":"s3cret"}') });
    assert.deepEqual(checked.inputs.extraSpecs, secret('{"token":"s3cret"}'));
    const created = await p.create(SCALE_SET, "env", checked.inputs);
    assert.equal((created.outs.extraSpecs as Record<string, unknown>)[SIG_KEY], SECRET_SIG, "a secret input stays secret as an output");
    assert.equal(sim.scaleSets().length, 1);
    assert.ok(!p.output.join("\n").includes("s3cret"), "the secret never reaches the plugin's output");
  });

  it("says which setting is missing when neither config nor environment gives one", async () => {
    const p = await plugin();
    await p.configure({});
    const checked = await p.check(SCALE_SET, "x", inputs);
    assert.deepEqual(checked.failures, [], "check needs no GARM");
    await assert.rejects(p.create(SCALE_SET, "x", checked.inputs), /garm:url is not set/);
  });
});
