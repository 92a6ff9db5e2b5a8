// Mocha's spec reporter plus one closing line, "N passed, N failed[, N skipped]", that CI reads as the run's verdict.
import Mocha from "mocha";

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      console.log(`${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ""}`);
    });
  }
}

export = SpecWithSummary;
