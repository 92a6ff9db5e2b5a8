// Mocha's spec reporter plus closing lines: the files that took longest (where `make test`'s 40 minutes go), then
// one line, "N passed, N failed[, N skipped]", that CI reads as the run's verdict.
import * as path from "node:path";
import Mocha from "mocha";

const SLOWEST_SHOWN = 15;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const perFile = new Map<string, number>();
    let fileStarted = Date.now();
    let currentFile: string | undefined;
    const close = () => {
      if (currentFile) perFile.set(currentFile, (perFile.get(currentFile) ?? 0) + (Date.now() - fileStarted));
    };
    runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (!suite.file || suite.file === currentFile) return;
      close();
      currentFile = suite.file;
      fileStarted = Date.now();
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      close();
      const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN);
      if (slowest.length > 1) {
        console.log(`slowest files (of ${perFile.size}):`);
        for (const [file, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(0).padStart(5)} s  ${path.relative(process.cwd(), file)}`);
      }
      const { passes, failures, pending } = this.stats;
      console.log(`${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ""}`);
    });
  }
}

export = SpecWithSummary;
