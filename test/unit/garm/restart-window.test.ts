import { strict as assert } from "node:assert";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { GarmClient } from "../../../provider/garm/client";
import { GarmApiError } from "../../../provider/garm/errors";
import { RestartWindows, markingGarmRestarts, restartWindowsFor } from "../../../provider/garm/restart-window";
import { sendJson } from "../../support/http-stub";

const PASSWORD = "s3cret-Password-1";

/**
 * A GARM stand-in that can go down the way a restarting GARM does: its listener closes, so connections are refused,
 * then it listens again on the same port.
 */
class RestartableGarm {
  posts = 0;
  private server: http.Server | undefined;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.url === "/api/v1/auth/login") return sendJson(res, 200, { token: "t1" });
        if (req.method === "POST") {
          this.posts++;
          return sendJson(res, 200, { id: 9, name: "ci", provider_name: "fake", tags: [] });
        }
        return sendJson(res, 200, []);
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Refuses connections for `ms`, then answers again on the same port. */
  async restart(ms: number): Promise<void> {
    await this.stop();
    await new Promise((resolve) => setTimeout(resolve, ms));
    await this.start();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe("restarts of two GARMs one program manages", function () {
  this.timeout(20_000);
  const garms: RestartableGarm[] = [];
  const clients: GarmClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(garms.splice(0).map((g) => g.stop()));
  });

  async function garmAndClient(): Promise<[RestartableGarm, GarmClient]> {
    const garm = new RestartableGarm();
    await garm.start();
    garms.push(garm);
    // No restarts option: each client reads the windows of its own GARM, as in a provider process.
    const client = new GarmClient({ url: garm.url, username: "admin", password: PASSWORD, random: () => 1 });
    clients.push(client);
    await client.listJobs();
    return [garm, client];
  }

  it("one GARM's answers do not close the other's restart window, and the other's refusals do not wait on it", async () => {
    const [a] = await garmAndClient();
    const [b, toB] = await garmAndClient();
    const restartingA = restartWindowsFor(a.url).begin(10_000);
    restartingA.commandEnded(true);
    await toB.listJobs();
    assert.equal(restartWindowsFor(a.url).current(), restartingA, "GARM b answered; GARM a's restart is still under way");
    await b.stop();
    const started = Date.now();
    await assert.rejects(toB.listJobs(), (err: Error) => err instanceof GarmApiError && err.kind === "connection");
    assert.ok(Date.now() - started < 8_000, "a refusal by GARM b did not wait through GARM a's restart window");
    restartingA.answered(Number.MAX_SAFE_INTEGER);
  });
});

describe("GarmTransport during a GARM restart this process started (§9.2)", function () {
  this.timeout(20_000);
  let garm: RestartableGarm;
  let client: GarmClient | undefined;
  let restarts: RestartWindows;

  beforeEach(async () => {
    garm = new RestartableGarm();
    await garm.start();
    restarts = new RestartWindows();
    // random 1: the largest backoff, so the request without a window gives up after 250+500+1000 ms.
    client = new GarmClient({ url: garm.url, username: "admin", password: PASSWORD, random: () => 1, restarts });
    await client.listJobs(); // logged in, with a kept-alive connection
  });
  afterEach(async () => {
    await client?.close();
    await garm.stop();
  });

  it("a read refused while a restart is under way waits until GARM listens again", async () => {
    const window = restarts.begin(10_000);
    const down = garm.restart(2500);
    const started = Date.now();
    assert.deepEqual(await client!.listJobs(), []);
    assert.ok(Date.now() - started >= 2000, "it waited for GARM");
    await down;
    window.commandEnded(true);
    await client!.listJobs();
    assert.equal(restarts.current(), undefined, "GARM's first answer after the command closes the window");
  });

  it("a create refused while a restart is under way is sent once GARM listens again, and only once", async () => {
    restarts.begin(10_000);
    const down = garm.restart(2500);
    // Past the moment the kept-alive connection dies, so the POST meets a refused connection, not a dying one.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const created = await client!.createScaleSet({ kind: "organization", id: "u" }, { name: "ci" } as never).catch((e: Error) => e);
    await down;
    assert.equal(garm.posts, 1, String(created));
  });

  it("without a restart window a refused read fails as before, while GARM is still down", async () => {
    const down = garm.restart(2500);
    await assert.rejects(client!.listJobs(), (err: Error) => err instanceof GarmApiError && err.kind === "connection" && /ECONNREFUSED/.test(err.message));
    await down;
  });

  it("says GARM did not come back after the restart when the window runs out", async () => {
    const window = restarts.begin(400);
    window.commandEnded(true);
    await garm.stop();
    await assert.rejects(client!.listJobs(), (err: Error) => {
      assert.ok(err instanceof GarmApiError && err.kind === "connection", String(err));
      assert.match(err.message, /did not come back within 0\.4s after the restart/);
      assert.doesNotMatch(err.message, /§/);
      return true;
    });
  });

  it("a read refused during a restart another writer announced waits until GARM listens again, as for its own", async () => {
    let asked = 0;
    restarts.watch("/etc/garm/config.toml", async () => (asked++, { remainingMs: 10_000, by: "another pulumi-garm run (pid 7 on ci-1)" }));
    const down = garm.restart(2500);
    const started = Date.now();
    assert.deepEqual(await client!.listJobs(), []);
    assert.ok(Date.now() - started >= 2000, "it waited for GARM");
    await down;
    assert.equal(asked, 1, "the announcement is read once, when GARM first refuses");
    assert.equal(restarts.current(), undefined, "GARM's answer closes the window");
    await client!.listJobs();
    assert.equal(asked, 1, "nothing is read while GARM answers");
  });

  it("an announced restart that does not bring GARM back names who announced it", async () => {
    restarts.watch("/etc/garm/config.toml", async () => ({ remainingMs: 400, by: "another pulumi-garm run (pid 7 on ci-1)" }));
    await garm.stop();
    await assert.rejects(client!.listJobs(), /did not come back within 0\.4s after the restart another pulumi-garm run \(pid 7 on ci-1\) started/);
  });

  it("an announcement that says no restart is under way changes nothing", async () => {
    restarts.watch("/etc/garm/config.toml", async () => undefined);
    restarts.watch("/other.toml", async () => {
      throw new Error("unreadable");
    });
    const down = garm.restart(2500);
    await assert.rejects(client!.listJobs(), /ECONNREFUSED/);
    await down;
  });

  it("a failed restart command closes the window: requests fail as without one", async () => {
    const window = restarts.begin(10_000);
    window.commandEnded(false);
    await garm.stop();
    await assert.rejects(client!.listJobs(), /ECONNREFUSED/);
  });
});

describe("RestartWindows", () => {
  it("keeps a window open until the command ends and GARM answers a request sent after that", () => {
    let now = 0;
    const restarts = new RestartWindows(() => now);
    const window = restarts.begin(1000);
    const sentBefore = restarts.sending();
    window.commandEnded(true);
    restarts.answered(sentBefore);
    assert.equal(restarts.current(), window, "an answer to a request sent during the command may be the old GARM's");
    now = 500;
    restarts.answered(restarts.sending());
    assert.equal(window.state, "confirmed");
    assert.equal(restarts.current(), undefined);
  });

  it("expires the restart timeout after the command ends", () => {
    let now = 0;
    const restarts = new RestartWindows(() => now);
    const window = restarts.begin(1000);
    now = 1500;
    window.commandEnded(true);
    now = 2400;
    assert.equal(window.remainingMs(), 100);
    now = 2500;
    assert.equal(window.state, "expired");
    assert.equal(restarts.current(), undefined);
  });

  it("closes a window whose command never reports its end after twice the restart timeout", () => {
    let now = 0;
    const restarts = new RestartWindows(() => now);
    restarts.begin(1000);
    now = 1999;
    assert.ok(restarts.current());
    now = 2000;
    assert.equal(restarts.current(), undefined);
  });
});

describe("markingGarmRestarts", () => {
  const result = (code: number | null, timedOut = false) => ({ code, signal: null, output: "", timedOut });

  it("opens a window while the restart command runs and keeps it until GARM answers after it", async () => {
    const restarts = new RestartWindows();
    let openDuringRun = false;
    const run = markingGarmRestarts(async () => {
      openDuringRun = restarts.current() !== undefined;
      return result(0);
    }, () => restarts);
    await run("systemctl restart garm", 60_000);
    assert.equal(openDuringRun, true);
    assert.ok(restarts.current(), "GARM has not answered yet");
    restarts.answered(restarts.sending());
    assert.equal(restarts.current(), undefined);
  });

  for (const [what, outcome] of [
    ["exits non-zero", async () => result(1)],
    ["times out", async () => result(null, true)],
    ["cannot be started", async (): Promise<ReturnType<typeof result>> => {
      throw new Error("spawn /bin/sh ENOENT");
    }],
  ] as const) {
    it(`closes the window when the command ${what}`, async () => {
      const restarts = new RestartWindows();
      await markingGarmRestarts(outcome, () => restarts)("restart", 60_000).catch(() => undefined);
      assert.equal(restarts.current(), undefined);
    });
  }
});
