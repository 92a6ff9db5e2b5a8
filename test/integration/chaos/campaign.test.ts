// The seeded fault campaign (issue 11), a few fixed seeds: operations interleaved with faults against the GARM
// simulator through the engine harness, the invariants checked after every step and convergence checked at the end.
// `make chaos SEEDS=N` runs many more.
import { strict as assert } from "node:assert";
import { failureReport, runSeed } from "./campaign";

// Chosen for their mix: provider moves, label changes, busy runners, lost answers, GitHub 401, a killed provider process.
const SEEDS = [7, 12];
const LENGTH = 6;

describe("fault campaign (fixed seeds)", function () {
  // A seed takes about 15 s; a failing one is shortened by a few more runs before it is reported.
  this.timeout(600_000);

  for (const seed of SEEDS) {
    it(`seed ${seed}: every invariant holds and the stack converges once faults stop`, async () => {
      const outcome = await runSeed(seed, LENGTH, { shortenRuns: 4 });
      assert.ok(outcome.result.stats.faults > 0, "the seed injected faults");
      if (outcome.result.violation) assert.fail(failureReport(outcome));
    });
  }
});
