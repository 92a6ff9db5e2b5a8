// A delete's drain timeout comes from the resource's stored options, which only a `pulumi up` changes; the environment
// of one `pulumi destroy` (or `up` finishing a pending delete) can lengthen it without touching the program.
import { strict as assert } from "node:assert";
import { DRAIN_TIMEOUT_ENV, drainOptionsFor } from "../../../provider/runners/drain/override";

const stored = { timeoutSeconds: 60, pollSeconds: 5, jobStaleAfterHours: 120 };

describe("drain timeout from the environment", () => {
  it("keeps the stored options when the variable is unset or empty", () => {
    assert.deepEqual(drainOptionsFor(stored, {}), stored);
    assert.deepEqual(drainOptionsFor(stored, { [DRAIN_TIMEOUT_ENV]: "" }), stored);
  });

  it("takes a whole number of seconds from PULUMI_GARM_DRAIN_TIMEOUT_SECONDS for this run", () => {
    assert.deepEqual(drainOptionsFor(stored, { [DRAIN_TIMEOUT_ENV]: "1800" }), { ...stored, timeoutSeconds: 1800 });
  });

  for (const bad of ["0", "-5", "1.5", "ten", "60s"]) {
    it(`refuses ${JSON.stringify(bad)}, naming the variable and what it must be`, () => {
      assert.throws(() => drainOptionsFor(stored, { [DRAIN_TIMEOUT_ENV]: bad }), (err: Error) => {
        assert.match(err.message, new RegExp(`${DRAIN_TIMEOUT_ENV} is ${JSON.stringify(bad).replace(/\./g, "\\.")}; it must be a whole number of seconds above 0`));
        return true;
      });
    });
  }
});
