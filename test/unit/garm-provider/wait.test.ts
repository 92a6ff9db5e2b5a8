import * as assert from "node:assert/strict";
import * as sinon from "sinon";
import { ProviderWaitError, waitForProviders } from "../../../provider/kinds/garm-provider/wait";

describe("garm-provider wait for GET /providers", () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => {
    clock = sinon.useFakeTimers();
  });
  afterEach(() => clock.restore());

  const opts = (timeoutMs: number) => ({
    timeoutMs,
    pollMs: 1000,
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    now: () => Date.now(),
  });
  const refused = () => Object.assign(new Error("GARM GET /providers failed with connect ECONNREFUSED"), { kind: "connection" });

  it("polls through a restart until the provider is listed with its description", async () => {
    const list = sinon.stub();
    list.onCall(0).rejects(refused());
    list.onCall(1).resolves([{ name: "os", type: "external", description: "old" }]);
    list.onCall(2).resolves([{ name: "os", type: "external", description: "new" }]);
    const done = waitForProviders(list, { name: "os", present: true, description: "new" }, opts(10_000));
    await clock.tickAsync(2000);
    await done;
    assert.equal(list.callCount, 3);
  });

  it("waits until a removed provider is no longer listed", async () => {
    const list = sinon.stub();
    list.onCall(0).resolves([{ name: "os", type: "external", description: "" }]);
    list.onCall(1).resolves([]);
    const done = waitForProviders(list, { name: "os", present: false }, opts(5000));
    await clock.tickAsync(1000);
    await done;
  });

  it("gives up after the timeout and says what GARM showed last", async () => {
    const list = sinon.stub().resolves([{ name: "other", type: "external", description: "" }]);
    const done = assert.rejects(
      waitForProviders(list, { name: "os", present: true, description: "x" }, opts(3000)),
      (e: Error) =>
        e instanceof ProviderWaitError && /within 3s/.test(e.message) && /does not list provider "os" \(providers: other\)/.test(e.message),
    );
    await clock.tickAsync(3000);
    await done;
    assert.equal(list.callCount, 4);
  });

  it("reports an unreachable GARM", async () => {
    const list = sinon.stub().rejects(refused());
    const done = assert.rejects(waitForProviders(list, { name: "os", present: false }, opts(2000)), /GARM did not answer: .*ECONNREFUSED/);
    await clock.tickAsync(2000);
    await done;
  });
});
