// pulumi-garm through the engine harness against the harsh parts of the simulator: a front proxy answering its own 404s,
// and ids reused after a database restore (issue 10 items 1, 10 and 18). They show the simulator can catch those
// defects: each test fails with a provider that treats any 404 as "gone" or trusts a GARM id blindly.
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaleSetProvider } from "../../../sdk/nodejs/shim";
import type { ResourceDecl } from "../../../harness/engine";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { type Simulator, startSimulator } from "../../../simulator";

const scaleSet = (name: string, over: Record<string, unknown> = {}): ResourceDecl => ({
  name,
  type: "GarmScaleSet",
  module: "garm",
  provider: scaleSetProvider,
  inputs: {
    name: `ci-${name}`,
    organization: "acme",
    providerName: "fake",
    image: "ubuntu-24.04",
    flavor: "small",
    labels: ["linux", "x64"],
    maxRunners: 2,
    minIdleRunners: 0,
    drain: { timeoutSeconds: 5, pollSeconds: 1 },
    ...over,
  },
});

describe("pulumi-garm against the harsh simulator", function () {
  this.timeout(90_000);
  let sim: Simulator | undefined;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "garm-sim-harsh-engine-"));
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("behind nginx, a garm:url with a path the proxy does not serve meets its HTML 404: refresh and destroy fail and keep the scale set", async () => {
    sim = await startSimulator({ tickMs: 25, frontProxy: "nginx" });
    const good = engineForGarm(sim, "harsh-proxy");
    const up = await good.up([scaleSet("small")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const statePath = join(dir, "state.json");
    good.saveState(statePath);

    // The same stack pointed at a path prefix the proxy has no location for (GARM is served at its root): every call,
    // the login first, becomes /garm/api/v1/..., which nginx answers with its own 404 page.
    const wrong = engineForGarm({ url: `${sim.url}/garm`, username: sim.username, password: sim.password }, "harsh-proxy");
    wrong.loadState(statePath);
    const refresh = await wrong.refresh();
    assert.deepEqual(refresh.dropped, [], "a proxy's 404 is not GARM saying the scale set is gone");
    assert.ok(wrong.state().resources.some((r) => r.name === "small"), "still in state");
    const destroy = await wrong.destroy();
    assert.equal(destroy.ok, false, "destroy cannot have deleted anything it could not reach");
    assert.equal(sim.scaleSets().length, 1, "the scale set is still in GARM");
    assert.ok(wrong.state().resources.some((r) => r.name === "small"), "and still in state, for a retry");
    assert.ok(sim.requests().some((r) => r.proxy && r.status === 404 && r.path === "/garm/api/v1/auth/login"), "the proxy answered the login");
  });

  it("after a database restore another team's scale set gets this one's id: refresh drops ours and leaves theirs alone", async () => {
    sim = await startSimulator({ tickMs: 25 });
    const backup = sim.snapshotDatabase();
    const ours = engineForGarm(sim, "harsh-restore", "team-a");
    const up = await ours.up([scaleSet("small")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [mine] = sim.scaleSets();

    // The database goes back to before our create; the next scale set GARM makes gets our id.
    sim.restoreDatabase(backup);
    const theirs = engineForGarm(sim, "harsh-restore", "team-b");
    const theirUp = await theirs.up([scaleSet("theirs", { name: "team-b", organization: undefined, repository: "acme/app" })]);
    assert.ok(theirUp.ok, JSON.stringify(theirUp.errors));
    const [reused] = sim.scaleSets();
    assert.equal(reused.id, mine.id, "the id was handed out again");

    sim.clearRequests();
    const refresh = await ours.refresh();
    assert.ok(refresh.ok, JSON.stringify(refresh.errors));
    assert.deepEqual(refresh.dropped, ["small"], "our scale set is gone; the id now names another one");
    assert.deepEqual(sim.requests().filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login")), [], "nothing written to theirs");
    assert.equal(sim.scaleSets()[0]?.name, reused.name);
  });
});
