// The one flow for a create whose answer was lost (provider/common/lost-answer.ts): found, sent again, or unsettled.
import { strict as assert } from "node:assert";
import { GarmApiError } from "../../provider/garm/errors";
import { type LostAnswerCreate, createSettlingLostAnswer } from "../../provider/common/lost-answer";

const lost = () => new GarmApiError("connection", "POST /things", undefined, "ECONNRESET", "", true);
const quiet = { info: () => undefined, warn: () => undefined };

function flow(over: Partial<LostAnswerCreate<string>>): LostAnswerCreate<string> {
  return {
    label: "Thing",
    post: async () => "made",
    landed: async () => undefined,
    describe: (v) => v,
    resend: false,
    unsettled: (_failure, confirming) => new Error(`unsettled: ${confirming}`),
    ...over,
  };
}

describe("a create whose answer was lost", () => {
  it("uses what the look-up finds, without sending again", async () => {
    let posts = 0;
    const outcome = await createSettlingLostAnswer(flow({ post: async () => { posts++; throw lost(); }, landed: async () => "found" }), quiet);
    assert.deepEqual(outcome, { view: "found", found: true });
    assert.equal(posts, 1);
  });

  it("sends once more when allowed and nothing was found, then gives up unsettled", async () => {
    let posts = 0;
    const failing = flow({ resend: true, post: async () => { posts++; throw lost(); } });
    await assert.rejects(createSettlingLostAnswer(failing, quiet), /unsettled: so did sending it again/);
    assert.equal(posts, 2);
  });

  it("is unsettled when the look-up fails too, with the look-up's failure", async () => {
    let cause: unknown;
    const failing = flow({
      post: async () => { throw lost(); },
      landed: async () => { throw new Error("down"); },
      unsettled: (failure, confirming) => { cause = failure.lookup; return new Error(confirming); },
    });
    await assert.rejects(createSettlingLostAnswer(failing, quiet), /looking it up failed too/);
    assert.equal((cause as Error).message, "down");
  });

  it("leaves any other failure to the kind, and never looks up after it", async () => {
    let lookups = 0;
    const refused = flow({ post: async () => { throw new GarmApiError("conflict", "POST /things", 409, "Conflict", "taken"); }, landed: async () => { lookups++; return "x"; }, failed: () => new Error("kind's words") });
    await assert.rejects(createSettlingLostAnswer(refused, quiet), /kind's words/);
    assert.equal(lookups, 0);
  });
});
