// Where the simulator is as harsh as GARM behind a real host: restarts that take seconds and refuse connections, ids
// reused after a database restore, and a front proxy whose 404s are not GARM's (issue: a simulator as harsh as GARM).
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, setup } from "./helpers";
import type { Simulator } from "../../../simulator";

/** One raw request on a given agent, so a test can hold a keep-alive connection across a restart. */
function rawGet(url: string, agent?: http.Agent): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("error", reject);
  });
}

/** The error code of a failed connection (ECONNREFUSED, ECONNRESET), or "answered". */
async function connectOutcome(url: string): Promise<string> {
  try {
    await rawGet(url, new http.Agent({ keepAlive: false }));
    return "answered";
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? String(e);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("simulator: as harsh as GARM", function () {
  this.timeout(20_000);
  let sim: Simulator | undefined;
  let api: Client;
  let dir: string;
  let config: string;
  let exe: string;

  const providerBlock = (name: string) =>
    `[[provider]]\nname = "${name}"\nprovider_type = "external"\ndescription = "${name} runners"\n  [provider.external]\n  provider_executable = "${exe}"\n`;
  const writeConfig = (...names: string[]) => writeFileSync(config, names.map(providerBlock).join("\n"));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "garm-sim-harsh-"));
    exe = join(dir, "provider");
    writeFileSync(exe, "#!/bin/sh\nexit 0\n");
    chmodSync(exe, 0o755);
    config = join(dir, "config.toml");
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  describe("restart (§9.2: providers load only at start; a restart takes seconds)", () => {
    it("defaults to a restart that keeps GARM down for seconds", async () => {
      ({ sim, api } = await setup());
      assert.ok(sim.restartDownMs >= 2000, `default down time ${sim.restartDownMs} ms`);
    });

    it("POST /_sim/restart answers first, then refuses connections while down, then serves again on the same port with providers reloaded", async () => {
      writeConfig("a");
      ({ sim, api } = await setup({ garmConfigPath: config, restartDownMs: 1500 }));
      const url = sim.url;
      writeConfig("a", "b");
      const t0 = Date.now();
      const res = await fetch(`${url}/_sim/restart`, { method: "POST" });
      assert.equal(res.status, 200, "the restart command (curl -f) succeeds");
      await res.text();
      await sleep(100);
      assert.equal(await connectOutcome(`${url}/api/v1/providers`), "ECONNREFUSED", "GARM is down after answering");
      assert.equal(await connectOutcome(`${url}/_sim/state`), "ECONNREFUSED", "the whole process is down, control API included");
      let back = 0;
      for (let i = 0; i < 100 && back === 0; i++) {
        if ((await connectOutcome(`${url}/api/v1/providers`)) === "answered") back = Date.now();
        else await sleep(50);
      }
      assert.ok(back - t0 >= 1500, `down for ${back - t0} ms, expected at least 1500`);
      assert.equal(sim.url, url);
      const names = (await api.get("/providers")).body.map((p: { name: string }) => p.name).sort();
      assert.deepEqual(names, ["a", "b"], "providers re-read from the config file");
      assert.equal((await api.get("/scalesets")).status, 200, "JWTs survive the restart (same jwt secret)");
    });

    it("closes keep-alive connections: a client reusing one sees the connection end, not an answer", async () => {
      ({ sim, api } = await setup({ restartDownMs: 500 }));
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const first = await rawGet(`${sim.url}/api/v1/controller`, agent);
      assert.equal(first.status, 401);
      const sockets = Object.values(agent.freeSockets).flat();
      assert.equal(sockets.length, 1, "one idle keep-alive connection");
      const closed = new Promise<void>((resolve) => sockets[0]!.once("close", () => resolve()));
      await sim.restartInBackground();
      await closed;
      await assert.rejects(rawGet(`${sim.url}/api/v1/controller`, agent), /ECONNREFUSED/);
      agent.destroy();
    });

    it("the in-process restart() resolves once GARM serves again; a config GARM refuses leaves it down (§9.1)", async () => {
      writeConfig("a");
      ({ sim, api } = await setup({ garmConfigPath: config, restartDownMs: 300 }));
      const t0 = Date.now();
      await sim.restart();
      assert.ok(Date.now() - t0 >= 300);
      assert.equal((await api.get("/providers")).status, 200);
      writeConfig("a", "a");
      await assert.rejects(sim.restart(), /duplicate provider name a/);
      assert.equal(await connectOutcome(`${sim.url}/api/v1/providers`), "ECONNREFUSED");
    });

    it("a restart asked over HTTP with a config GARM refuses still answers 200 (the service manager started it), and GARM stays down", async () => {
      writeConfig("a");
      ({ sim, api } = await setup({ garmConfigPath: config, restartDownMs: 200 }));
      writeConfig("a", "a");
      const res = await fetch(`${sim.url}/_sim/restart`, { method: "POST" });
      assert.equal(res.status, 200);
      await sleep(600);
      assert.equal(await connectOutcome(`${sim.url}/api/v1/providers`), "ECONNREFUSED");
    });

    it("stop() during a restart's down time keeps it stopped", async () => {
      ({ sim, api } = await setup({ restartDownMs: 300 }));
      const url = sim.url;
      await sim.restartInBackground();
      await sim.stop();
      await sleep(500);
      assert.equal(await connectOutcome(`${url}/api/v1/providers`), "ECONNREFUSED");
      sim = undefined;
    });
  });

  describe("database snapshot and restore (ids reused)", () => {
    it("a scale set created after a restore gets the id a deleted one had", async () => {
      ({ sim, api } = await setup());
      const snapshot = sim.snapshotDatabase();
      const first = await api.createScaleSet({ name: "team-a" });
      assert.equal((await api.del(`/scalesets/${first.id}`)).status, 200);
      sim.restoreDatabase(snapshot);
      const second = await api.createScaleSet({ name: "team-b" });
      assert.equal(second.id, first.id, "GARM's id counter came back with the restored database");
      assert.equal((await api.get(`/scalesets/${first.id}`)).body.name, "team-b");
    });

    it("the control API snapshots and restores too; restored rows come back, later rows go", async () => {
      ({ sim, api } = await setup());
      const ctl = async (path: string, body?: unknown) => {
        const res = await fetch(`${sim!.url}/_sim${path}`, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as any };
      };
      const kept = await api.createScaleSet({ name: "kept" });
      const snap = await ctl("/db/snapshot");
      assert.equal(snap.status, 200);
      assert.equal(typeof snap.body.snapshot, "number");
      const later = await api.createScaleSet({ name: "later" });
      assert.equal((await api.del(`/scalesets/${kept.id}`)).status, 200);
      assert.equal((await ctl("/db/restore", { snapshot: snap.body.snapshot })).status, 200);
      assert.equal((await api.get(`/scalesets/${kept.id}`)).body.name, "kept");
      assert.equal((await api.get(`/scalesets/${later.id}`)).status, 404);
      assert.equal((await ctl("/db/restore", { snapshot: 999 })).status, 400);
    });
  });

  describe("front proxy", () => {
    it("GARM itself answers an unknown path with its JSON catch-all 404 (§1.1)", async () => {
      ({ sim, api } = await setup());
      const r = await rawGet(`${sim.url}/api/v1/api/v1/scalesets`);
      assert.equal(r.status, 404);
      assert.deepEqual(JSON.parse(r.body), { error: "Not found", details: "Resource not found" });
    });

    it("nginx in front answers an unknown path (e.g. /api/v1 twice) with its own HTML 404, and known paths reach GARM", async () => {
      ({ sim, api } = await setup({ frontProxy: "nginx" }));
      for (const path of ["/api/v1/api/v1/auth/login", "/", "/garm/api/v1/scalesets"]) {
        const r = await rawGet(`${sim.url}${path}`);
        assert.equal(r.status, 404, path);
        assert.match(String(r.headers["content-type"]), /^text\/html/);
        assert.match(r.body, /<center><h1>404 Not Found<\/h1><\/center>[\s\S]*nginx/);
      }
      const login = await fetch(`${sim.url}/api/v1/api/v1/auth/login`, { method: "POST", body: JSON.stringify({ username: sim.username, password: sim.password }) });
      assert.equal(login.status, 404, "a login through a doubled /api/v1 is the proxy's 404, not GARM's");
      assert.equal((await api.get("/scalesets")).status, 200);
      assert.equal((await api.get("/scalesets/999")).body.error, "Not Found", "GARM's own not-found still comes through");
    });

    it("a plain-text proxy 404 and, while GARM restarts, the proxy's 502 instead of a refused connection", async () => {
      ({ sim, api } = await setup({ frontProxy: "plain", restartDownMs: 1500 }));
      const r = await rawGet(`${sim.url}/nope`);
      assert.deepEqual([r.status, r.body, r.headers["content-type"]], [404, "404 page not found\n", "text/plain; charset=utf-8"]);
      await sim.restartInBackground();
      const down = await rawGet(`${sim.url}/api/v1/scalesets`);
      assert.equal(down.status, 502);
      let status = 502;
      for (let i = 0; i < 100 && status === 502; i++) {
        status = (await rawGet(`${sim.url}/api/v1/scalesets`)).status;
        if (status === 502) await sleep(50);
      }
      assert.equal((await api.get("/scalesets")).status, 200, "GARM answers through the proxy once it is back");
    });
  });
});
