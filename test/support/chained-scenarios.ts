// Chained scenarios: tests of one suite that build on each other's state, so that once one fails the rest are skipped.
import type Mocha from "mocha";

/** Whether one of the chain's own tests has failed so far. */
export interface ScenarioChain {
    readonly failed: boolean;
}

/**
 * Makes `suite`'s tests skip (reported pending) once one of its own tests has failed; failures elsewhere in the run do not
 * count. `onFailure` runs after the failed test, before the next one is skipped.
 */
export function chainScenarios(suite: Mocha.Suite, onFailure: (test: Mocha.Test) => void = () => {}): ScenarioChain {
    const chain = { failed: false };
    // Not suite.bail(true): mocha's bail checks the run's failure count (runner.js runSuite and runTests), so in one run
    // with other files a failure anywhere before the chain would skip it whole, without reporting its tests at all.
    suite.beforeEach("skip once a scenario before this one failed", function () {
        if (chain.failed) this.skip();
    });
    suite.afterEach("note a failed scenario", function () {
        const test = this.currentTest;
        if (test?.state !== "failed") return;
        chain.failed = true;
        onFailure(test);
    });
    return chain;
}
