import { strict as assert } from "node:assert";
import * as sinon from "sinon";
import type { InstanceView } from "../../../provider/garm/client";
import { waitForRunners } from "../../../provider/kinds/scaleset/readiness";

const runner = (status: string, runnerStatus: string) => ({ name: "r", status, runnerStatus }) as InstanceView;

function deps(pages: InstanceView[][]) {
  let clock = 0;
  const list = sinon.stub();
  pages.forEach((page, i) => list.onCall(i).resolves(page));
  list.resolves(pages[pages.length - 1]);
  const lines: string[] = [];
  return {
    list,
    lines,
    deps: {
      client: { listScaleSetInstances: list },
      log: { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(`warning: ${l}`) },
      now: () => clock,
      sleep: async (ms: number) => void (clock += ms),
    },
  };
}

describe("waiting for a new generation's runners", () => {
  it("counts a runner only once it is running and has reported idle or taken a job (§7.1, §7.2)", async () => {
    const h = deps([[runner("creating", "pending")], [runner("running", "pending")], [runner("running", "installing")], [runner("running", "idle")]]);
    assert.equal(await waitForRunners("GarmScaleSet x", 2, 1, 60_000, 1000, h.deps), true);
    assert.equal(h.list.callCount, 4);
  });

  it("gives up with a warning after the bound and lets the old generation go", async () => {
    const h = deps([[runner("running", "pending")]]);
    assert.equal(await waitForRunners("GarmScaleSet x", 2, 1, 5000, 1000, h.deps), false);
    assert.match(h.lines[h.lines.length - 1], /^warning: GarmScaleSet x: only 0 of 1 idle runners are ready after 5s/);
  });

  it("prints one line while the count of runners it waits for stays the same, and a new one when it changes", async () => {
    const h = deps([[], [], [], [], [runner("running", "idle")], [runner("running", "idle")], [runner("running", "idle"), runner("running", "idle")]]);
    assert.equal(await waitForRunners("GarmScaleSet x", 2, 2, 60_000, 1000, h.deps), true);
    assert.deepEqual(
      h.lines.map((l) => l.replace(/ \(up to .*\)$/, "")),
      [
        "GarmScaleSet x: waiting for 2 more runner(s) to come online before the previous generation is retired",
        "GarmScaleSet x: waiting for 1 more runner(s) to come online before the previous generation is retired",
      ],
    );
  });

  it("stops waiting, without a warning, once the successor it waits for is disabled or gone", async () => {
    const h = deps([[]]);
    const reads = [[], undefined] as (InstanceView[] | undefined)[];
    const readRunners = async () => reads.shift();
    assert.equal(await waitForRunners("GarmScaleSet x", 2, 1, 60_000, 1000, { ...h.deps, readRunners }), false);
    assert.equal(reads.length, 0, "read until it said the successor no longer counts");
    assert.ok(!h.lines.some((l) => l.startsWith("warning:")));
  });
});
