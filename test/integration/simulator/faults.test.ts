import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Client, setup } from "./helpers";
import type { Simulator } from "../../../simulator";

describe("simulator: fault injection, control API, behaviours", () => {
  let sim: Simulator;
  let api: Client;
  afterEach(async () => sim.stop());

  describe("v0.2.1", () => {
    beforeEach(async () => ({ sim, api } = await setup()));

    it("dropNextConnections destroys the socket without performing the request", async () => {
      sim.dropNextConnections(1);
      await assert.rejects(api.post(`/organizations/${sim.organizationId}/scalesets`, { name: "x" }));
      assert.equal((await api.get("/scalesets")).status, 200);
      const log = sim.requests();
      assert.deepEqual(log.slice(-2).map((e) => e.status), [0, 200]);
    });

    it("loseNextResponse performs the request, then drops the answer (POST outcome unknown)", async () => {
      sim.loseNextResponse("POST", /\/scalesets$/);
      await assert.rejects(api.createScaleSet({ name: "lost" }));
      const r = await api.get(`/organizations/${sim.organizationId}/scalesets`);
      assert.deepEqual(r.body.map((s: { name: string }) => s.name), ["lost"]);
      assert.equal(sim.requests().find((e) => e.method === "POST" && e.path.endsWith("/scalesets"))?.lost, true);
    });

    it("stopServing refuses connections and pauses the workers; resumeServing brings GARM back on the same URL", async () => {
      const url = sim.url;
      sim.stopServing();
      await assert.rejects(fetch(`${url}/api/v1/scalesets`));
      await sim.resumeServing();
      assert.equal(sim.url, url);
      assert.equal((await api.get("/scalesets")).status, 200);
    });

    it("requests() logs API calls only, with query strings apart; clearRequests() empties it", async () => {
      await api.get("/instances/none?x=1");
      await fetch(`${sim.url}/_sim/state`);
      const log = sim.requests();
      assert.deepEqual(log.at(-1), { method: "GET", path: "/api/v1/instances/none", query: "?x=1", status: 404 });
      assert.ok(log.every((e) => e.path.startsWith("/api/v1")));
      sim.clearRequests();
      assert.deepEqual(sim.requests(), []);
    });

    it("the /_sim control API mirrors the handle over HTTP without auth", async () => {
      const ss = await api.createScaleSet({ enabled: true, max_runners: 2 });
      const ctl = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${sim.url}/_sim${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as any };
      };
      const { body } = await ctl("POST", "/runners", { scaleSetId: ss.id });
      assert.match(body.name, /^garm-/);
      assert.equal((await ctl("POST", "/jobs/start", { runner: body.name })).status, 200);
      assert.equal((await api.get(`/instances/${body.name}`)).body.runner_status, "active");
      await ctl("POST", "/jobs/complete", { runner: body.name });
      assert.equal((await api.get(`/instances/${body.name}`)).body.status, "pending_delete");
      await ctl("POST", "/fail-github", { op: "scaleset-delete", status: 500 });
      await api.put(`/scalesets/${ss.id}`, { enabled: false });
      await ctl("POST", "/tick");
      await ctl("POST", "/tick");
      assert.equal((await api.del(`/scalesets/${ss.id}`)).status, 200);
      const state = (await ctl("GET", "/state")).body;
      assert.equal(state.scaleSets.length, 1, "kept by the inverted delete");
      assert.equal((await ctl("GET", "/requests")).body.length > 0, true);
      await ctl("POST", "/drop-connections", { n: 1 });
      await assert.rejects(api.get("/scalesets"));
      assert.equal((await ctl("POST", "/nope")).status, 404);
      assert.equal((await ctl("POST", "/runners", { scaleSetId: 999 })).status, 400);
    });
  });

  describe("head", () => {
    beforeEach(async () => ({ sim, api } = await setup({ behaviour: "head" })));

    it("Appendix A/§6: at HEAD a refused transition on the deletion lane answers 200", async () => {
      const ss = await api.createScaleSet();
      const name = sim.addRunner(ss.id);
      assert.equal((await api.del(`/instances/${name}?forceRemove=true`)).status, 200);
      const r = await api.del(`/instances/${name}`);
      assert.deepEqual([r.status, r.text], [200, ""]);
      assert.equal((await api.get(`/instances/${name}`)).body.status, "pending_force_delete");
    });

    it("Appendix A: disable_update is updatable at HEAD only", async () => {
      const ss = await api.createScaleSet();
      const r = await api.put(`/scalesets/${ss.id}`, { disable_update: true });
      assert.equal(r.body.disable_update, true);
    });
  });

  describe("v0.2.1 disable_update", () => {
    beforeEach(async () => ({ sim, api } = await setup()));
    it("Appendix A: disable_update on update is ignored in v0.2.1", async () => {
      const ss = await api.createScaleSet();
      const r = await api.put(`/scalesets/${ss.id}`, { disable_update: true });
      assert.equal(r.body.disable_update, false);
    });
  });
});

describe("simulator: standalone main.js", () => {
  it("prints its URL and admin credentials, serves, and exits on SIGTERM", async function () {
    this.timeout(5000);
    const main = join(__dirname, "..", "..", "..", "simulator", "main.js");
    const child = spawn(process.execPath, [main, "--port", "0", "--tick-ms", "50"], { stdio: ["ignore", "pipe", "pipe"] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}`)));
    });
    const m = /at (http:\/\/127\.0\.0\.1:\d+) username=(\S+) password=(\S+)/.exec(line);
    assert.ok(m, line);
    const res = await fetch(`${m[1]}/api/v1/auth/login`, { method: "POST", body: JSON.stringify({ username: m[2], password: m[3] }) });
    assert.equal(res.status, 200);
    const code = await new Promise<number | null>((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
    assert.equal(code, 0);
  });
});
