// The pure parts of settling what a stopped delete or a lost create left behind (issue 11): which fields a drained
// scale set gets back, how an unconfirmed id maps to GARM's, and how diff reads GARM without holding a preview up.
import { strict as assert } from "node:assert";
import { GarmApiError } from "../../provider/garm/errors";
import { fieldsToRestore, isDrained, liveReader, withDrainedFields } from "../../provider/runners/drained";
import type { ScaleSetOutputs } from "../../provider/kinds/scaleset/state";
import { garmIdOf, isUnconfirmedId, unconfirmedId } from "../../provider/kinds/scaleset/unconfirmed";
import { UNKNOWN } from "../../provider/common/unknown";

const drained = { enabled: false, maxRunners: 0, minIdleRunners: 0 };

describe("a scale set a stopped delete left disabled (Appendix B)", () => {
  it("is drained only when disabled at 0 runners", () => {
    assert.equal(isDrained(drained), true);
    assert.equal(isDrained({ ...drained, maxRunners: 2 }), false);
    assert.equal(isDrained({ ...drained, enabled: true }), false);
  });

  it("gets back the fields the program wants otherwise, and nothing when it is not drained", () => {
    assert.deepEqual(fieldsToRestore(drained, { enabled: true, maxRunners: 3, minIdleRunners: 1 }), ["enabled", "maxRunners", "minIdleRunners"]);
    assert.deepEqual(fieldsToRestore(drained, { enabled: false, maxRunners: 3, minIdleRunners: 0 }), ["maxRunners"]);
    assert.deepEqual(fieldsToRestore(drained, { enabled: true, maxRunners: UNKNOWN, minIdleRunners: 0 }), ["enabled", "maxRunners"]);
    assert.deepEqual(fieldsToRestore({ enabled: false, maxRunners: 2, minIdleRunners: 0 }, { enabled: true, maxRunners: 3 }), []);
    // Told by the state (issue 34 item 1): a state recording it disabled at 0 is a parked scale set, not a stopped delete.
    const parked = { enabled: false, maxRunners: 0, minIdleRunners: 0 };
    assert.deepEqual(fieldsToRestore(drained, { enabled: true, maxRunners: 1, minIdleRunners: 0 }, parked), []);
    assert.deepEqual(fieldsToRestore(drained, { enabled: true, maxRunners: 1 }, { enabled: true, maxRunners: 3, minIdleRunners: 0 }), ["enabled", "maxRunners"]);
  });

  it("update compares those fields against GARM, the rest against the state", () => {
    const stored = { enabled: true, maxRunners: 3, minIdleRunners: 1, image: "a" } as unknown as ScaleSetOutputs;
    assert.deepEqual(withDrainedFields(stored, drained), { ...stored, ...drained });
    assert.equal(withDrainedFields(stored, { enabled: true, maxRunners: 5, minIdleRunners: 0 }), stored);
  });
});

describe("diff's reads of GARM", () => {
  const view = { id: 4, name: "ci-4", ...drained };

  it("warns once and stops asking when GARM cannot be reached", async () => {
    const warnings: string[] = [];
    let calls = 0;
    const read = liveReader({
      client: () => ({
        getScaleSet: async () => {
          calls++;
          throw new GarmApiError("connection", "GET /scalesets/4", undefined, "ECONNREFUSED", "");
        },
      }),
      log: { info: () => undefined, warn: (l) => warnings.push(l) },
      timeoutMs: 1000,
    });
    assert.deepEqual(await read(4), { kind: "unavailable" });
    assert.deepEqual(await read(5), { kind: "unavailable" });
    assert.equal(calls, 1);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^could not read GARM .*GET \/scalesets\/4 failed with ECONNREFUSED.*planning from Pulumi's state/);
    assert.doesNotMatch(warnings[0], /Pulumi keeps the resource/);
  });

  it("gives up on an answer that does not come within its bound", async () => {
    const warnings: string[] = [];
    const read = liveReader({
      client: () => ({ getScaleSet: () => new Promise(() => undefined) }),
      log: { info: () => undefined, warn: (l) => warnings.push(l) },
      timeoutMs: 20,
    });
    assert.deepEqual(await read(4), { kind: "unavailable" });
    assert.match(warnings[0], /no answer within/);
  });

  it("tells a scale set GARM no longer has from one it has", async () => {
    const read = liveReader({
      client: () => ({
        getScaleSet: async (id: number) => {
          if (id === 4) return view as never;
          throw new GarmApiError("not-found", `GET /scalesets/${id}`, 404, "Not Found", "");
        },
      }),
      log: { info: () => undefined, warn: () => assert.fail("no warning for a 404") },
      timeoutMs: 1000,
    });
    assert.deepEqual(await read(4), { kind: "found", view });
    assert.deepEqual(await read(9), { kind: "gone" });
  });
});

describe("an unconfirmed create's id", () => {
  it("is never numeric, and maps to GARM's id once an update bound it", () => {
    const id = unconfirmedId("12345678");
    assert.equal(id, "unconfirmed:12345678");
    assert.equal(isUnconfirmedId(id), true);
    assert.equal(garmIdOf(id, {}), undefined);
    assert.equal(garmIdOf(id, { scaleSetId: 7 }), 7);
    assert.equal(garmIdOf("12", { scaleSetId: 7 }), 12);
  });
});
