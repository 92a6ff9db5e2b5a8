import assert from "node:assert/strict";
import { Client, setup } from "./helpers";
import type { Simulator } from "../../../simulator";

describe("simulator: auth, first run, controller (§1)", () => {
  let sim: Simulator;
  let api: Client;
  afterEach(async () => sim.stop());

  describe("unseeded", () => {
    beforeEach(async () => ({ sim, api } = await setup({ seed: false })));

    it("§1.2 every route behind initRequired answers 409 init_required before first-run", async () => {
      for (const [m, p] of [["POST", "/auth/login"], ["GET", "/controller"], ["GET", "/scalesets"]] as const) {
        const r = await api.call(m, p, m === "POST" ? { username: "a", password: "b" } : undefined, false);
        assert.equal(r.status, 409, p);
        assert.deepEqual(r.body, { error: "init_required", details: "Missing superuser" });
      }
    });

    it("§1.2 first-run validates username and password, then creates the admin; a second run is 409", async () => {
      let r = await api.call("POST", "/first-run", { username: "garm-admin", email: "a@b.c", password: "Sup3r-Secret-Pass!" }, false);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: "Bad Request", details: "invalid username" });
      r = await api.call("POST", "/first-run", { username: "admin", email: "a@b.c", password: "weak" }, false);
      assert.deepEqual(r.body, { error: "Bad Request", details: "password is too weak" });
      r = await api.call("POST", "/first-run", { username: "admin", email: "a@b.c", full_name: "A", password: "Sup3r-Secret-Pass!" }, false);
      assert.equal(r.status, 200);
      assert.equal(r.body.username, "admin");
      assert.equal(r.body.is_admin, true);
      assert.equal("password" in r.body, false);
      r = await api.call("POST", "/first-run", { username: "admin", email: "a@b.c", password: "Sup3r-Secret-Pass!" }, false);
      assert.deepEqual([r.status, r.body], [409, { error: "Conflict", details: "already initialized" }]);
    });

    it("§1.5/§1.6 urls_required is checked before auth; /controller is exempt and PUT /controller lifts it", async () => {
      await api.call("POST", "/first-run", { username: "admin", email: "a@b.c", password: "Sup3r-Secret-Pass!" }, false);
      let r = await api.call("GET", "/scalesets", undefined, false);
      assert.equal(r.status, 409);
      assert.equal(r.body.error, "urls_required");
      assert.equal(r.body.details, "Missing required URLs. Make sure you update the metadata and callback URLs");
      const login = await api.call("POST", "/auth/login", { username: "admin", password: "Sup3r-Secret-Pass!" }, false);
      api.token = login.body.token;
      r = await api.get("/controller");
      assert.equal(r.status, 200);
      assert.equal(r.body.metadata_url, "");
      r = await api.put("/controller", { metadata_url: "not a url" });
      assert.deepEqual(r.body, { error: "Bad Request", details: "invalid metadata_url" });
      r = await api.put("/controller", { metadata_url: `${sim.url}/api/v1/metadata`, callback_url: `${sim.url}/api/v1/callbacks` });
      assert.equal(r.status, 200);
      assert.equal(r.body.agent_url, sim.url, "agent_url inferred from callback_url");
      r = await api.get("/scalesets");
      assert.deepEqual([r.status, r.body], [200, []]);
    });
  });

  describe("seeded", () => {
    beforeEach(async () => ({ sim, api } = await setup()));

    it("§1.3 login returns {token}; bad credentials are 401 Not Authorized with empty details", async () => {
      const ok = await api.call("POST", "/auth/login", { username: sim.username, password: sim.password }, false);
      assert.equal(ok.status, 200);
      assert.deepEqual(Object.keys(ok.body), ["token"]);
      assert.equal(ok.body.token.split(".").length, 3);
      for (const creds of [{ username: sim.username, password: "nope" }, { username: "", password: "" }, { username: "x", password: "y" }]) {
        const r = await api.call("POST", "/auth/login", creds, false);
        assert.deepEqual([r.status, r.body], [401, { error: "Not Authorized", details: "" }]);
      }
      const bad = await api.call("POST", "/auth/login", "{not json", false);
      assert.deepEqual([bad.status, bad.body], [400, { error: "Bad Request", details: "invalid request" }]);
    });

    it("§1.4 the Authorization header must split into exactly two parts; missing or invalid tokens are 401 Authentication failed", async () => {
      const tries: (string | undefined)[] = [undefined, `Bearer  ${api.token}`, api.token, `Bearer ${api.token}x`, "Bearer a.b.c"];
      for (const h of tries) {
        const res = await fetch(`${sim.url}/api/v1/scalesets`, { headers: h === undefined ? {} : { Authorization: h } });
        assert.equal(res.status, 401, String(h));
        assert.deepEqual(await res.json(), { error: "Authentication failed", details: "" });
      }
      // The first word is not checked.
      const ok = await fetch(`${sim.url}/api/v1/scalesets`, { headers: { Authorization: `Token ${api.token}` } });
      assert.equal(ok.status, 200);
    });

    it("§1.3 invalidated tokens get 401 Authentication failed and a re-login works", async () => {
      sim.invalidateTokens();
      const r = await api.get("/scalesets");
      assert.deepEqual([r.status, r.body], [401, { error: "Authentication failed", details: "" }]);
      await api.login();
      assert.equal((await api.get("/scalesets")).status, 200);
    });

    it("§1.6 GET /controller returns the controller info with the seeded URLs", async () => {
      const r = await api.get("/controller");
      assert.equal(r.status, 200);
      assert.equal(r.body.metadata_url, `${sim.url}/api/v1/metadata`);
      assert.equal(r.body.callback_url, `${sim.url}/api/v1/callbacks`);
      assert.match(r.body.controller_id, /^[0-9a-f-]{36}$/);
    });

    it("§1.1/§1.7 unknown routes get the catch-all 404 with lower-case 'found', even without a token", async () => {
      const r = await api.call("GET", "/no/such/route", undefined, false);
      assert.deepEqual([r.status, r.body], [404, { error: "Not found", details: "Resource not found" }]);
      const root = await fetch(`${sim.url}/elsewhere`);
      assert.equal(root.status, 404);
    });

    it("§1.1 routes answer with and without a trailing slash", async () => {
      assert.equal((await api.get("/scalesets/")).status, 200);
      assert.equal((await api.get("/providers/")).status, 200);
    });
  });
});
