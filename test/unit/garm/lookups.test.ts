import { strict as assert } from "node:assert";
import * as sinon from "sinon";
import { GarmApiError } from "../../../provider/garm/errors";
import { GarmLookups } from "../../../provider/garm/lookups";

describe("GARM lookups shared by a provider process", () => {
  it("asks GARM once for many concurrent provider checks", async () => {
    const listProviders = sinon.stub().resolves([{ name: "fake", type: "external", description: "" }]);
    const lookups = new GarmLookups({ listProviders, findEntities: sinon.stub(), listEntityScaleSets: sinon.stub(), getEntity: sinon.stub() });
    await Promise.all(Array.from({ length: 50 }, () => lookups.providersIncluding("fake")));
    assert.equal(listProviders.callCount, 1);
  });

  it("asks again when the cached list lacks the provider (a GarmProvider may have just added it)", async () => {
    const listProviders = sinon.stub();
    listProviders.onFirstCall().resolves([]);
    listProviders.onSecondCall().resolves([{ name: "new", type: "external", description: "" }]);
    const lookups = new GarmLookups({ listProviders, findEntities: sinon.stub(), listEntityScaleSets: sinon.stub(), getEntity: sinon.stub() });
    assert.deepEqual(await lookups.providersIncluding("new"), []);
    assert.equal((await lookups.providersIncluding("new"))[0].name, "new");
    assert.equal(listProviders.callCount, 2);
  });

  it("caches entities found, but not misses or failures", async () => {
    const findEntities = sinon.stub();
    findEntities.onCall(0).rejects(new Error("down"));
    findEntities.onCall(1).resolves([]);
    findEntities.onCall(2).resolves([{ id: "u", name: "acme", endpoint: "github.com" }]);
    const lookups = new GarmLookups({ listProviders: sinon.stub(), findEntities, listEntityScaleSets: sinon.stub(), getEntity: sinon.stub() });
    await assert.rejects(lookups.findEntities("organization", "acme"));
    assert.deepEqual(await lookups.findEntities("organization", "acme"), []);
    assert.equal((await lookups.findEntities("organization", "acme"))[0].id, "u");
    assert.equal((await lookups.findEntities("organization", "acme"))[0].id, "u");
    assert.equal(findEntities.callCount, 3);
  });

  it("finds an entity by id under whichever kind GARM has it, caching a find but not a miss (§2.4)", async () => {
    const notFound = (kind: string) => new GarmApiError("not-found", `GET /${kind}/u`, 404, "not found", "");
    const getEntity = sinon.stub();
    getEntity.withArgs("organization").rejects(notFound("organizations"));
    getEntity.withArgs("repository").resolves({ id: "u", name: "acme/app", endpoint: "github.com" });
    getEntity.withArgs("enterprise").rejects(notFound("enterprises"));
    const lookups = new GarmLookups({ listProviders: sinon.stub(), findEntities: sinon.stub(), listEntityScaleSets: sinon.stub(), getEntity });
    assert.deepEqual(await lookups.entityById("u"), { kind: "repository", id: "u", name: "acme/app", endpoint: "github.com" });
    await lookups.entityById("u");
    assert.equal(getEntity.callCount, 2, "organization, then repository; the second ask is cached");

    getEntity.resetBehavior();
    getEntity.rejects(notFound("any"));
    getEntity.resetHistory();
    assert.equal(await lookups.entityById("missing"), undefined);
    assert.equal(await lookups.entityById("missing"), undefined);
    assert.equal(getEntity.callCount, 6, "a miss is asked again");
  });

  it("fails an id lookup on an error other than not found, and asks again after it", async () => {
    const getEntity = sinon.stub();
    getEntity.onFirstCall().rejects(new GarmApiError("server-error", "GET /organizations/u", 500, "boom", ""));
    getEntity.resolves({ id: "u", name: "acme", endpoint: "github.com" });
    const lookups = new GarmLookups({ listProviders: sinon.stub(), findEntities: sinon.stub(), listEntityScaleSets: sinon.stub(), getEntity });
    await assert.rejects(lookups.entityById("u"), /boom/);
    assert.equal((await lookups.entityById("u"))?.kind, "organization");
  });
});
