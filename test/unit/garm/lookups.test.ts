import { strict as assert } from "node:assert";
import * as sinon from "sinon";
import { GarmLookups } from "../../../provider/garm/lookups";

describe("GARM lookups shared by a provider process", () => {
  it("asks GARM once for many concurrent provider checks", async () => {
    const listProviders = sinon.stub().resolves([{ name: "fake", type: "external", description: "" }]);
    const lookups = new GarmLookups({ listProviders, findEntities: sinon.stub(), listEntityScaleSets: sinon.stub() });
    await Promise.all(Array.from({ length: 50 }, () => lookups.providersIncluding("fake")));
    assert.equal(listProviders.callCount, 1);
  });

  it("asks again when the cached list lacks the provider (a GarmProvider may have just added it)", async () => {
    const listProviders = sinon.stub();
    listProviders.onFirstCall().resolves([]);
    listProviders.onSecondCall().resolves([{ name: "new", type: "external", description: "" }]);
    const lookups = new GarmLookups({ listProviders, findEntities: sinon.stub(), listEntityScaleSets: sinon.stub() });
    assert.deepEqual(await lookups.providersIncluding("new"), []);
    assert.equal((await lookups.providersIncluding("new"))[0].name, "new");
    assert.equal(listProviders.callCount, 2);
  });

  it("caches entities found, but not misses or failures", async () => {
    const findEntities = sinon.stub();
    findEntities.onCall(0).rejects(new Error("down"));
    findEntities.onCall(1).resolves([]);
    findEntities.onCall(2).resolves([{ id: "u", name: "acme", endpoint: "github.com" }]);
    const lookups = new GarmLookups({ listProviders: sinon.stub(), findEntities, listEntityScaleSets: sinon.stub() });
    await assert.rejects(lookups.findEntities("organization", "acme"));
    assert.deepEqual(await lookups.findEntities("organization", "acme"), []);
    assert.equal((await lookups.findEntities("organization", "acme"))[0].id, "u");
    assert.equal((await lookups.findEntities("organization", "acme"))[0].id, "u");
    assert.equal(findEntities.callCount, 3);
  });
});
