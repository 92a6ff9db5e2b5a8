// GarmTemplate and GarmPool through pulumi-resource-garm's gRPC protocol against the GARM simulator: the same provider/
// code as the dynamic provider, so a YAML or Python program gets the same in-place body change and the same drain, and
// `pulumi import` of either reads it as it stands.
import { strict as assert } from "node:assert";
import { type PluginOnSimulator, startPluginOnSimulator } from "../../../harness/plugin-process";

const TEMPLATE = "garm:index:GarmTemplate";
const POOL = "garm:index:GarmPool";

describe("pulumi-resource-garm: GarmTemplate and GarmPool", function () {
  this.timeout(60_000);
  let fx: PluginOnSimulator | undefined;
  afterEach(async () => fx?.close());

  it("creates a template and a pool using it, changes the body in place, imports both as they stand, and deletes the pool before the template", async () => {
    fx = await startPluginOnSimulator({ tickMs: 25, consolidationMs: 300 });
    const { sim, plugin: p } = fx;

    const tpl = await p.check(TEMPLATE, "tpl", { name: "plugin-linux", body: "#!/bin/bash\necho one\n" });
    assert.deepEqual(tpl.failures, []);
    const tplMade = await p.create(TEMPLATE, "tpl", tpl.inputs);
    assert.equal(sim.templates().find((t) => t.name === "plugin-linux")?.id, Number(tplMade.id));

    const pool = await p.check(POOL, "pool", {
      organization: "acme",
      providerName: "fake",
      image: "ubuntu-24.04",
      flavor: "small",
      labels: ["linux", "plugin"],
      maxRunners: 2,
      templateId: tplMade.outs.templateId,
      drain: { timeoutSeconds: 10, pollSeconds: 1 },
    });
    assert.deepEqual(pool.failures, []);
    const poolMade = await p.create(POOL, "pool", pool.inputs);
    assert.equal(sim.pools().length, 1);

    const edited = (await p.check(TEMPLATE, "tpl", { name: "plugin-linux", body: "#!/bin/bash\necho two\n" })).inputs;
    const diff = await p.diff(TEMPLATE, "tpl", tplMade.id, tplMade.outs, edited, tpl.inputs);
    assert.deepEqual(diff.getReplacesList(), [], "a body change is an in-place update");
    const tplUpdated = await p.update(TEMPLATE, "tpl", tplMade.id, tplMade.outs, edited);

    // An import (a read with no state) states the inputs that reproduce each, naming the template by its id.
    const poolImported = await p.read(POOL, "pool", poolMade.id);
    assert.equal(poolImported.id, poolMade.id);
    assert.equal(poolImported.props.poolId, poolMade.id);
    assert.deepEqual(
      { organization: poolImported.inputs.organization, labels: poolImported.inputs.labels, templateId: poolImported.inputs.templateId, maxRunners: poolImported.inputs.maxRunners },
      { organization: "acme", labels: ["linux", "plugin"], templateId: tplMade.outs.templateId, maxRunners: 2 },
    );
    const tplImported = await p.read(TEMPLATE, "tpl", tplMade.id);
    assert.deepEqual(
      { name: tplImported.inputs.name, body: tplImported.inputs.body },
      { name: "plugin-linux", body: "#!/bin/bash\necho two\n" },
    );
    await assert.rejects(p.delete(TEMPLATE, "tpl", tplMade.id, tplUpdated), /pool/, "a template a pool uses is not deleted");

    await p.delete(POOL, "pool", poolMade.id, poolMade.outs);
    await p.delete(TEMPLATE, "tpl", tplMade.id, tplUpdated);
    assert.equal(sim.pools().length, 0);
    assert.equal(sim.templates().some((t) => t.name === "plugin-linux"), false);
  });
});
