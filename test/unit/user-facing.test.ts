import { strict as assert } from "node:assert";
import { GarmApiError } from "../../provider/garm/errors";
import { POINTER, userFacing } from "../../provider/common/user-facing";

describe("errors shown to Pulumi users", () => {
  it("drop the stack of deliberate errors and keep their message and extra fields", async () => {
    const provider = userFacing({
      create: async () => {
        throw Object.assign(new GarmApiError("bad-request", "POST /x", 400, "Bad Request", "nope"), { id: "7" });
      },
    });
    await assert.rejects(provider.create({}), (err: GarmApiError & { id: string }) => {
      assert.equal(`${err}: ${err.stack}`, `pulumi-garm: ${POINTER}`, "the server's log line points at the resource's error");
      assert.match(err.message, /POST \/x failed with 400 Bad Request: nope/);
      assert.equal(err.id, "7");
      return true;
    });
  });

  it("keep the stack of programming errors", async () => {
    const provider = userFacing({
      create: async () => {
        throw new TypeError("x is undefined");
      },
    });
    await assert.rejects(provider.create({}), (err: Error) => /at /.test(err.stack ?? ""));
  });
});
