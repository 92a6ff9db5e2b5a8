import { strict as assert } from "node:assert";
import type * as http from "node:http";
import { GarmClient } from "../../../provider/garm/client";
import { GarmApiError } from "../../../provider/garm/errors";
import type { Logger } from "../../../provider/common/log";
import { scaleSetProviderWith } from "../../../provider/kinds/scaleset/resource";
import { type HttpStub, sendJson, startHttpStub } from "../../support/http-stub";

const PASSWORD = "s3cret-Password-1";
const quiet: Logger = { info: () => {}, warn: () => {} };

/** A front proxy's own 404 page, the way nginx writes it for a path it has no route for. */
function proxy404(res: http.ServerResponse): void {
  const page = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n</body>\r\n</html>\r\n";
  res.writeHead(404, { "Content-Type": "text/html", "Content-Length": Buffer.byteLength(page) });
  res.end(page);
}

function plain404(res: http.ServerResponse): void {
  res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
  res.end("404 page not found\n");
}

async function rejection(promise: Promise<unknown>): Promise<GarmApiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GarmApiError, `expected GarmApiError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected the call to fail");
}

describe("GarmClient: only GARM's own not-found means gone (§1.1, §1.7)", () => {
  let stub: HttpStub | undefined;
  let client: GarmClient | undefined;
  afterEach(async () => {
    await client?.close();
    await stub?.close();
    stub = undefined;
    client = undefined;
  });

  /** A proxy that forwards login to GARM but answers everything else with `answer404`. */
  async function behindProxy(answer404: (res: http.ServerResponse) => void) {
    stub = await startHttpStub((req, res) => {
      if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: "t1" });
      return answer404(res);
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {}, maxAttempts: 2 });
    return client;
  }

  const foreign404s: [string, (res: http.ServerResponse) => void][] = [
    ["a proxy's HTML 404 page", proxy404],
    ["a plain-text 404 (Go's default mux)", plain404],
    ["GARM's catch-all for an unknown route, `Not found` (§1.1)", (res) => sendJson(res, 404, { error: "Not found", details: "Resource not found" })],
    ["a JSON 404 without GARM's `details`", (res) => sendJson(res, 404, { error: "Not Found" })],
  ];
  for (const [what, answer] of foreign404s) {
    it(`does not read ${what} as the scale set being gone, and names garm:url`, async () => {
      const c = await behindProxy(answer);
      const err = await rejection(c.getScaleSet(5));
      assert.notEqual(err.kind, "not-found", err.message);
      assert.equal(err.kind, "unknown-route");
      assert.match(err.message, /GET \/scalesets\/5/);
      assert.match(err.message, /garm:url/);
      assert.match(err.message, /\/api\/v1/);
    });
  }

  it("reads GARM's handleError 404 `Not Found` with details as gone (§1.7)", async () => {
    stub = await startHttpStub((req, res) => {
      if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: "t1" });
      return sendJson(res, 404, { error: "Not Found", details: "fetching scale set: not found" });
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {} });
    assert.equal((await rejection(client.getScaleSet(5))).kind, "not-found");
  });

  it("never reports a login answered 404 as not-found; says garm:url may carry /api/v1 or a proxy path (§1.3)", async () => {
    stub = await startHttpStub((_req, res) => proxy404(res));
    client = new GarmClient({ url: `${stub.url}/api/v1`, username: "admin", password: PASSWORD, sleep: async () => {}, maxAttempts: 2 });
    const err = await rejection(client.getScaleSet(5));
    assert.equal(err.kind, "unknown-route", err.message);
    assert.match(err.message, /POST \/auth\/login/);
    assert.match(err.message, /garm:url/);
    assert.match(err.message, /\/api\/v1/);
    assert.ok(!err.message.includes(PASSWORD));
  });

  it("reads a login answered 401 `Authentication failed` as a wrong garm:url, not a wrong password (§1.1 middleware order, §1.5)", async () => {
    // Real GARM with garm:url ending in /api/v1: /api/v1/api/v1/auth/login falls to the catch-all behind the JWT check.
    stub = await startHttpStub((_req, res) => sendJson(res, 401, { error: "Authentication failed", details: "" }));
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {} });
    const err = await rejection(client.listJobs());
    assert.equal(err.kind, "unknown-route", err.message);
    assert.match(err.message, /garm:url/);
    assert.doesNotMatch(err.message, /username and password/);
  });

  it("reads a login answered 200 with a web page instead of a token as a wrong garm:url (§1.3)", async () => {
    stub = await startHttpStub((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html><body>Welcome</body></html>");
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: PASSWORD, sleep: async () => {} });
    const err = await rejection(client.listJobs());
    assert.equal(err.kind, "unknown-route", err.message);
    assert.match(err.message, /garm:url/);
  });

  describe("GarmScaleSet through a front proxy that answers 404 for GARM's paths", () => {
    const stored = {
      stateVersion: 1,
      scaleSetId: 5,
      name: "ci",
      liveName: "ci-1a2b3c4d",
      labels: ["linux"],
      drain: { timeoutSeconds: 5, pollSeconds: 1, jobStaleAfterHours: 120 },
    };

    it("refresh (read) throws instead of dropping the scale set from state", async () => {
      const c = await behindProxy(proxy404);
      const provider = scaleSetProviderWith({ client: () => c, log: quiet, now: Date.now, sleep: async () => {} });
      await assert.rejects(provider.read!("5", stored), (err: Error) => err instanceof GarmApiError && /garm:url/.test(err.message));
    });

    it("destroy (delete) throws instead of reporting the scale set deleted", async () => {
      const c = await behindProxy(proxy404);
      const provider = scaleSetProviderWith({ client: () => c, log: quiet, now: Date.now, sleep: async () => {} });
      await assert.rejects(provider.delete!("5", stored), (err: Error) => err instanceof GarmApiError && /garm:url/.test(err.message));
    });
  });
});
