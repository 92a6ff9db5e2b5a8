// GarmEndpoint's Pulumi id is `<forge>/<name>`, never the bare name, so the program `pulumi import --file` writes can
// make credentials' `endpoint:` a reference (pulumi-behaviour.md §2.6); state written with the bare name still reads.
import { strict as assert } from "node:assert";
import type { EndpointView, Forge, ForgeCalls } from "../../../provider/garm/client";
import { GarmApiError } from "../../../provider/garm/errors";
import { endpointProviderWith } from "../../../provider/kinds/endpoint/resource";
import { importEndpoint } from "../../../provider/kinds/endpoint/import";
import { parseEndpointId } from "../../../provider/kinds/endpoint/id";
import { toEndpointOutputs } from "../../../provider/kinds/endpoint/inputs";

const views: EndpointView[] = [
  { forge: "github", name: "ghes", description: "", baseUrl: "https://ghes.test", apiBaseUrl: "https://ghes.test/api/v3/", uploadBaseUrl: "https://ghes.test/up/", caCertBundle: "" },
  { forge: "gitea", name: "gitea-local", description: "", baseUrl: "https://gitea.test", apiBaseUrl: "https://gitea.test/api/v1", uploadBaseUrl: "", caCertBundle: "" },
];
const client = {
  async getEndpoint(forge: Forge, name: string) {
    const found = views.find((v) => v.forge === forge && v.name === name);
    if (!found) throw new GarmApiError("not-found", `GET /${forge}/endpoints/${name}`, 404, "Not Found", "not found");
    return found;
  },
  async createEndpoint() {
    return views[0];
  },
} as unknown as ForgeCalls;
const provider = endpointProviderWith({ client: () => client, log: { info: () => {}, warn: () => {} } });
const stored = (v: EndpointView) => toEndpointOutputs({ ...v, adoptExisting: false }) as unknown as Record<string, unknown>;

describe("GarmEndpoint id", () => {
  it("create and import give `<forge>/<name>`, which is not the name", async () => {
    const created = await provider.create({ forge: "github", name: "ghes", description: "", baseUrl: "https://ghes.test", apiBaseUrl: "https://ghes.test/api/v3/", uploadBaseUrl: "https://ghes.test/up/", adoptExisting: false });
    assert.equal(created.id, "github/ghes");
    assert.equal((await importEndpoint(client as never, "gitea-local")).id, "gitea/gitea-local");
    assert.equal((await importEndpoint(client as never, "github/ghes")).id, "github/ghes");
  });

  it("read finds the endpoint under either id form, with or without stored outputs, and keeps the stored id", async () => {
    for (const id of ["ghes", "github/ghes"]) {
      const withOutputs = await provider.read!(id, stored(views[0]));
      assert.equal(withOutputs.id, id);
      assert.equal((withOutputs.props as { name: string }).name, "ghes");
    }
    const bare = await provider.read!("gitea/gitea-local", {});
    assert.equal((bare.props as { forge: string }).forge, "gitea");
    assert.deepEqual(parseEndpointId("ghes"), { name: "ghes" });
    assert.deepEqual(parseEndpointId("gitea/x"), { forge: "gitea", name: "x" });
  });
});
