// The settle rule of a GarmPool create whose answer was lost (provider/kinds/pool/unconfirmed.ts, issue 34 item 7):
// a pool is this create's only when GARM holds every field the create sent, read back as a read normalises it; none
// is taken when two can be it, none that was there before, and none another create of this process holds.
import { strict as assert } from "node:assert";
import type { PoolView } from "../../../provider/garm/client";
import { differsFromSent, settleAmong, settlePool } from "../../../provider/kinds/pool/unconfirmed";
import { poolDefaults } from "../../../provider/kinds/pool/inputs";
import type { ResolvedEntity } from "../../../provider/runners/state";

const entity: ResolvedEntity = { kind: "organization", id: "8F0B6C1E-1111-4222-8333-444455556666", name: "acme", endpoint: "github.com" };
const sent = poolDefaults({ organization: "acme", providerName: "fake", image: "ubuntu-24.04", flavor: "small", labels: ["Linux", "x64"], maxRunners: 3, runnerBootstrapTimeout: 20 });

/** A pool as GARM answers a create of `sent` by id: its defaults filled in, its tags in its own order and case. */
function pool(id: string, over: Partial<PoolView> = {}): PoolView {
  return {
    id,
    providerName: "fake",
    entityName: "acme",
    entity: { kind: "organization", id: entity.id.toLowerCase(), name: "acme" },
    maxRunners: 3,
    minIdleRunners: 0,
    image: "ubuntu-24.04",
    flavor: "small",
    osType: "linux",
    osArch: "amd64",
    labels: ["x64", "linux"],
    enabled: true,
    instances: [],
    enableShell: false,
    runnerPrefix: "garm",
    runnerBootstrapTimeout: 20,
    extraSpecs: undefined,
    runnerGroup: "",
    priority: 0,
    templateId: 1,
    templateName: "github_linux",
    forgeType: "github",
    ...over,
  } as PoolView;
}

describe("the settle rule of a lost pool create answer", () => {
  const rows: { what: string; views: PoolView[]; sent?: typeof sent; before?: string[]; held?: string[]; expect: "absent" | "ambiguous" | string }[] = [
    { what: "GARM has nothing new: the create did not land", views: [], expect: "absent" },
    { what: "the one pool holding every field sent", views: [pool("a")], expect: "a" },
    { what: "a sibling with another maxRunners is not it", views: [pool("s", { maxRunners: 5 })], expect: "absent" },
    { what: "a sibling with another priority is not it", views: [pool("s", { priority: 10 })], expect: "absent" },
    { what: "the sibling left out, its own taken", views: [pool("s", { maxRunners: 5 }), pool("a")], expect: "a" },
    { what: "another minIdleRunners", views: [pool("s", { minIdleRunners: 1 })], expect: "absent" },
    { what: "another runner prefix", views: [pool("s", { runnerPrefix: "ci" })], expect: "absent" },
    { what: "another runner group", views: [pool("s", { runnerGroup: "team" })], expect: "absent" },
    { what: "another bootstrap timeout", views: [pool("s", { runnerBootstrapTimeout: 30 })], expect: "absent" },
    { what: "shell enabled", views: [pool("s", { enableShell: true })], expect: "absent" },
    { what: "disabled", views: [pool("s", { enabled: false })], expect: "absent" },
    { what: "extra specs the create did not send", views: [pool("s", { extraSpecs: { disk: 10 } })], expect: "absent" },
    { what: "a template the create did not pin", views: [pool("s", { templateId: 7, templateName: "mine" })], expect: "absent" },
    { what: "another provider", views: [pool("s", { providerName: "lxd" })], expect: "absent" },
    { what: "another image", views: [pool("s", { image: "debian" })], expect: "absent" },
    { what: "another label", views: [pool("s", { labels: ["linux", "arm64"] })], expect: "absent" },
    { what: "under another entity", views: [pool("s", { entity: { kind: "organization", id: "00000000-0000-4000-8000-000000000000", name: "other" } })], expect: "absent" },
    { what: "labels in GARM's case and order are the same", views: [pool("a", { labels: ["LINUX", "X64"] })], expect: "a" },
    { what: "GARM's OS and arch omitted fall back to what was sent", views: [pool("a", { osType: "", osArch: "" })], expect: "a" },
    { what: "two identical pools: none is taken", views: [pool("a"), pool("b")], expect: "ambiguous" },
    { what: "a pool there before the create is never it", views: [pool("old")], before: ["old"], expect: "absent" },
    { what: "a pool another create of this process holds is never it", views: [pool("sib"), pool("a")], held: ["sib"], expect: "a" },
    { what: "extra specs sent are matched as JSON", views: [pool("a", { extraSpecs: { b: 1, a: { c: 2 } } })], sent: { ...sent, extraSpecs: '{"a":{"c":2},"b":1}' }, expect: "a" },
    { what: "a pinned template matched by id", views: [pool("a", { templateId: 7, templateName: "mine" })], sent: { ...sent, templateId: 7 }, expect: "a" },
    { what: "priority sent is matched", views: [pool("s"), pool("a", { priority: 10 })], sent: { ...sent, priority: 10 }, expect: "a" },
  ];
  for (const row of rows) {
    it(row.what, () => {
      const found = settleAmong(row.views, entity, row.sent ?? sent, row.before ?? [], new Set(row.held ?? []));
      assert.equal(found.kind === "ours" ? found.view.id : found.kind, row.expect);
    });
  }

  it("names the differing fields, as GARM echoes them", () => {
    assert.deepEqual(differsFromSent(pool("s", { maxRunners: 5, priority: 1 }), sent, entity), ["maxRunners", "priority"]);
  });

  it("reads the pools the list leaves in by id, since the list leaves out extra specs and the template", async () => {
    const listed = [pool("a", { extraSpecs: undefined, templateName: undefined }), pool("s", { maxRunners: 5 })];
    const byId = new Map([["a", pool("a", { extraSpecs: { disk: 10 } })]]);
    const reads: string[] = [];
    const client = {
      listPools: async () => listed,
      getPool: async (id: string) => {
        reads.push(id);
        return byId.get(id)!;
      },
    };
    assert.equal((await settlePool(client as never, entity, sent, [])).kind, "absent", "extra specs the read by id shows rule it out");
    assert.deepEqual(reads, ["a"], "only what the list leaves in is read");
  });
});
