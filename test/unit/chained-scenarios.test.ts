// chainScenarios: a chain skips its remaining tests after one of its own fails, and only then, in a run where other
// files fail too (make test runs unit, integration and e2e in one mocha run). Each case runs a separate, silent Mocha
// in this process over suites built here, and checks that the inner run leaves the outer one as it found it.
import { strict as assert } from "node:assert";
import Mocha from "mocha";
import { chainScenarios, type ScenarioChain } from "../support/chained-scenarios";

type Outcome = "passed" | "failed" | "pending";

interface InnerRun {
    /** Test body titles in the order they ran. */
    ran: string[];
    /** Each test's reported outcome by title. */
    outcomes: Record<string, Outcome>;
    failures: number;
}

/** Reports nothing: the inner run's failures are this file's material, not the outer run's output. */
const silent = function () {} as unknown as Mocha.ReporterConstructor;

/** Runs the suites `build` adds under a fresh root in a separate Mocha; `body` records each test body that ran. */
function runInner(build: (root: Mocha.Suite, body: (title: string, fails?: boolean) => Mocha.Test) => void): Promise<InnerRun> {
    const ran: string[] = [];
    const outcomes: Record<string, Outcome> = {};
    const body = (title: string, fails = false) =>
        new Mocha.Test(title, () => {
            ran.push(title);
            if (fails) throw new Error(`${title} failed`);
        });
    const mocha = new Mocha({ reporter: silent });
    build(mocha.suite, body);
    // mocha.run sets these reporter-wide flags from its own options; the outer reporter reads them.
    const base = Mocha.reporters.Base as unknown as { inlineDiffs: boolean; hideDiff: boolean };
    const { inlineDiffs, hideDiff } = base;
    return new Promise((resolve) => {
        const runner = mocha.run((failures) => {
            // Drops the inner runner's process-wide uncaughtException/unhandledRejection listeners.
            mocha.dispose();
            Object.assign(base, { inlineDiffs, hideDiff });
            resolve({ ran, outcomes, failures });
        });
        const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;
        runner.on(EVENT_TEST_PASS, (t) => (outcomes[t.title] = "passed"));
        runner.on(EVENT_TEST_FAIL, (t) => (outcomes[t.title] = "failed"));
        runner.on(EVENT_TEST_PENDING, (t) => (outcomes[t.title] = "pending"));
    });
}

const processListeners = () => ["uncaughtException", "unhandledRejection"].map((e) => process.listenerCount(e));

describe("chainScenarios", () => {
    let listenersBefore: number[];
    beforeEach(() => (listenersBefore = processListeners()));
    afterEach(() => assert.deepEqual(processListeners(), listenersBefore, "the inner run removed its process listeners"));

    /** An unrelated failing file, then a chain of three whose `failing` scenario fails, then (if `later`) a later file. */
    async function chainAfterUnrelatedFailure(failing: number | undefined, later: boolean) {
        let chain: ScenarioChain | undefined;
        const failedSeen: string[] = [];
        const run = await runInner((root, body) => {
            Mocha.Suite.create(root, "an unrelated file").addTest(body("unrelated", true));
            const chained = Mocha.Suite.create(root, "chained scenarios");
            chain = chainScenarios(chained, (t) => failedSeen.push(t.title));
            for (const n of [1, 2, 3]) chained.addTest(body(`scenario ${n}`, n === failing));
            if (later) Mocha.Suite.create(root, "a later file").addTest(body("later"));
        });
        return { run, failedSeen, failed: chain?.failed };
    }

    it("after an unrelated failure earlier in the run, the chain still runs; its 2nd test fails, so its 3rd is skipped (pending) and later files still run", async () => {
        const { run, failedSeen, failed } = await chainAfterUnrelatedFailure(2, true);
        assert.deepEqual(run.ran, ["unrelated", "scenario 1", "scenario 2", "later"]);
        assert.deepEqual(run.outcomes, { unrelated: "failed", "scenario 1": "passed", "scenario 2": "failed", "scenario 3": "pending", later: "passed" });
        assert.equal(run.failures, 2);
        assert.deepEqual(failedSeen, ["scenario 2"], "onFailure ran once, for the chain's own failure");
        assert.equal(failed, true);
    });

    it("a chain whose tests all pass runs every one, after an unrelated failure, and reports no failure of its own", async () => {
        const { run, failedSeen, failed } = await chainAfterUnrelatedFailure(undefined, false);
        assert.deepEqual(run.ran, ["unrelated", "scenario 1", "scenario 2", "scenario 3"]);
        assert.deepEqual(run.outcomes, { unrelated: "failed", "scenario 1": "passed", "scenario 2": "passed", "scenario 3": "passed" });
        assert.deepEqual(failedSeen, []);
        assert.equal(failed, false);
    });
});
