import { strict as assert } from "node:assert";
import type { ScaleSetView } from "../../../provider/garm/client";
import { GarmApiError } from "../../../provider/garm/errors";
import { EarlyRetirements, successorOf } from "../../../provider/kinds/scaleset/succession";

const view = (id: number, name: string, enabled = true) => ({ id, name, enabled }) as ScaleSetView;

function garm(views: ScaleSetView[]) {
  const reads: number[] = [];
  return {
    reads,
    client: {
      async getScaleSet(id: number) {
        reads.push(id);
        const found = views.find((v) => v.id === id);
        if (!found) throw new GarmApiError("not-found", `GET /scalesets/${id}`, 404, "Not Found", "");
        return found;
      },
    },
  };
}

describe("the successor of a replaced scale set generation", () => {
  it("is the newest enabled scale set with the same base name and another hash, read live", async () => {
    const listed = [view(4, "ci-small-42e04976"), view(5, "ci-small-33fd5ffb"), view(6, "ci-small-583d1497"), view(7, "ci-large-33fd5ffb"), view(8, "ci-small")];
    // 6 was disabled since the list was taken (its own delete began): 5 is the successor.
    const g = garm([view(4, "ci-small-42e04976"), view(5, "ci-small-33fd5ffb"), view(6, "ci-small-583d1497", false), view(7, "ci-large-33fd5ffb")]);
    assert.equal((await successorOf(g.client, listed, "ci-small-42e04976", 4))?.id, 5);
    assert.deepEqual(g.reads, [6, 5], "only other generations of this name are read, newest first");
  });

  it("is none when the other generation is gone or disabled, or there is none", async () => {
    const listed = [view(4, "ci-small-42e04976"), view(5, "ci-small-33fd5ffb")];
    assert.equal(await successorOf(garm([]).client, listed, "ci-small-42e04976", 4), undefined);
    assert.equal(await successorOf(garm([view(5, "ci-small-33fd5ffb", false)]).client, listed, "ci-small-42e04976", 4), undefined);
    assert.equal(await successorOf(garm(listed).client, [view(4, "ci-small-42e04976")], "ci-small-42e04976", 4), undefined);
  });
});

describe("retirements started by a successor's create", () => {
  it("runs one per old generation, never rejects, and is taken once by the delete", async () => {
    const retirements = new EarlyRetirements();
    let started = 0;
    retirements.start(4, async () => (started++, { kind: "deleted", drained: true }));
    retirements.start(4, async () => (started++, { kind: "deleted", drained: false }));
    retirements.start(5, async () => {
      throw new Error("GARM said no");
    });
    assert.equal(started, 1);
    assert.deepEqual(await retirements.take(4), { kind: "retired", outcome: { kind: "deleted", drained: true } });
    assert.equal(retirements.take(4), undefined);
    const failed = await retirements.take(5);
    assert.equal(failed?.kind, "failed");
  });
});
