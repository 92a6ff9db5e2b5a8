// The functions' look-ups against a fake GARM that answers views as the client parses them: what each finds, the words
// of each failure (unknown name, a name two endpoints hold, the wrong forge, GARM down), and one GARM read per call.
import { strict as assert } from "node:assert";
import * as net from "node:net";
import { GarmClient } from "../../../provider/garm/client";
import { FUNCTIONS, type FunctionName, type GarmReads, invokeFunction } from "../../../provider/functions";
import { GARM_READS } from "../../../provider/functions/define";

const entity = (id: string, name: string, endpoint: string) => ({ id, name, endpoint, credentials: "creds", poolBalancerType: "roundrobin", agentMode: false });

function scaleSet(id: number, name: string, org: string, endpoint: string) {
  return {
    id,
    name,
    enabled: true,
    minIdleRunners: 0,
    maxRunners: 4,
    desiredRunnerCount: 1,
    image: "img",
    flavor: "small",
    osType: "linux",
    osArch: "amd64",
    providerName: "fake",
    runnerPrefix: "garm",
    runnerGroup: "",
    runnerBootstrapTimeout: 20,
    extraSpecs: { disk: 10 },
    enableShell: false,
    templateId: 2,
    templateName: undefined,
    githubScaleSetId: 7,
    labels: ["linux"],
    instances: [],
    entity: { kind: "organization" as const, id: `org-${org}-${endpoint}`, name: org },
    endpoint,
    forgeType: "github",
  };
}

/** A GARM holding org "acme" on two endpoints, "other" on one, and some scale sets; records every call. */
function fakeGarm(): { garm: GarmReads; calls: string[] } {
  const calls: string[] = [];
  const answers: Record<string, (...args: never[]) => unknown> = {
    getController: () => ({ controllerId: "c-1", metadataUrl: "m", callbackUrl: "cb", webhookUrl: "w", controllerWebhookUrl: "w/c-1", minimumJobAgeBackoff: 30, version: "v0.2.1" }),
    listProviders: () => [
      { name: "zeta", type: "external", description: "" },
      { name: "alpha", type: "external", description: "first" },
    ],
    listEndpoints: (forge: string) =>
      forge === "github"
        ? [{ name: "github.com", description: "", apiBaseUrl: "a", uploadBaseUrl: "u", baseUrl: "b", caCertBundle: "", forge: "github" }]
        : [{ name: "gitea.example.com", description: "", apiBaseUrl: "a", uploadBaseUrl: "", baseUrl: "b", caCertBundle: "", forge: "gitea" }],
    listCredentials: () => [{ id: 3, name: "creds", description: "", authType: "pat", forge: "github", endpoint: "github.com", repositories: [], organizations: [], enterprises: [] }],
    listEntities: (kind: string) =>
      kind === "organization" ? [entity("o1", "acme", "github.com"), entity("o2", "acme", "ghes.example.com"), entity("o3", "other", "github.com")] : [],
    listTemplates: (osType?: string, forge?: string) =>
      [
        { id: 1, name: "github_windows", osType: "windows", forgeType: "github", owner: "system" },
        { id: 2, name: "github_linux", osType: "linux", forgeType: "github", owner: "system" },
        { id: 3, name: "gitea_linux", osType: "linux", forgeType: "gitea", owner: "system" },
      ].filter((t) => (osType === undefined || t.osType === osType) && (forge === undefined || t.forgeType === forge)),
    listScaleSets: () => [scaleSet(1, "ci-small-1a2b3c4d", "acme", "github.com"), scaleSet(2, "ci-small-5e6f7a8b", "acme", "ghes.example.com"), scaleSet(3, "exact", "other", "github.com")],
    getScaleSet: (id: number) => scaleSet(id, "exact", "other", "github.com"),
    listScaleSetInstances: () => [
      { id: "i2", name: "garm-b", status: "running", runnerStatus: "idle", providerName: "fake", scaleSetId: 3, providerFault: "", createdAt: "2026-01-01T00:00:00Z", updatedAt: undefined },
      { id: "i1", name: "garm-a", status: "pending_create", runnerStatus: "", providerName: "fake", scaleSetId: 3, providerFault: "", createdAt: undefined, updatedAt: undefined },
    ],
  };
  const garm = Object.fromEntries(
    GARM_READS.map((method) => [
      method,
      async (...args: never[]) => {
        calls.push(method);
        const answer = answers[method];
        if (!answer) throw new Error(`the fake GARM does not answer ${method}`);
        return answer(...args);
      },
    ]),
  ) as unknown as GarmReads;
  return { garm, calls };
}

async function call(name: FunctionName, args: unknown, garm = fakeGarm().garm): Promise<Record<string, unknown>> {
  return invokeFunction(FUNCTIONS[name] as never, () => garm, args);
}

async function failure(name: FunctionName, args: unknown, garm?: GarmReads): Promise<string> {
  try {
    await call(name, args, garm);
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail(`${name}(${JSON.stringify(args)}) did not fail`);
}

describe("functions: look-ups", () => {
  it("finds an organization by name ignoring case, as GARM compares it, given the endpoint when two hold the name", async () => {
    const found = await call("getOrganization", { name: "ACME", endpoint: "GHES.example.com" });
    assert.deepEqual(found, { id: "o2", name: "acme", endpoint: "ghes.example.com", credentials: "creds", poolBalancerType: "roundrobin", agentMode: false });
    assert.equal((await call("getOrganization", { name: "Other" })).id, "o3");
  });

  it("an unknown name fails with what was looked for and what GARM holds nearest", async () => {
    assert.equal(
      await failure("getOrganization", { name: "acm" }),
      'getOrganization: GARM has no organization named "acm"; nearest it holds: acme (endpoint github.com), acme (endpoint ghes.example.com), other (endpoint github.com)',
    );
    assert.equal(await failure("getRepository", { name: "acme/app" }), 'getRepository: GARM has no repository named "acme/app"; it holds no repository');
  });

  it("a name held on another endpoint than the one given says where it is", async () => {
    assert.equal(
      await failure("getOrganization", { name: "other", endpoint: "ghes.example.com" }),
      'getOrganization: GARM has no organization named "other" on endpoint "ghes.example.com"; nearest it holds: other (endpoint github.com)',
    );
  });

  it("a name two endpoints hold fails and says to give the endpoint", async () => {
    assert.equal(
      await failure("getOrganization", { name: "acme" }),
      'getOrganization: GARM holds 2 organizations named "acme" (acme (endpoint github.com), acme (endpoint ghes.example.com)): give endpoint to say which',
    );
  });

  it("the wrong forge: an endpoint of the other forge says which forge to give, and a forge GARM lacks names the argument", async () => {
    assert.equal(
      await failure("getEndpoint", { name: "gitea.example.com" }),
      'getEndpoint: GARM has no github endpoint named "gitea.example.com"; nearest it holds: github.com; if it is a gitea endpoint, give forge: gitea',
    );
    assert.equal((await call("getEndpoint", { name: "gitea.example.com", forge: "gitea" })).forge, "gitea");
    assert.match(await failure("getTemplate", { forge: "gitlab", osType: "linux" }), /^getTemplate: forge: .*"github"\|"gitea"/);
    assert.match(await failure("getEndpoint", { name: "github.com", colour: "blue" }), /^getEndpoint: colour: Unrecognized key/);
  });

  it("GARM down: the function's name, the request and what to do", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (server.address() as net.AddressInfo).port;
        server.close(() => resolve(p));
      });
    });
    const down = new GarmClient({ url: `http://127.0.0.1:${port}`, username: "admin", password: "pw-not-in-messages", maxAttempts: 1, maxRetryMs: 0 });
    const message = await failure("getController", {}, down);
    assert.match(message, /^getController: GARM .*failed with .*ECONNREFUSED.*check that GARM is running and garm:url is right/);
    assert.doesNotMatch(message, /pw-not-in-messages/);
    await down.close();
  });

  it("reads the system template for a forge and OS, or one by name, and names the arguments when neither is given", async () => {
    assert.equal((await call("getTemplate", { forge: "gitea", osType: "linux" })).name, "gitea_linux");
    assert.equal((await call("getTemplate", { name: "github_windows" })).id, 1);
    assert.equal((await call("getTemplate", { id: 2 })).name, "github_linux");
    assert.match(await failure("getTemplate", {}), /^getTemplate: give id, name, or forge and osType/);
    assert.match(await failure("getTemplate", { name: "github_Linux" }), /GARM has no template named "github_Linux"; nearest it holds: github_linux/);
    assert.deepEqual(((await call("getTemplates", { osType: "linux" })).templates as { id: number }[]).map((t) => t.id), [2, 3]);
  });

  it("finds a scale set by live name, or by its GarmScaleSet's name when one generation matches in scope", async () => {
    assert.equal((await call("getScaleSet", { name: "exact" })).id, 3);
    const found = await call("getScaleSet", { name: "ci-small", endpoint: "github.com" });
    assert.equal(found.id, 1);
    assert.equal(found.extraSpecs, '{"disk":10}');
    assert.equal(found.entityName, "acme");
    assert.equal(
      await failure("getScaleSet", { name: "ci-small" }),
      'getScaleSet: GARM holds 2 scale sets named "ci-small" (ci-small-1a2b3c4d (id 1, organization acme, endpoint github.com), ' +
        "ci-small-5e6f7a8b (id 2, organization acme, endpoint ghes.example.com)): give organization, repository or enterprise, endpoint, or id to say which",
    );
    assert.match(await failure("getScaleSet", { name: "exact", organization: "acme" }), /no scale set named "exact" of organization "acme"; nearest it holds: exact \(id 3, organization other/);
  });

  it("lists providers and runners sorted, so an output does not change with GARM's order", async () => {
    assert.deepEqual(((await call("getProviders", {})).providers as { name: string }[]).map((p) => p.name), ["alpha", "zeta"]);
    assert.deepEqual(await call("getRunners", { scaleSetId: 3 }), {
      runners: [
        { name: "garm-a", status: "pending_create", runnerStatus: "", createdAt: "", updatedAt: "" },
        { name: "garm-b", status: "running", runnerStatus: "idle", createdAt: "2026-01-01T00:00:00Z", updatedAt: "" },
      ],
    });
    assert.match(await failure("getRunners", { scaleSetId: 3, poolId: "p" }), /give either scaleSetId or poolId/);
  });

  it("each function makes one GARM read per call, and calls on one client share a request they both make", async () => {
    const cases: [FunctionName, unknown][] = [
      ["getController", {}],
      ["getProviders", {}],
      ["getEndpoint", { name: "github.com" }],
      ["getCredentials", { name: "CREDS" }],
      ["getOrganization", { name: "other" }],
      ["getTemplate", { forge: "github", osType: "linux" }],
      ["getTemplates", {}],
      ["getScaleSet", { name: "exact" }],
      ["getScaleSet", { id: 3 }],
      ["getRunners", { scaleSetId: 3 }],
    ];
    for (const [name, args] of cases) {
      const { garm, calls } = fakeGarm();
      await call(name, args, garm);
      assert.equal(calls.length, 1, `${name}(${JSON.stringify(args)}) made ${calls.join(", ")}`);
    }
    const { garm, calls } = fakeGarm();
    await Promise.all([call("getScaleSet", { name: "exact" }, garm), call("getScaleSet", { name: "ci-small", endpoint: "github.com" }, garm), call("getScaleSet", { name: "exact" }, garm)]);
    assert.deepEqual(calls, ["listScaleSets"]);
  });
});
