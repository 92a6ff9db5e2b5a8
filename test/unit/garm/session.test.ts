import { strict as assert } from "node:assert";
import { GarmClient } from "../../../provider/garm/client";
import { GarmApiError } from "../../../provider/garm/errors";
import { type HttpStub, type StubRequest, sendJson, startHttpStub } from "../../support/http-stub";

const PASSWORD = "s3cret-Password-1";
const REJECTED = { error: "Authentication failed", details: "" };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects unhandled rejections while a test runs; Pulumi's provider host exits 1 on one. */
function watchUnhandledRejections() {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", listener);
  return {
    seen,
    async stop() {
      await pause(50);
      process.off("unhandledRejection", listener);
      return seen;
    },
  };
}

describe("GarmTransport session: one re-login per rejected token (§1.3, §1.5)", () => {
  let stub: HttpStub | undefined;
  let client: GarmClient | undefined;
  afterEach(async () => {
    await client?.close();
    await stub?.close();
    stub = undefined;
    client = undefined;
  });

  const logins = () => stub!.requests.filter((r: StubRequest) => r.path === "/api/v1/auth/login").length;

  it("sequential requests after one invalidation log in exactly twice in all", async () => {
    let issued = 0;
    let revoked = new Set<string>();
    stub = await startHttpStub((req, res) => {
      if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: `t${++issued}` });
      if (revoked.has(String(req.headers.authorization).slice("Bearer ".length))) return sendJson(res, 401, REJECTED);
      return sendJson(res, 200, []);
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {} });
    await client.listJobs();
    revoked = new Set(["t1"]);
    for (let i = 0; i < 5; i++) assert.deepEqual(await client.listJobs(), []);
    assert.equal(logins(), 2);
  });

  it("20 concurrent requests refused for the same token share exactly one re-login", async () => {
    let issued = 0;
    let heldWithOldToken: (() => void)[] = [];
    stub = await startHttpStub(async (req, res) => {
      if (req.path === "/api/v1/auth/login") {
        await pause(30);
        return sendJson(res, 200, { token: `t${++issued}` });
      }
      if (req.headers.authorization === "Bearer t1") {
        // Hold every request until all 20 carry the old token, then refuse them a few milliseconds apart, so some
        // 401s arrive before the re-login, some during it and some after it.
        const i = heldWithOldToken.length;
        await new Promise<void>((release) => {
          heldWithOldToken.push(release);
          if (heldWithOldToken.length === 20) heldWithOldToken.forEach((r) => r());
        });
        await pause(i * 5);
        return sendJson(res, 401, REJECTED);
      }
      return sendJson(res, 200, []);
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {}, concurrency: 20 });
    const c = client;
    const watch = watchUnhandledRejections();
    const results = await Promise.all(Array.from({ length: 20 }, () => c.listJobs()));
    assert.deepEqual(await watch.stop(), []);
    assert.equal(results.length, 20);
    assert.equal(logins(), 2, "the first login and one re-login");
    heldWithOldToken = [];
  });

  it("a failed re-login fails the waiting requests once, raises no unhandled rejection, and the next request logs in again (issue 10 item 15)", async () => {
    let loginCalls = 0;
    let passwordRestored = false;
    stub = await startHttpStub(async (req, res) => {
      if (req.path === "/api/v1/auth/login") {
        loginCalls++;
        if (loginCalls === 1 || passwordRestored) return sendJson(res, 200, { token: `t${loginCalls}` });
        // The password was changed meanwhile: GARM refuses the re-login (§1.3), after a moment.
        await pause(100);
        return sendJson(res, 401, { error: "Not Authorized", details: "" });
      }
      if (req.headers.authorization === "Bearer t1") {
        await pause(Number(/\/instances\/r(\d+)/.exec(req.path)?.[1] ?? 0));
        return sendJson(res, 401, REJECTED);
      }
      return sendJson(res, 200, []);
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {} });
    const c = client;
    const watch = watchUnhandledRejections();
    // Runner reads refused a few milliseconds apart, so their 401s arrive while the re-login is under way.
    const outcomes = await Promise.allSettled([0, 20, 40, 60, 80].map((d) => c.getInstance(`r${d}`)));
    assert.deepEqual(await watch.stop(), [], "no unhandled rejection");
    for (const o of outcomes) {
      assert.equal(o.status, "rejected");
      const err = (o as PromiseRejectedResult).reason;
      assert.ok(err instanceof GarmApiError && err.kind === "auth-failed", String(err));
    }
    assert.equal(logins(), 2, "one re-login, reported to every request that waited for it");
    passwordRestored = true;
    await assert.doesNotReject(c.listProviders());
    assert.equal(logins(), 3, "the next request tries again");
  });
});
