// One check reports every failure of an input set (issue 27 item 9): a type failure in one field no longer hides the
// rules of the others, so a user fixes a program in one round instead of one field per preview.
import { strict as assert } from "node:assert";
import * as front from "../../provider";

const properties = async (provider: { check?: (o: Record<string, unknown>, n: Record<string, unknown>) => Promise<{ failures?: { property: string }[] }> }, news: Record<string, unknown>) =>
  ((await provider.check!({}, news)).failures ?? []).map((f) => f.property).sort();

describe("check reports every failure at once", () => {
  it("GarmScaleSet: an invalid osType hides neither the name, the labels nor maxRunners", async () => {
    const news = { name: "bad name", organization: "acme", providerName: "fake", image: "img", flavor: "f", osType: "macos", labels: ["ok", "a b"], maxRunners: 1.5 };
    assert.deepEqual(await properties(front.scaleSet, news), ["labels[1]", "maxRunners", "name", "osType"]);
  });

  it("GarmScaleSet: a missing field, a wrong type and a rule at once", async () => {
    const news = { name: "ci", organization: "acme", providerName: "", flavor: "f", enabled: "yes", labels: ["x"], maxRunners: 2, minIdleRunners: 3 };
    assert.deepEqual(await properties(front.scaleSet, news), ["enabled", "image", "minIdleRunners", "providerName"]);
  });

  it("GarmPool: a wrong type beside the entity and label rules", async () => {
    const news = { providerName: "fake", image: "img", flavor: "f", osArch: "sparc", labels: [], maxRunners: 1 };
    assert.deepEqual(await properties(front.pool, news), ["labels", "organization", "osArch"]);
  });

  it("GarmCredentials: a name rule beside a wrong type", async () => {
    assert.deepEqual(await properties(front.credentials, { name: "", endpoint: "github.com", token: "t", appId: "one" }), ["appId", "name"]);
  });

  it("GarmEndpoint: a bad URL beside a wrong type", async () => {
    const news = { name: "ghe", baseUrl: "ftp://x", apiBaseUrl: "https://x/api/v3/", uploadBaseUrl: "https://x/up/", adoptExisting: 1 };
    assert.deepEqual(await properties(front.endpoint, news), ["adoptExisting", "baseUrl"]);
  });

  it("GarmOrganization: a bad name beside a wrong balancer", async () => {
    assert.deepEqual(await properties(front.organization, { name: "a/b", credentials: "c", webhookSecret: "s", poolBalancerType: "random" }), ["name", "poolBalancerType"]);
  });

  it("GarmTemplate: an empty name beside a wrong OS", async () => {
    assert.deepEqual(await properties(front.template, { name: " ", osType: "macos", body: "x" }), ["name", "osType"]);
  });
});
