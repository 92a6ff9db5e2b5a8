// Differences between the simulator and the real GARM v0.2.1 that the conformance suite accepts, each with its reason.
// Everything else the suite finds must be fixed in simulator/. Differences that are pure noise (ids, times,
// tokens, URLs, the executable path, tag order) are removed by the normaliser in ./observe.ts instead.

export interface Accepted {
    scenario: string;
    label: string;
    /** Path inside the observation; undefined accepts every path of the label. */
    path?: string;
    reason: string;
}

const RUNNERS = "runners, teardown path, provider fault";
const CREATE = "create validation";

export const ACCEPTED: Accepted[] = [
    {
        scenario: CREATE,
        label: "missing name",
        reason:
            "the mock GitHub refuses an empty scale-set name (400 `name required`) before GARM's own validation runs; what " +
            "real GitHub answers is unknown (garm-behaviour.md open question 4). The simulator's GitHub accepts it, so GARM's " +
            "post-GitHub validation answers 500 (§4.4 step 6), which test/integration/simulator/scalesets.test.ts pins",
    },
    {
        scenario: RUNNERS,
        label: "runner_status when running (before the agent reports)",
        reason:
            "a fake-provider runner has no agent, so real GARM keeps runner_status `pending` until someone posts the " +
            "installing → idle callbacks (the real target does, via runnerReportsIdle); the simulator models a runner " +
            "whose agent reports at once (pinned by test/integration/simulator/autoscale.test.ts)",
    },
    {
        scenario: RUNNERS,
        label: "GET /instances/{name}",
        path: "body.addresses",
        reason: "provider-specific: the e2e fake provider returns a 127.0.0.1 address, the simulator's provider none (§11.2 `addresses` is optional)",
    },
    {
        scenario: RUNNERS,
        label: "GET /instances/{name}",
        path: "body.status_messages",
        reason:
            "status_messages are the runner's callback messages (§11.4); the real target posts installing/idle callbacks, the " +
            "simulator has no callback API and records none (omitempty, so the key is absent)",
    },
    {
        scenario: RUNNERS,
        label: "DELETE a runner in deleting",
        reason:
            "timing: real GARM holds `deleting` only while the provider binary runs (~0.2 s), so the 250 ms poll rarely " +
            "catches it; when caught, the answer matches (400 with the §6 step 2 text)",
    },
    {
        scenario: RUNNERS,
        label: "DELETE a runner in pending_create/creating",
        reason: "timing: only compared when the poll catches the runner before it is running (it usually does on both)",
    },
];
