// The one dependents guard (provider/common/dependents.ts) every kind's delete asks: it names each user, whichever
// stack manages it, on one line with what to do, and keeps the object when a list of users cannot be read.
import { strict as assert } from "node:assert";
import { type DependentList, endpointUsers, listDependents, refusalOf } from "../../provider/common/dependents";
import type { EntityCalls, ForgeCalls } from "../../provider/garm/client";
import { entityRefusalWords, entityUsers } from "../../provider/kinds/entity/guard";

const words = { label: "GarmThing t", why: "GARM refuses to delete a thing still in use", remedy: "Delete those first, then run again" };
const answering = (what: string, ...found: { kind: string; name?: string; id: string; detail?: string }[]): DependentList => ({ what, list: async () => found });
const failing = (what: string, message: string): DependentList => ({ what, list: async () => Promise.reject(new Error(message)) });

describe("dependents guard", () => {
  it("says nothing when every list answers empty", async () => {
    assert.equal(refusalOf(await listDependents([answering("pools"), answering("scale sets")]), words), undefined);
  });

  it("names each user of an entity on one line with what to do", async () => {
    const api = {
      listEntityScaleSets: async () => [{ id: 3, name: "ci-small-1a2b3c4d", providerName: "fake" }],
      listEntityPools: async () => [{ id: "7f3c0e2a", providerName: "lxd" }],
    } as unknown as Pick<EntityCalls, "listEntityScaleSets" | "listEntityPools">;
    const refused = refusalOf(await listDependents(entityUsers(api, "organization", "x")), entityRefusalWords("GarmOrganization acme (id x)", "organization"));
    assert.ok(refused);
    assert.ok(!refused.message.includes("\n"));
    assert.match(refused.message, /^GarmOrganization acme \(id x\): not deleted, because GARM refuses to delete an organization that has scale sets or pools; it is used by scale set "ci-small-1a2b3c4d" \(id 3, provider fake\), pool 7f3c0e2a \(provider lxd\)\. Remove those first/);
    assert.match(refused.message, /never deletes them for you/);
  });

  it("keeps the object when a list cannot be read, though the others answered empty", async () => {
    const refused = refusalOf(await listDependents([answering("scale sets"), failing("pools", "GET /pools: connection refused")]), words);
    assert.ok(refused, "a user that cannot be listed keeps the object");
    assert.match(refused.message, /^GarmThing t: not deleted, because GARM could not be asked what still uses it \(pools: GET \/pools: connection refused\)/);
  });

  it("names the users it found and the lists it could not read", async () => {
    const refused = refusalOf(await listDependents([answering("scale sets", { kind: "scale set", name: "a", id: "1" }), failing("pools", "boom")]), words);
    assert.match(refused!.message, /it is used by scale set "a" \(id 1\) \(and GARM did not list its pools\)\. Delete those first/);
  });

  it("counts credentials on an endpoint named in another case: GARM's endpoint key ignores case", async () => {
    const api = {
      listCredentials: async () => [{ id: 7, name: "acme-pat", endpoint: "github.com" }],
      listEntities: async () => [],
    } as unknown as Pick<ForgeCalls, "listCredentials" | "listEntities">;
    const found = await listDependents(endpointUsers(api, "github", "GitHub.com"));
    assert.deepEqual(found.found.map((d) => `${d.kind} ${d.name}`), ["credentials acme-pat"]);
  });
});
