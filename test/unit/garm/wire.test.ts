// The request and response objects openapi-fetch handles in place of WHATWG's (transport.ts): what they carry over the
// wire, what they refuse, and the part of Response's interface openapi-fetch and the client read.
import { strict as assert } from "node:assert";
import { GarmClient } from "../../../provider/garm/client";
import { WireRequest } from "../../../provider/garm/transport";
import { type HttpStub, type StubRequest, sendJson, startHttpStub } from "../../support/http-stub";

describe("GARM requests without WHATWG Request/Response", () => {
  let stub: HttpStub | undefined;
  let client: GarmClient | undefined;
  afterEach(async () => {
    await client?.close();
    await stub?.close();
    client = undefined;
    stub = undefined;
  });

  it("sends a typed call's JSON body, content type and token, and reads its JSON answer", async () => {
    const seen: StubRequest[] = [];
    stub = await startHttpStub((req, res) => {
      if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: "t1" });
      seen.push(req);
      return sendJson(res, 200, { id: 7, name: "ci-small", enabled: false, max_runners: 0, min_idle_runners: 0 });
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: "pw" });
    // The answer is not a whole scale set, so its parse fails; what went over the wire is what this test is about.
    await client.updateScaleSet(7, { enabled: false, max_runners: 0, min_idle_runners: 0 }).catch(() => undefined);
    const [put] = seen;
    assert.equal(put.method, "PUT");
    assert.equal(put.path, "/api/v1/scalesets/7");
    assert.equal(put.headers["authorization"], "Bearer t1");
    assert.equal(put.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(put.body), { enabled: false, max_runners: 0, min_idle_runners: 0 });
  });

  it("reads an empty 204 and a JSON error answer through openapi-fetch", async () => {
    stub = await startHttpStub((req, res) => {
      if (req.path === "/api/v1/auth/login") return sendJson(res, 200, { token: "t1" });
      if (req.method === "DELETE") {
        res.writeHead(204).end();
        return;
      }
      return sendJson(res, 404, { error: "Not Found", details: "scale set not found" });
    });
    client = new GarmClient({ url: stub.url, username: "admin", password: "pw" });
    await client.deleteScaleSet(7);
    await assert.rejects(client.getScaleSet(7), (err: Error & { kind?: string }) => err.kind === "not-found" && /scale set not found/.test(err.message));
  });

  it("refuses a body that is not JSON text, naming the request", () => {
    assert.throws(
      () => new WireRequest("http://127.0.0.1:1/api/v1/templates", { method: "POST", body: new Uint8Array([1, 2]) }),
      /GARM requests carry JSON text; POST http:\/\/127\.0\.0\.1:1\/api\/v1\/templates was given a \[object Uint8Array\] body/,
    );
  });
});
