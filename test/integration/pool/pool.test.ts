// GarmPool scenarios through the engine harness against the GARM simulator (issue 16).
import { strict as assert } from "node:assert";
import { listDependents, scaleSetsAndPoolsWhere } from "../../../provider/common/dependents";
import { type Fixture, mutatingCalls, poolDecl, sleep, startFixture } from "../scaleset/fixture";
import { Client } from "../simulator/helpers";

const pool = poolDecl;

describe("GarmPool against the GARM simulator", function () {
  this.timeout(90_000);
  let fx: Fixture;
  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(async () => fx?.close());
  const poolIdOf = (name: string) => fx.engine.state().resources.find((r) => r.name === name)?.id ?? "";

  it("creates under the organization with its tags and bootstrap timeout, refreshes, and an unchanged up makes no mutating call", async () => {
    const program = [pool("p")];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [held] = fx.sim.pools();
    assert.equal(held?.entityId, fx.sim.organizationId);
    assert.equal(held?.enabled, true);
    // GARM stores 0 when the create omits it (runner/organizations.go L213-220); the resource always sends it.
    assert.equal(held?.runnerBootstrapTimeout, 20);
    const state = fx.engine.state().resources.find((r) => r.name === "p");
    assert.equal(state?.id, held?.id);
    assert.deepEqual(state?.outputs.labels, ["linux", "x64"]);
    assert.equal(state?.outputs.templateName, "github_linux");

    assert.ok((await fx.engine.refresh()).ok);
    fx.sim.clearRequests();
    const again = await fx.engine.up(program);
    assert.ok(again.ok, JSON.stringify(again.errors));
    assert.deepEqual(again.same, ["p"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("a Gitea pool keeps Gitea's install template: an unchanged up plans nothing, an OS change sends gitea_windows", async () => {
    const rest = new Client(fx.sim);
    await rest.login();
    const made = [
      await rest.post("/gitea/endpoints", { name: "gitea", base_url: "https://gitea.test", api_base_url: "https://gitea.test/api/v1" }),
      await rest.post("/gitea/credentials", { name: "gitea-token", endpoint: "gitea", auth_type: "pat", pat: { oauth2_token: "gitea-token-1" } }),
      await rest.post("/organizations", { name: "forgejo", credentials_name: "gitea-token", webhook_secret: "s", forge_type: "gitea" }),
    ];
    for (const r of made) assert.equal(r.status, 200, r.text);
    const program = [pool("g", { organization: "forgejo", endpoint: "gitea" })];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    // GARM's findTemplate picks the system template of the entity's forge (runner/repositories.go L208-246).
    assert.equal(fx.engine.state().resources.find((r) => r.name === "g")?.outputs.templateName, "gitea_linux");

    fx.sim.clearRequests();
    const again = await fx.engine.up(program);
    assert.ok(again.ok, JSON.stringify(again.errors));
    assert.deepEqual(again.same, ["g"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);

    const windows = await fx.engine.up([pool("g", { organization: "forgejo", endpoint: "gitea", osType: "windows" })]);
    assert.ok(windows.ok, JSON.stringify(windows.errors));
    const gitea = fx.sim.templates().find((t) => t.name === "gitea_windows");
    assert.equal(fx.sim.pools().find((p) => p.id === poolIdOf("g"))?.templateId, gitea?.id);
  });

  it("labels that fold into tags another pool made, read back in tag-creation order: refresh and up plan nothing", async () => {
    // "second" waits for "first": the folding below needs first's tags to exist before second's create.
    const program = [pool("first", { labels: ["x64", "linux"] }), { ...pool("second", { labels: ["GPU", "X64", "Linux"], extraSpecs: { disk: 50 } }), dependsOn: ["first"] }];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const rest = new Client(fx.sim);
    await rest.login();
    const held = (await rest.get(`/pools/${poolIdOf("second")}`)).body as { tags: { name: string }[] };
    // The first pool's tags come first; X64 and Linux fold into them (database/sql/util.go L560-577).
    assert.deepEqual(held.tags.map((t) => t.name), ["x64", "linux", "GPU"]);
    assert.deepEqual(fx.engine.state().resources.find((r) => r.name === "second")?.outputs.labels, ["gpu", "linux", "x64"]);
    assert.ok((await fx.engine.refresh()).ok);
    fx.sim.clearRequests();
    const again = await fx.engine.up(program);
    assert.ok(again.ok, JSON.stringify(again.errors));
    assert.deepEqual(again.same.sort(), ["first", "second"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("changes labels and image in place with one PUT (tags are updatable, database/sql/util.go L660-677)", async () => {
    await fx.engine.up([pool("p")]);
    const id = poolIdOf("p");
    const changed = [pool("p", { labels: ["linux", "x64", "gpu"], image: "ubuntu-26.04" })];
    const preview = await fx.engine.preview(changed);
    assert.deepEqual(preview.diffs.p?.replaces ?? [], []);
    assert.equal(preview.diffs.p?.changes, "some");
    fx.sim.clearRequests();
    const up = await fx.engine.up(changed);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.deepEqual(mutatingCalls(fx.sim).map((c) => `${c.method} ${c.path}`), [`PUT /api/v1/pools/${id}`]);
    const [held] = fx.sim.pools();
    assert.equal(held?.id, id);
    assert.equal(held?.image, "ubuntu-26.04");
    assert.equal(held?.generation, 1);
    assert.deepEqual(fx.engine.state().resources.find((r) => r.name === "p")?.outputs.labels, ["gpu", "linux", "x64"]);
  });

  it("replaces on an entity change, creating the new pool before draining the old one", async () => {
    await fx.engine.up([pool("p")]);
    const old = poolIdOf("p");
    const changed = [pool("p", { organization: undefined, repository: "acme/app" })];
    const preview = await fx.engine.preview(changed);
    assert.deepEqual(preview.diffs.p?.replaces.sort(), ["organization", "repository"]);
    assert.equal(preview.diffs.p?.deleteBeforeReplace, false);
    fx.sim.clearRequests();
    const up = await fx.engine.up(changed);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const calls = mutatingCalls(fx.sim).map((c) => `${c.method} ${c.path}`);
    const createdAt = calls.findIndex((c) => c.startsWith("POST /api/v1/repositories/"));
    const deletedAt = calls.indexOf(`DELETE /api/v1/pools/${old}`);
    assert.ok(createdAt >= 0 && deletedAt > createdAt, calls.join("\n"));
    const pools = fx.sim.pools();
    assert.equal(pools.length, 1);
    assert.equal(pools[0]?.entityId, fx.sim.repositoryId);
  });

  it("refresh picks up drift and an out-of-band delete; the next up restores and re-creates", async () => {
    await fx.engine.up([pool("p")]);
    const id = poolIdOf("p");
    await fx.garm().updatePool(id, { max_runners: 9 });
    assert.ok((await fx.engine.refresh()).ok);
    assert.equal(fx.engine.state().resources.find((r) => r.name === "p")?.outputs.maxRunners, 9);
    assert.ok((await fx.engine.up([pool("p")])).ok);
    assert.equal(fx.sim.pools()[0]?.maxRunners, 3);

    await fx.garm().deletePool(id);
    const refresh = await fx.engine.refresh();
    assert.deepEqual(refresh.dropped, ["p"]);
    const up = await fx.engine.up([pool("p")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(fx.sim.pools().length, 1);
    assert.notEqual(fx.sim.pools()[0]?.id, id);
  });

  it("adopts an existing pool by id, bringing its fields to the program, and refuses one under another provider", async () => {
    const existing = fx.sim.addPool("fake");
    const up = await fx.engine.up([pool("p", { adoptPoolId: existing })]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(poolIdOf("p"), existing);
    assert.equal(fx.sim.pools().length, 1);
    assert.equal(fx.sim.pools()[0]?.image, "ubuntu-24.04");
    assert.deepEqual((await fx.garm().getPool(existing)).labels.sort(), ["linux", "x64"]);

    const refused = await fx.engine.up([pool("p"), pool("q", { adoptPoolId: existing, providerName: "fake", repository: "acme/app", organization: undefined })]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.q), /cannot adopt pool .*: it is under acme with provider fake, not repository acme\/app/);
  });

  it("destroy removes the idle runner, force-removes the stuck one, leaves the busy one, names it and its job, and succeeds once the job completes", async () => {
    // A stuck runner spends one tick in pending_delete and one in deleting: a drain polling every second alone met it in
    // deleting every time (failed before the pool drain woke on GARM's instance events, poolConcern).
    // One idle runner wanted: GARM's own scale-down leaves it, and skips a disabled pool (runner/pool/pool.go L1225-1233),
    // so only the drain can remove it.
    // 8 s: the forced removal of the stuck runner must fit in the drain on a loaded CI machine (3 s did not, once).
    await fx.engine.up([pool("p", { minIdleRunners: 1, drain: { timeoutSeconds: 8, pollSeconds: 1 } })]);
    const id = poolIdOf("p");
    const idle = fx.sim.addPoolRunner(id, { name: "garm-idle" });
    const busy = fx.sim.addPoolRunner(id, { name: "garm-busy" });
    const stuck = fx.sim.addPoolRunner(id, { name: "garm-stuck", status: "pending_delete", providerFault: "injected delete failure" });
    fx.sim.setTeardownFails(stuck, true);
    const job = fx.sim.startPoolJob(busy);

    const first = await fx.engine.destroy();
    assert.equal(first.ok, false);
    const message = String(first.errors.p);
    assert.match(message, new RegExp(`GarmPool ${id}: not deleted after 8s: .*garm-busy: job "build-${job}" \\(id ${job}\\) in_progress`));
    assert.match(message, /The pool stays disabled and running jobs are not interrupted/);
    const names = fx.sim.instances().map((i) => i.name);
    assert.ok(!names.includes(idle), `idle runner still there: ${names}`);
    assert.ok(!names.includes(stuck), `stuck runner still there: ${names}`);
    assert.equal(fx.sim.instances().find((i) => i.name === busy)?.runnerStatus, "active");
    const deletes = fx.sim.requests().filter((r) => r.method === "DELETE" && r.path.includes("/instances/"));
    assert.ok(!deletes.some((r) => r.path.endsWith(`/${busy}`)), "busy runner was touched");
    assert.ok(deletes.some((r) => r.path.endsWith(`/${idle}`) && !r.query.includes("forceRemove")));
    assert.ok(deletes.some((r) => r.path.endsWith(`/${stuck}`) && r.query.includes("forceRemove=true")));
    assert.equal(fx.sim.pools()[0]?.enabled, false);

    fx.sim.completePoolJob(busy);
    const second = await fx.engine.destroy();
    assert.ok(second.ok, JSON.stringify(second.errors));
    assert.deepEqual(fx.sim.pools(), []);
    assert.deepEqual(fx.sim.instances(), []);
  });

  it("GarmProvider's delete guard counts a GarmPool's pool", async () => {
    await fx.engine.up([pool("p")]);
    const users = await listDependents(scaleSetsAndPoolsWhere(fx.garm(), (ref) => ref.providerName === "fake"));
    assert.deepEqual(users.found.map((u) => `${u.kind} ${u.id}`), [`pool ${poolIdOf("p")}`]);
  });

  it("the simulator's pool manager makes a runner for a queued job its tags match, only while the pool is enabled", async () => {
    await fx.engine.up([pool("p", { enabled: false })]);
    const id = poolIdOf("p");
    fx.sim.queuePoolJob(["linux"]);
    await fx.sim.tick();
    assert.equal(fx.sim.instances().length, 0, "a disabled pool takes no job");
    await fx.engine.up([pool("p")]);
    await fx.sim.tick();
    const made = fx.sim.instances().filter((i) => i.poolId === id);
    assert.equal(made.length, 1);
    fx.sim.queuePoolJob(["windows"]);
    await fx.sim.tick();
    await sleep(10);
    assert.equal(fx.sim.instances().filter((i) => i.poolId === id).length, 1, "no pool matches windows");
  });
});
