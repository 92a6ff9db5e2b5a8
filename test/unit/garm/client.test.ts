import { strict as assert } from "node:assert";
import * as sinon from "sinon";
import { GarmClient } from "../../../provider/garm/client";
import { GarmApiError, type GarmErrorKind } from "../../../provider/garm/errors";
import { WireRequest } from "../../../provider/garm/transport";
import { type HttpStub, type StubHandler, sendJson, startHttpStub } from "../../support/http-stub";

const PASSWORD = "s3cret-Password-1";

/** A client against a stub that logs in with token "t1" and hands every other request to `api`. */
async function clientWith(api: StubHandler, options: Partial<ConstructorParameters<typeof GarmClient>[0]> = {}) {
  const stub = await startHttpStub((req, res) => {
    if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: "t1" });
    return api(req, res);
  });
  const client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {}, maxAttempts: 3, ...options });
  return { stub, client };
}

async function expectKind(promise: Promise<unknown>, kind: GarmErrorKind): Promise<GarmApiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GarmApiError, `expected GarmApiError, got ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    return err;
  }
  assert.fail(`expected a ${kind} error`);
}

describe("GarmClient", () => {
  let stub: HttpStub | undefined;
  let client: GarmClient | undefined;
  afterEach(async () => {
    await client?.close();
    await stub?.close();
    stub = undefined;
    client = undefined;
  });

  it("logs in once and sends the JWT as `Bearer <token>` (§1.3, §1.4)", async () => {
    ({ stub, client } = await clientWith((req, res) => sendJson(res, 200, [{ name: "fake", type: "external", description: "d" }])));
    await Promise.all([client.listProviders(), client.listProviders(), client.listProviders()]);
    const logins = stub.requests.filter((r) => r.path === "/api/v1/auth/login");
    assert.equal(logins.length, 1, "one shared login for concurrent requests");
    assert.deepEqual(JSON.parse(logins[0].body), { username: "admin", password: PASSWORD });
    for (const r of stub.requests.filter((r) => r.path === "/api/v1/providers")) assert.equal(r.headers.authorization, "Bearer t1");
  });

  it("re-logs in once on 401 Authentication failed and repeats the request (§1.5)", async () => {
    let tokens = 0;
    stub = await startHttpStub((req, res) => {
      if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: `t${++tokens}` });
      if (req.headers.authorization === "Bearer t1") return sendJson(res, 401, { error: "Authentication failed", details: "" });
      return sendJson(res, 200, []);
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {} });
    assert.deepEqual(await client.listJobs(), []);
    assert.equal(tokens, 2);
  });

  it("gives up after one re-login when GARM keeps refusing the token", async () => {
    ({ stub, client } = await clientWith((_req, res) => sendJson(res, 401, { error: "Authentication failed", details: "" })));
    await expectKind(client.listJobs(), "auth-failed");
    assert.equal(stub.requests.filter((r) => r.path === "/api/v1/jobs").length, 2);
  });

  it("reports a refused login as auth-failed without the password (§1.3)", async () => {
    stub = await startHttpStub((_req, res) => sendJson(res, 401, { error: "Not Authorized", details: "" }));
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {} });
    const err = await expectKind(client.listJobs(), "auth-failed");
    assert.ok(!err.message.includes(PASSWORD));
    assert.match(err.message, /garm:password/);
  });

  const statusCases: [number, unknown, GarmErrorKind][] = [
    [404, { error: "Not Found", details: "error fetching scale set: not found" }, "not-found"],
    [400, { error: "Bad Request", details: "scale set has runners" }, "bad-request"],
    [409, { error: "Conflict", details: "repository o/n already exists" }, "conflict"],
    [409, { error: "init_required", details: "Missing superuser" }, "init-required"],
    [409, { error: "urls_required", details: "Missing required URLs." }, "urls-required"],
    [401, { error: "Not Authorized", details: "" }, "github-unauthorized"],
    [500, { error: "Server error", details: "" }, "server-error"],
    [418, "teapot", "unexpected"],
  ];
  for (const [status, body, kind] of statusCases) {
    it(`maps ${status} ${JSON.stringify(body)} to ${kind}, naming the request and GARM's details (§1.7)`, async () => {
      ({ stub, client } = await clientWith((_req, res) => sendJson(res, status, body)));
      const err = await expectKind(client.deleteScaleSet(7), kind);
      assert.match(err.message, /DELETE \/scalesets\/7/);
      const details = typeof body === "object" ? (body as { details: string }).details : "";
      if (details) assert.ok(err.message.includes(details), err.message);
    });
  }

  it("retries GET on 5xx with backoff, bounded by attempts", async () => {
    const sleep = sinon.stub().resolves();
    ({ stub, client } = await clientWith((_req, res) => sendJson(res, 502, { error: "Server error", details: "" }), { sleep, maxAttempts: 3 }));
    await expectKind(client.listJobs(), "server-error");
    assert.equal(stub.requests.filter((r) => r.path === "/api/v1/jobs").length, 3);
    assert.equal(sleep.callCount, 2);
    for (const call of sleep.getCalls()) assert.ok(call.args[0] > 0 && call.args[0] <= 4000);
  });

  it("bounds retries by total time as well as by count", async () => {
    let clock = 0;
    const sleep = async (ms: number) => {
      clock += ms;
    };
    ({ stub, client } = await clientWith((_req, res) => sendJson(res, 503, { error: "Server error", details: "" }), {
      sleep,
      now: () => clock,
      maxAttempts: 100,
      maxRetryMs: 2000,
      random: () => 1,
    }));
    await expectKind(client.listJobs(), "server-error");
    const attempts = stub.requests.filter((r) => r.path === "/api/v1/jobs").length;
    assert.ok(attempts >= 2 && attempts <= 5, `attempts ${attempts}`);
    assert.ok(clock <= 2000, `slept ${clock} ms`);
  });

  it("recovers when a retried GET succeeds", async () => {
    let calls = 0;
    ({ stub, client } = await clientWith((_req, res) =>
      ++calls < 3 ? sendJson(res, 500, { error: "Server error", details: "" }) : sendJson(res, 200, []),
    ));
    assert.deepEqual(await client.listPools(), []);
    assert.equal(calls, 3);
  });

  it("never retries a POST that reached GARM", async () => {
    ({ stub, client } = await clientWith((_req, res) => sendJson(res, 500, { error: "Server error", details: "" })));
    await expectKind(client.createScaleSet({ kind: "organization", id: "u" }, { name: "x" }), "server-error");
    assert.equal(stub.requests.filter((r) => r.method === "POST" && r.path.includes("scalesets")).length, 1);
  });

  it("flags a POST whose connection died after sending as outcome unknown, and does not resend it", async () => {
    ({ stub, client } = await clientWith((req, res) => {
      if (req.method === "POST") res.socket?.destroy();
      else sendJson(res, 200, []);
    }));
    const err = await expectKind(client.createScaleSet({ kind: "organization", id: "u" }, { name: "x" }), "connection");
    assert.equal(err.outcomeUnknown, true);
    assert.equal(stub.requests.filter((r) => r.method === "POST" && r.path.includes("scalesets")).length, 1);
  });

  it("retries a GET whose connection was dropped", async () => {
    let calls = 0;
    ({ stub, client } = await clientWith((_req, res) => {
      if (++calls === 1) res.socket?.destroy();
      else sendJson(res, 200, []);
    }));
    assert.deepEqual(await client.listJobs(), []);
    assert.equal(calls, 2);
  });

  it("reports a refused connection as a connection error naming the request", async () => {
    const closed = await startHttpStub(() => {});
    const url = closed.url;
    await closed.close();
    client = new GarmClient({ url, username: "admin", password: PASSWORD, sleep: async () => {}, maxAttempts: 2 });
    const err = await expectKind(client.listJobs(), "connection");
    assert.match(err.message, /POST \/auth\/login|GET \/jobs/);
  });

  it("times out a request that gets no answer", async () => {
    ({ stub, client } = await clientWith(() => {}, { requestTimeoutMs: 150, maxAttempts: 2 }));
    const err = await expectKind(client.listJobs(), "timeout");
    assert.match(err.message, /150 ms/);
  });

  it("caps the requests in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    ({ stub, client } = await clientWith(
      async (_req, res) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        sendJson(res, 200, []);
      },
      { concurrency: 3 },
    ));
    const c = client;
    await Promise.all(Array.from({ length: 12 }, () => c.listJobs()));
    assert.equal(peak, 3);
  });

  it("reads a disabled scale set whose JSON has no `enabled` key as disabled with zero counts (§3.1, §3.7)", async () => {
    const garmJson = {
      id: 12,
      name: "ci-small-1a2b3c4d",
      state: "pending_create",
      disable_update: false,
      enable_shell: false,
      generation: 0,
      provider_name: "fake",
      image: "ubuntu",
      flavor: "small",
      os_type: "linux",
      os_arch: "amd64",
      runner_prefix: "garm",
      "github-runner-group": "Default",
      runner_bootstrap_timeout: 20,
      tags: [{ id: "a", name: "linux" }, { id: "b", name: "x64" }],
      org_id: "8a2f6b1e-0000-4000-8000-000000000001",
      org_name: "acme",
      status_messages: null,
      created_at: "2026-11-30T00:00:00Z",
      updated_at: "2026-11-30T00:00:00Z",
      endpoint: { name: "github.com" },
    };
    ({ stub, client } = await clientWith((_req, res) => sendJson(res, 200, garmJson)));
    const view = await client.getScaleSet(12);
    assert.equal(view.enabled, false);
    assert.equal(view.minIdleRunners, 0);
    assert.equal(view.maxRunners, 0);
    assert.deepEqual(view.labels, ["linux", "x64"]);
    assert.deepEqual(view.entity, { kind: "organization", id: garmJson.org_id, name: "acme" });
    assert.deepEqual(view.instances, []);
  });

  it("decodes provider_fault from base64 and sends camelCase delete flags (§2.2, §3.2)", async () => {
    ({ stub, client } = await clientWith((req, res) => {
      if (req.method === "DELETE") return sendJson(res, 200, undefined);
      sendJson(res, 200, [{ name: "garm-abc", status: "pending_delete", provider_fault: Buffer.from("boom").toString("base64"), provider_name: "fake", created_at: "0001-01-01T00:00:00Z", updated_at: "0001-01-01T00:00:00Z", heartbeat: "0001-01-01T00:00:00Z", generation: 0, capabilities: { has_shell: false } }]);
    }));
    const [runner] = await client.listScaleSetInstances(3);
    assert.equal(runner.providerFault, "boom");
    assert.equal(runner.createdAt, undefined, "Go's zero time means unset");
    await client.deleteInstance("garm-abc", { forceRemove: true, bypassGHUnauthorized: true });
    const del = stub.requests.find((r) => r.method === "DELETE");
    assert.equal(del?.path, "/api/v1/instances/garm-abc?forceRemove=true&bypassGHUnauthorized=true");
  });

  it("reads the controller at GET /controller, which the swagger lacks, and sends entity filters only when given", async () => {
    ({ stub, client } = await clientWith((req, res) => {
      if (req.path === "/api/v1/controller") return sendJson(res, 200, { controller_id: "c-1", webhook_url: "https://garm.test/webhooks" });
      sendJson(res, 200, null);
    }));
    assert.equal((await client.getController()).webhookUrl, "https://garm.test/webhooks");
    assert.deepEqual(await client.listEntities("repository", { owner: "acme", name: "app", endpoint: "github.com" }), []);
    // GARM's ?name= compares exactly while its own look-ups ignore case (garm/names.ts): findEntities lists and matches.
    assert.deepEqual(await client.findEntities("repository", "acme/app", "github.com"), []);
    await client.findEntities("organization", "acme");
    await client.listEntities("enterprise", { endpoint: "" });
    await client.deleteEntity("organization", "o-1", true);
    await client.deleteEntity("enterprise", "e-1", true);
    const sent = stub.requests.filter((r) => r.path !== "/api/v1/auth/login").map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(sent, [
      "GET /api/v1/controller",
      "GET /api/v1/repositories?owner=acme&name=app&endpoint=github.com",
      "GET /api/v1/repositories?endpoint=github.com",
      "GET /api/v1/organizations",
      "GET /api/v1/enterprises",
      "DELETE /api/v1/organizations/o-1?keepWebhook=true",
      "DELETE /api/v1/enterprises/e-1",
    ]);
  });

  describe("over the transport's WireRequest and WireResponse, not WHATWG's Request/Response", () => {
    it("sends a typed call's JSON body, content type and token", async () => {
      ({ stub, client } = await clientWith((req, res) => sendJson(res, 200, { id: 7 })));
      // The answer is not a whole scale set, so its parse fails; what went over the wire is what this test is about.
      await client.updateScaleSet(7, { enabled: false, max_runners: 0, min_idle_runners: 0 }).catch(() => undefined);
      const put = stub.requests.find((r) => r.method === "PUT");
      assert.equal(put?.path, "/api/v1/scalesets/7");
      assert.equal(put?.headers["authorization"], "Bearer t1");
      assert.equal(put?.headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(put?.body ?? ""), { enabled: false, max_runners: 0, min_idle_runners: 0 });
    });

    it("reads an empty 204 and a JSON error answer through openapi-fetch", async () => {
      ({ stub, client } = await clientWith((req, res) => {
        if (req.method === "DELETE") return void res.writeHead(204).end();
        return sendJson(res, 404, { error: "Not Found", details: "scale set not found" });
      }));
      await client.deleteScaleSet(7);
      const err = await expectKind(client.getScaleSet(7), "not-found");
      assert.match(err.message, /scale set not found/);
    });

    it("refuses a body that is not JSON text, naming the request", () => {
      assert.throws(
        () => new WireRequest("http://127.0.0.1:1/api/v1/templates", { method: "POST", body: new Uint8Array([1, 2]) }),
        /GARM requests carry JSON text; POST http:\/\/127\.0\.0\.1:1\/api\/v1\/templates was given a \[object Uint8Array\] body/,
      );
    });
  });
});
