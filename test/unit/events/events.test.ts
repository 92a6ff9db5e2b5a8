// Which GARM events wake a scale set's wait, how frames and the on/off switch are read, and how a wait names its cadence.
import { strict as assert } from "node:assert";
import { type GarmEvents, eventsEnabled, parseEvent } from "../../../provider/garm/events";
import { changeWaiter, scaleSetConcern } from "../../../provider/common/events-wait";

const ev = (entityType: string, operation: string, payload: Record<string, unknown>) => ({ entityType, operation, payload });

describe("events: what concerns a scale set's wait", () => {
  const concerns = scaleSetConcern(7);
  const runners = new Set(["garm-a"]);
  const table: [string, ReturnType<typeof ev>, boolean][] = [
    ["its runner's update", ev("instance", "update", { name: "garm-a", scale_set_id: 7, status: "pending_delete" }), true],
    ["its runner's delete, which carries only identity and scale_set_id (instances.go:193-195)", ev("instance", "delete", { id: "u", name: "garm-x", scale_set_id: 7 }), true],
    ["a new runner of it", ev("instance", "create", { name: "garm-new", scale_set_id: 7 }), true],
    ["another scale set's runner", ev("instance", "update", { name: "garm-b", scale_set_id: 8 }), false],
    ["a pool runner", ev("instance", "update", { name: "garm-p", pool_id: "x" }), false],
    ["a job of its runner", ev("job", "update", { runner_name: "garm-a", status: "completed" }), true],
    ["a job of another runner", ev("job", "update", { runner_name: "garm-b", status: "completed" }), false],
    ["a job with no runner yet", ev("job", "create", { status: "queued" }), false],
    ["its own deletion", ev("scaleset", "delete", { id: 7 }), true],
    ["an update of it (our disable, GARM's bookkeeping)", ev("scaleset", "update", { id: 7 }), false],
    ["another scale set's deletion", ev("scaleset", "delete", { id: 8 }), false],
    ["a pool delete, which carries only the id (pools.go:92)", ev("pool", "delete", { id: "7" }), false],
  ];
  for (const [name, event, want] of table) {
    it(`${want ? "wakes" : "does not wake"} on ${name}`, () => assert.equal(concerns(event, runners), want));
  }
});

describe("events: frames", () => {
  it("reads GARM's ChangePayload frame (database/common/watcher.go:48-52)", () => {
    assert.deepEqual(parseEvent('{"entity-type":"instance","operation":"delete","payload":{"id":"u","name":"n"}}'), ev("instance", "delete", { id: "u", name: "n" }));
  });
  it("takes GARM's filter rejections for what they are: not events (events.go:175, 186)", () => {
    assert.equal(parseEvent("invalid filter"), undefined);
    assert.equal(parseEvent("failed to unmarshal filter"), undefined);
    assert.equal(parseEvent('{"operation":"update"}'), undefined);
  });
  it("is on unless PULUMI_GARM_EVENTS turns it off", () => {
    assert.equal(eventsEnabled({}), true);
    assert.equal(eventsEnabled({ PULUMI_GARM_EVENTS: "on" }), true);
    for (const off of ["off", "false", "0", "no", "OFF"]) assert.equal(eventsEnabled({ PULUMI_GARM_EVENTS: off }), false);
  });
});

describe("events: how a wait describes its cadence", () => {
  // A stand-in with only what changeWaiter reads: the subscription and when the socket went live.
  function fakeEvents(liveSince: number | undefined): GarmEvents {
    return { liveSince, subscribe: () => () => undefined, open: () => undefined } as unknown as GarmEvents;
  }

  it("says it follows GARM's events, with the fallback bound, once the socket is live", () => {
    const waiter = changeWaiter(fakeEvents(1), scaleSetConcern(12), { fallbackMs: 180_000 });
    assert.equal(waiter.cadence(5000, 600_000), "on GARM's events, at least every 3m00s");
    waiter.close();
  });

  it("leaves the fallback bound out when the wait gives up before it (a 2-minute drain does not promise a 3-minute check)", () => {
    const waiter = changeWaiter(fakeEvents(1), scaleSetConcern(12), { fallbackMs: 180_000 });
    assert.equal(waiter.cadence(5000, 120_000), "on GARM's events");
    assert.equal(waiter.cadence(5000, 600_000), "on GARM's events, at least every 3m00s");
    waiter.close();
  });

  it("says it polls at the caller's interval while the socket is down", () => {
    const waiter = changeWaiter(fakeEvents(undefined), scaleSetConcern(12), { fallbackMs: 180_000 });
    assert.equal(waiter.cadence(5000, 600_000), "every 5s");
    waiter.close();
  });
});

describe("events: a pass woken by events respects a minimum interval (issue 23 item 16)", () => {
  /** Events whose handler the test fires, and a sleep that records each duration and ends only when aborted or asked. */
  function scripted() {
    let onEvent: ((event: ReturnType<typeof ev>) => void) | undefined;
    const events = {
      liveSince: undefined,
      open: () => undefined,
      subscribe: (listener: { onEvent: typeof onEvent }) => {
        onEvent = listener.onEvent;
        return () => undefined;
      },
    } as unknown as GarmEvents;
    const held: number[] = [];
    const sleep = (ms: number, signal?: AbortSignal) => {
      // The wait for a change ends on the event; the hold after a wake is what the test reads.
      if (signal) return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      held.push(ms);
      return Promise.resolve();
    };
    const fire = () => onEvent?.(ev("instance", "update", { name: "garm-a", scale_set_id: 12, status: "pending_force_delete" }));
    return { events, held, sleep, fire };
  }

  it("holds a wake that follows the last pass at once for the floor, doubling while wakes keep coming, up to the poll interval", async () => {
    const s = scripted();
    const waiter = changeWaiter(s.events, scaleSetConcern(12), { sleep: s.sleep, minIntervalMs: 250, settleMs: 20 });
    for (let pass = 0; pass < 7; pass++) {
      const waiting = waiter.wait(5000, 600_000, ["garm-a"]);
      // The pass's own write comes back as an event at once.
      await Promise.resolve();
      s.fire();
      await waiting;
    }
    waiter.close();
    // Each hold is the floor less the few milliseconds the pass took; an event stream gets at most one pass per poll interval.
    const floors = [250, 500, 1000, 2000, 4000, 5000, 5000];
    assert.equal(s.held.length, floors.length);
    s.held.forEach((ms, i) => assert.ok(ms <= floors[i]! && ms > floors[i]! - 50, `hold ${i}: ${ms} ms, floor ${floors[i]} ms`));
  });
});
