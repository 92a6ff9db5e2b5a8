import assert from "node:assert/strict";
import { Client, setup } from "./helpers";
import type { Simulator } from "../../../simulator";

// GARM v0.2.1 builds the credentials list with `var ret []params.ForgeCredentials` and appends (database/sql/github.go
// L374-398, database/sql/gitea.go L381-395), so with no credentials it encodes a nil slice: the body is `null`, not `[]`
// (seen on real GARM by test/e2e/garm-from-scratch-real-garm.test.ts after its destroy).
describe("simulator: an empty credentials list is JSON null, as GARM's nil slice", () => {
  let sim: Simulator;
  let api: Client;
  afterEach(async () => sim.stop());

  it("GET /github/credentials, /credentials and /gitea/credentials answer null when there are none, a list otherwise", async () => {
    ({ sim, api } = await setup());
    assert.equal((await api.get("/gitea/credentials")).text.trim(), "null");
    assert.equal((await api.get("/github/credentials")).body.length, 1, "the seeded acme-pat");
    for (const plural of ["repositories", "organizations"]) {
      for (const e of (await api.get(`/${plural}`)).body as { id: string }[]) assert.equal((await api.del(`/${plural}/${e.id}`)).status, 200); // organizations.go L193
    }
    const [creds] = (await api.get("/github/credentials")).body as { id: number }[];
    assert.equal((await api.del(`/github/credentials/${creds.id}`)).status, 204); // github_credentials.go L173-179
    assert.equal((await api.get("/github/credentials")).text.trim(), "null");
    assert.equal((await api.get("/credentials")).text.trim(), "null");
  });
});
