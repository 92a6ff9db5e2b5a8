// A template delete beside a destroy's retire of its scale sets and pools: it waits while every user is disabled (the
// retire's first step), fails naming them once one stays enabled, when the wait runs out and when it is cancelled.
import { strict as assert } from "node:assert";
import { CancelledError } from "../../../provider/common/cancel";
import { awaitRetiringUsers } from "../../../provider/kinds/template/retiring-users";

const words = { label: "GarmTemplate custom (id 5)", why: "GARM refuses to delete a template still in use", remedy: "Delete those first." };
type Passes = { sets: { id: number; name: string; enabled: boolean; templateId?: number; entity?: { kind: string; name: string } }[]; pools: { id: string; enabled: boolean; templateId?: number }[] }[];

/** A GARM whose lists answer `passes` in turn (the last one again after that), and a clock the sleeps move. */
function fake(passes: Passes) {
  let pass = 0;
  let clock = 0;
  const lines: string[] = [];
  const current = () => passes[Math.min(pass, passes.length - 1)]!;
  const client = { listScaleSets: async () => current().sets, listPools: async () => current().pools } as never;
  const deps = { log: { info: (l: string) => lines.push(l), warn: () => {} }, now: () => clock, sleep: async (ms: number) => {
    clock += ms;
    pass++;
  } };
  return { client, deps, lines, polls: () => pass };
}
const set = (enabled: boolean, templateId = 5) => ({ id: 7, name: "hand-made", enabled, templateId, entity: { kind: "organization", name: "acme" } });

describe("template delete: waiting for the users a destroy retires", () => {
  it("waits while the users are disabled and goes on once they are gone, with one progress line", async () => {
    const f = fake([{ sets: [set(false)], pools: [{ id: "p1", enabled: false, templateId: 5 }] }, { sets: [set(false)], pools: [] }, { sets: [set(false)], pools: [] }, { sets: [], pools: [] }]);
    await awaitRetiringUsers(f.client, 5, words, f.deps, { pollMs: 1000, timeoutMs: 60_000 });
    assert.equal(f.polls(), 3);
    assert.equal(f.lines.length, 2, f.lines.join("\n"));
    assert.match(f.lines[0]!, /^GarmTemplate custom \(id 5\): waiting for 2 scale set\(s\) and pool\(s\) using it to be deleted/);
  });

  it("ignores users of other templates and returns at once without any", async () => {
    const f = fake([{ sets: [set(true, 6)], pools: [{ id: "p1", enabled: true, templateId: 6 }] }]);
    await awaitRetiringUsers(f.client, 5, words, f.deps);
    assert.equal(f.polls(), 0);
  });

  it("gives a user that is enabled one poll to be disabled, then fails naming it", async () => {
    const f = fake([{ sets: [set(true)], pools: [] }]);
    await assert.rejects(awaitRetiringUsers(f.client, 5, words, f.deps, { pollMs: 1000 }), (err: Error) => {
      assert.equal(err.message, 'GarmTemplate custom (id 5): not deleted, because GARM refuses to delete a template still in use; it is used by scale set "hand-made" (id 7, organization acme). They are enabled, so nothing is retiring them. Delete those first.');
      return true;
    });
    assert.equal(f.polls(), 1);
    const disabledInTime = fake([{ sets: [set(true)], pools: [] }, { sets: [set(false)], pools: [] }, { sets: [], pools: [] }]);
    await awaitRetiringUsers(disabledInTime.client, 5, words, disabledInTime.deps, { pollMs: 1000 });
  });

  it("fails naming the users when they outlast the wait, and when the wait is cancelled", async () => {
    const f = fake([{ sets: [set(false)], pools: [] }]);
    await assert.rejects(awaitRetiringUsers(f.client, 5, words, f.deps, { pollMs: 1000, timeoutMs: 3000 }), /it is used by scale set "hand-made" \(id 7, organization acme\)\. They were still there after 3s of waiting for their retire\./);
    const cancelled = { ...fake([{ sets: [set(false)], pools: [] }]).deps, sleep: async () => Promise.reject(new CancelledError("cancelled: the engine asked to cancel")) };
    await assert.rejects(awaitRetiringUsers(fake([{ sets: [set(false)], pools: [] }]).client, 5, words, cancelled), /The wait for their retire was cancelled\./);
  });
});
