// examples/two-garms as a user runs it: one TypeScript program managing, in each of two GARMs, a provider entry (a
// GarmProvider writing that GARM's config file and restarting that GARM) and a scale set on it, each resource and
// function naming its GARM with the `garm` connection, the stack's garm:* config unset. The package installed from its
// npm tarball, the real `pulumi` CLI and Node host, two simulated GARM hosts. Checked after each step: what each GARM
// and its config file hold, its restarts, and its request log, which shows no call for a resource of the other GARM.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { locateLanguageHost, locatePulumi } from "../../../harness/pulumi-cli";
import { twoGarmsConfig } from "../../support/two-garms";
import { PulumiProject, packOnce } from "../../../harness/pulumi-cli/project";
import { GarmClient } from "../../../provider/garm/client";
import { type SimulatedHost, startSimulatedHost } from "../../../scripts/demo/host";
import type { Simulator } from "../../../simulator";
import type { RequestLogEntry } from "../../../simulator/simulator";

const writesIn = (log: RequestLogEntry[]) => log.filter((r) => r.method !== "GET" && !r.path.endsWith("/auth/login")).map((r) => `${r.method} ${r.path}`);

describe("two GARMs from one TypeScript program (examples/two-garms, real CLI, two simulators)", function () {
  this.timeout(600_000);
  let euHost: SimulatedHost;
  let usHost: SimulatedHost;
  let eu: Simulator;
  let us: Simulator;
  let project: PulumiProject;

  before(async function () {
    locatePulumi();
    locateLanguageHost();
    [euHost, usHost] = await Promise.all([startSimulatedHost({ prefix: "pulumi-garm-two-garms-eu-" }), startSimulatedHost({ prefix: "pulumi-garm-two-garms-us-" })]);
    [eu, us] = [euHost.sim, usHost.sim];
    // Ids count from 1 in every GARM: a scale set made and deleted in us first makes the two GARMs' ids differ, so a
    // request sent to the wrong GARM names nothing there, and the request logs tell which GARM each scale set was read in.
    const rest = new GarmClient({ url: us.url, username: us.username, password: us.password });
    const first = await rest.createScaleSet(
      { kind: "organization", id: us.organizationId },
      { name: "made-first", provider_name: "fake", image: "img", flavor: "small", os_type: "linux", os_arch: "amd64", labels: ["linux"], max_runners: 1, min_idle_runners: 0, enabled: false },
    );
    await rest.deleteScaleSet(first.id);
    await rest.close();
    project = await PulumiProject.fromExample({ example: "two-garms", tarball: await packOnce() });
    const hostConfig = (region: string, host: SimulatedHost) => ({
      [`${region}GarmConfigPath`]: host.garmConfigPath,
      [`${region}ProviderExecutable`]: host.providerExecutable,
      [`${region}RestartCommand`]: host.stackConfig.restartCommand,
    });
    await project.initStack("dev", { ...twoGarmsConfig(eu, us), ...hostConfig("eu", euHost), ...hostConfig("us", usHost) });
  });

  after(async () => {
    project?.close();
    await Promise.all([euHost?.close(), usHost?.close()]);
  });

  const clear = () => (eu.clearRequests(), us.clearRequests());
  const liveNames = (sim: Simulator) => sim.scaleSets().map((s) => s.name).sort();

  it("preview reads both GARMs and writes to neither; up makes one scale set in each, recording each GARM", async () => {
    clear();
    const preview = await project.preview();
    assert.equal(preview.changeSummary.create, 5, JSON.stringify(preview.changeSummary));
    assert.deepEqual([...writesIn(eu.requests()), ...writesIn(us.requests())], []);

    clear();
    await project.cli(["up", "--yes"]);
    const out = (await project.outputs()) as Record<"eu" | "us", Record<string, unknown>>;
    assert.equal(out.eu.controllerId, eu.controllerId());
    assert.equal(out.us.controllerId, us.controllerId());
    assert.equal(out.eu.garmControllerId, eu.controllerId(), "the eu scale set records the eu GARM");
    assert.equal(out.us.garmControllerId, us.controllerId(), "the us scale set records the us GARM");
    assert.equal(eu.scaleSets().length, 1);
    assert.equal(us.scaleSets().length, 1);
    assert.equal(eu.scaleSets()[0].providerName, "eu-fleet");
    assert.equal(us.scaleSets()[0].providerName, "us-fleet");
    // Each GarmProvider wrote its own GARM's file and restarted that GARM, once.
    assert.match(euHost.garmConfig(), /name = "eu-fleet"/);
    assert.doesNotMatch(euHost.garmConfig(), /us-fleet/);
    assert.match(usHost.garmConfig(), /name = "us-fleet"/);
    assert.doesNotMatch(usHost.garmConfig(), /eu-fleet/);
    assert.deepEqual([euHost.restarts(), usHost.restarts()], [1, 1]);
    assert.equal(eu.scaleSets()[0].id, out.eu.scaleSetId);
    assert.equal(us.scaleSets()[0].id, out.us.scaleSetId);
    assert.notEqual(out.eu.scaleSetId, out.us.scaleSetId);
    assert.equal(writesIn(eu.requests()).filter((w) => w.startsWith("POST")).length, 1, writesIn(eu.requests()).join(", "));
    assert.equal(writesIn(us.requests()).filter((w) => w.startsWith("POST")).length, 1, writesIn(us.requests()).join(", "));

    // The connections hold the passwords: the state keeps them encrypted, never in clear.
    const stateFiles = fs.readdirSync(path.join(project.workDir, "state"), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    assert.ok(stateFiles.length > 0);
    for (const f of stateFiles) {
      const text = fs.readFileSync(path.join(f.parentPath, f.name), "utf8");
      assert.ok(!text.includes(eu.password), `${f.name} holds the password in clear`);
    }
    await project.cli(["preview", "--expect-no-changes"]);
    // Refresh reads each scale set in the GARM its state names, and keeps the connection there.
    clear();
    await project.cli(["refresh", "--yes"]);
    assert.ok(eu.requests().some((r) => r.path === `/api/v1/scalesets/${out.eu.scaleSetId}`), "eu's scale set was read in eu");
    assert.ok(us.requests().some((r) => r.path === `/api/v1/scalesets/${out.us.scaleSetId}`), "us's scale set was read in us");
    assert.deepEqual([...writesIn(eu.requests()), ...writesIn(us.requests())], []);
    await project.cli(["preview", "--expect-no-changes"]);
  });

  it("a label change in eu replaces the eu scale set and writes nothing to us", async () => {
    const usBefore = liveNames(us);
    const euBefore = liveNames(eu);
    await project.setConfig({ euLabels: JSON.stringify(["linux", "x64", "gpu"]) });
    clear();
    await project.cli(["up", "--yes"]);
    assert.deepEqual(writesIn(us.requests()), [], "the us GARM was written to for an eu change");
    assert.deepEqual(liveNames(us), usBefore);
    const euAfter = liveNames(eu);
    assert.equal(euAfter.length, 1);
    assert.notDeepEqual(euAfter, euBefore, "the eu scale set was replaced (a new hashed name)");
    assert.deepEqual([euHost.restarts(), usHost.restarts()], [1, 1], "a scale set's replacement restarts no GARM");
  });

  it("the us GARM under a new URL: the connection is stored with no write to either GARM, then no change", async () => {
    const moved = us.url.replace("127.0.0.1", "localhost");
    assert.notEqual(moved, us.url);
    await project.setConfig({ usUrl: moved });
    clear();
    const preview = await project.preview();
    // The us provider entry and scale set store the new connection.
    assert.equal(preview.changeSummary.update, 2, JSON.stringify(preview.changeSummary));
    assert.equal(preview.changeSummary.replace ?? 0, 0);
    const usConfig = usHost.garmConfig();
    await project.cli(["up", "--yes"]);
    assert.deepEqual([...writesIn(eu.requests()), ...writesIn(us.requests())], []);
    assert.equal(usHost.garmConfig(), usConfig, "GARM's config file is not touched for a new connection");
    assert.deepEqual([euHost.restarts(), usHost.restarts()], [1, 1]);
    clear();
    await project.cli(["preview", "--expect-no-changes"]);
  });

  it("a us connection that reaches the eu GARM is refused, naming both GARMs and garm.url, and nothing is written", async () => {
    await project.setConfig({ usUrl: eu.url });
    clear();
    const r = await project.cli(["preview"], { expectOk: false });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, new RegExp(`lives in GARM ${us.controllerId()}, but garm\\.url ${eu.url.replace(/[.:/]/g, "\\$&")} reaches GARM ${eu.controllerId()}`));
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(eu.password.replace(/[!]/g, "\\$&")));
    assert.deepEqual([...writesIn(eu.requests()), ...writesIn(us.requests())], []);
    await project.setConfig({ usUrl: us.url });
  });

  it("destroy deletes each scale set in its own GARM, then each provider entry from its own GARM's file", async () => {
    clear();
    await project.cli(["destroy", "--yes"]);
    assert.deepEqual(eu.scaleSets(), []);
    assert.deepEqual(us.scaleSets(), []);
    assert.doesNotMatch(euHost.garmConfig(), /eu-fleet/);
    assert.doesNotMatch(usHost.garmConfig(), /us-fleet/);
    assert.deepEqual([euHost.restarts(), usHost.restarts()], [2, 2]);
    const deletes = (sim: Simulator) => writesIn(sim.requests()).filter((w) => w.startsWith("DELETE /api/v1/scalesets/"));
    assert.equal(deletes(eu).length, 1, deletes(eu).join(", "));
    assert.equal(deletes(us).length, 1, deletes(us).join(", "));
    console.log(`      ${project.timings()}`);
  });
});
