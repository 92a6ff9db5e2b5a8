// pulumi-resource-garm's Invoke, over gRPC against the GARM simulator: each function the schema declares answers, a bad
// argument comes back as a failure naming it, a look-up that names nothing fails with what GARM holds nearest, and the
// calls of one plugin share one login.
import { strict as assert } from "node:assert";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { type PluginProcess, settingsOf, startPlugin } from "../../../harness/plugin-process";
import { type Simulator, startSimulator } from "../../../simulator";

describe("pulumi-resource-garm Invoke (plugin process against the GARM simulator)", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let plugin: PluginProcess;

  before(async () => {
    sim = await startSimulator({ tickMs: 0 });
    plugin = await startPlugin();
    sim.clearRequests();
    await plugin.configure(settingsOf(sim));
  });

  after(async () => {
    await plugin.stop();
    await sim.stop();
  });

  async function invoke(fn: string, args: Record<string, unknown>): Promise<proto.InvokeResponse> {
    const req = new proto.InvokeRequest();
    req.setTok(`garm:index:${fn}`);
    req.setArgs(Struct.fromJavaScript(args as never));
    return plugin.call<proto.InvokeRequest, proto.InvokeResponse>("invoke", req);
  }

  const answer = async (fn: string, args: Record<string, unknown> = {}) => {
    const res = await invoke(fn, args);
    assert.deepEqual(res.getFailuresList().map((f) => f.getReason()), []);
    return res.getReturn()!.toJavaScript() as Record<string, unknown>;
  };

  it("answers every function from the simulator's GARM, with one login for Configure's check and all of them", async () => {
    assert.equal((await answer("getController")).controllerId, sim.controllerId());
    assert.deepEqual(await answer("getProviders"), { providers: [{ name: "fake", type: "external", description: "fake provider for tests" }] });
    assert.equal((await answer("getEndpoint", { name: "github.com" })).forge, "github");
    assert.equal((await answer("getCredentials", { name: "ACME-PAT" })).name, "acme-pat");
    assert.equal((await answer("getOrganization", { name: "acme" })).id, sim.organizationId);
    assert.equal((await answer("getRepository", { name: "acme/app" })).id, sim.repositoryId);
    assert.equal((await answer("getTemplate", { forge: "gitea", osType: "linux" })).name, "gitea_linux");
    assert.ok(((await answer("getTemplates", { forge: "github" })).templates as unknown[]).length >= 2);
    const poolId = sim.addPool("fake");
    sim.addPoolRunner(poolId, { name: "pool-runner-1", runnerStatus: "active" });
    assert.equal((await answer("getPool", { id: poolId })).runnerCount, 1);
    assert.deepEqual(((await answer("getRunners", { poolId })).runners as { name: string }[]).map((r) => r.name), ["pool-runner-1"]);
    assert.equal(sim.requests().filter((r) => r.path.endsWith("/auth/login")).length, 1);
    assert.ok(sim.requests().every((r) => r.method === "GET" || r.path.endsWith("/auth/login")));
  });

  it("a bad argument is a failure naming it; a look-up that names nothing fails with what GARM holds nearest", async () => {
    const bad = await invoke("getTemplate", { forge: "gitlab", osType: "linux" });
    assert.deepEqual(bad.getFailuresList().map((f) => f.getProperty()), ["forge"]);
    assert.match(bad.getFailuresList()[0]!.getReason(), /^getTemplate: .*"github"\|"gitea"/);
    await assert.rejects(invoke("getOrganization", { name: "acne" }), /getOrganization: GARM has no organization named "acne"; nearest it holds: acme \(endpoint github\.com\)/);
    await assert.rejects(invoke("getNothing", {}), /pulumi-resource-garm has no function garm:index:getNothing/);
  });
});
