import assert from "node:assert/strict";
import { Client, setup } from "./helpers";
import type { Simulator } from "../../../simulator";

describe("simulator: entities (§2.4)", () => {
  let sim: Simulator;
  let api: Client;
  afterEach(async () => sim.stop());

  describe("v0.2.1", () => {
    beforeEach(async () => ({ sim, api } = await setup()));

    it("§2.4 GET /organizations?name=&endpoint= and /repositories?owner=&name=&endpoint= filter by exact match", async () => {
      let r = await api.get("/organizations?name=acme&endpoint=github.com");
      assert.deepEqual(r.body.map((o: { id: string }) => o.id), [sim.organizationId]);
      r = await api.get("/organizations?name=ACME");
      assert.deepEqual(r.body, []);
      r = await api.get("/repositories?owner=acme&name=app");
      assert.equal(r.body.length, 1);
      assert.equal(r.body[0].id, sim.repositoryId);
      assert.equal(r.body[0].owner, "acme");
      r = await api.get("/repositories?owner=acme&name=other");
      assert.deepEqual(r.body, []);
      assert.deepEqual((await api.get("/enterprises?name=x")).body, []);
    });

    it("§2.4 GET by id: 404 for an unknown UUID, 400 for a non-UUID", async () => {
      assert.equal((await api.get(`/organizations/${sim.organizationId}`)).body.name, "acme");
      assert.equal((await api.get("/organizations/4a3c3a4e-0b7e-4d43-9d0e-2f5f1f0a0b0c")).status, 404);
      assert.equal((await api.get("/organizations/acme")).status, 400);
      assert.equal((await api.get("/repositories/acme")).status, 400);
      assert.equal((await api.get(`/enterprises/${sim.organizationId}`)).status, 404, "an org id is not an enterprise");
    });

    it("§2.4/§1.7 create requires webhook_secret: v0.2.1 answers 500 (MissingSecretError unmapped)", async () => {
      const r = await api.post("/organizations", { name: "neworg", credentials_name: "acme-pat" });
      assert.deepEqual([r.status, r.body], [500, { error: "Server error", details: "" }]);
    });

    it("§2.4 create: unknown credentials are 400, duplicates 409, success 200", async () => {
      let r = await api.post("/organizations", { name: "o2", credentials_name: "nope", webhook_secret: "s" });
      assert.deepEqual([r.status, r.body.details], [400, "credentials nope not defined"]);
      r = await api.post("/repositories", { owner: "acme", name: "app", credentials_name: "acme-pat", webhook_secret: "s" });
      assert.deepEqual([r.status, r.body.details], [409, "repository acme/app already exists"]);
      r = await api.post("/organizations", { name: "o2", credentials_name: "acme-pat", webhook_secret: "s" });
      assert.equal(r.status, 200);
      assert.equal(r.body.name, "o2");
      assert.equal(r.body.endpoint.name, "github.com");
    });

    it("§2.4 an entity with scale sets or pools cannot be deleted", async () => {
      await api.createScaleSet();
      let r = await api.del(`/organizations/${sim.organizationId}`);
      assert.deepEqual([r.status, r.body.details], [400, "organization has scale sets defined; delete them first"]);
      const pool = sim.addPool("fake", sim.repositoryId);
      r = await api.del(`/repositories/${sim.repositoryId}`);
      assert.deepEqual([r.status, r.body.details], [400, `repo has pools defined (${pool})`]);
    });
  });

  describe("head", () => {
    beforeEach(async () => ({ sim, api } = await setup({ behaviour: "head" })));

    it("Appendix A: at HEAD a missing webhook_secret is 400 `missing secret`", async () => {
      const r = await api.post("/organizations", { name: "neworg", credentials_name: "acme-pat" });
      assert.deepEqual([r.status, r.body], [400, { error: "Bad Request", details: "missing secret" }]);
    });
  });
});
