// Mocha's spec reporter plus closing lines: the files that took longest (where `make test`'s 40 minutes go), then
// one line, "N passed, N failed[, N skipped]", that CI reads as the run's verdict.
import * as path from "node:path";
import Mocha from "mocha";

const SLOWEST_SHOWN = 15;

/** A test or hook as the reporter sees it, in a serial run or replayed from a parallel worker. */
interface Timed {
  file?: string;
  duration?: number;
}

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    // A file's time is the sum of its tests' and hooks' durations, which mocha measures where they run: in a parallel
    // run (`make test`) a worker's events reach this reporter only when its file is done, so the time between events
    // here says nothing of how long the file took.
    const perFile = new Map<string, number>();
    const add = (r: Timed) => {
      if (r.file && typeof r.duration === "number") perFile.set(r.file, (perFile.get(r.file) ?? 0) + r.duration);
    };
    runner.on(Mocha.Runner.constants.EVENT_TEST_END, add);
    runner.on(Mocha.Runner.constants.EVENT_HOOK_END, add);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN);
      if (slowest.length > 1) {
        console.log(`slowest files (of ${perFile.size}; tests and hooks):`);
        for (const [file, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(0).padStart(5)} s  ${path.relative(process.cwd(), file)}`);
      }
      const { passes, failures, pending } = this.stats;
      console.log(`${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ""}`);
    });
  }
}

export = SpecWithSummary;
