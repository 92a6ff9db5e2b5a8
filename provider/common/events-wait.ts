// Waits between drain or readiness passes that end early when GARM reports a change that concerns them. REST stays
// the source of truth: an event only ends the wait, and the caller's next pass re-reads GARM. While events flow the
// wait polls at a slow fallback interval (an event can be lost, events.ts), and at the caller's interval otherwise.
import { setTimeout as delay } from "node:timers/promises";
import { cancellableWait } from "./cancel";
import { type Logger, formatDuration } from "./log";
import type { GarmClient } from "../garm/client";
import { type GarmEvent, type GarmEvents, eventsEnabled, eventsSocketOf } from "../garm/events";

/** Waits at most `maxMs`: until a relevant event, or the poll interval (the fallback one while events flow). */
export type WaitForChange = (pollMs: number, maxMs: number, runners?: readonly string[]) => Promise<void>;

export interface ChangeWaiter {
  readonly wait: WaitForChange;
  /** Stops listening; call when the drain or readiness wait ends. */
  close(): void;
  /**
   * How often the caller's passes run now, for progress lines: "on GARM's events, at least every 3m00s" or "every 5s";
   * without the fallback bound when the wait gives up, `leftMs` from now, before it.
   */
  cadence(pollMs: number, leftMs: number): string;
}

/** Whether an event concerns the wait; `runners` are the runner names its last pass saw. */
export type Concern = (event: GarmEvent, runners: ReadonlySet<string>) => boolean;

export interface WaiterOptions {
  /** The interval while events flow. @default FALLBACK_POLL_MS */
  readonly fallbackMs?: number;
  /** After a wake, how long to gather the rest of a burst (GARM writes a teardown as several rows) before returning. @default 20 */
  readonly settleMs?: number;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. @default node timers */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The least time between the starts of two passes when an event wakes the wait; doubles while wakes keep coming sooner. @default MIN_PASS_INTERVAL_MS */
  readonly minIntervalMs?: number;
  /** The provider instance's cancellation (cancel.ts): a wait it ends rejects with the cancellation. */
  readonly cancel?: AbortSignal;
}

/**
 * A pass woken by an event starts at least this long after the previous pass started. A pass's own writes make GARM
 * publish events (a runner DELETE is an instance update, database/sql/instances.go L466-468), so without a floor an
 * event stream could drive pass after pass; while wakes keep coming sooner than the floor, it doubles up to the
 * caller's poll interval. A single wake after a quiet wait (a job ending, a runner gone) is not held back.
 */
export const MIN_PASS_INTERVAL_MS = 250;

/**
 * Three minutes: a missed event delays a drain by at most this; a drain of a ten-minute job then costs about 20 REST
 * calls (bench). A dead socket is noticed sooner, by its heartbeat (events.ts), and the waits then poll.
 */
export const FALLBACK_POLL_MS = 180_000;

/** Events a pass may hold for its wait to check against the runners it found; past this the wait just re-reads. */
const UNMATCHED_MAX = 10_000;

const sleepFor = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }).then(
  () => undefined,
  () => undefined,
);

/**
 * A scale set's runners changed, one of their jobs changed, or the scale set was deleted. Instance deletes carry
 * scale_set_id (garm database/sql/instances.go:193-195); job rows only name their runner (params/params.go Job).
 */
export function scaleSetConcern(scaleSetId: number): Concern {
  return scaleSetOrPoolConcern("scaleset", "scale_set_id", scaleSetId);
}

/** The same for a pool: its runners carry pool_id (params/params.go Instance). */
export function poolConcern(poolId: string): Concern {
  return scaleSetOrPoolConcern("pool", "pool_id", poolId);
}

function scaleSetOrPoolConcern(groupType: string, runnerKey: string, id: number | string): Concern {
  return (event, runners) => {
    const p = event.payload;
    switch (event.entityType) {
      case "instance":
        return p[runnerKey] === id || (typeof p["name"] === "string" && runners.has(p["name"]));
      case "job":
        return typeof p["runner_name"] === "string" && runners.has(p["runner_name"]);
      case groupType:
        // Its updates are our own disable and GARM's bookkeeping; runner changes come as instance events.
        return event.operation === "delete" && p["id"] === id;
      default:
        return false;
    }
  };
}

/**
 * Listens from its creation on, which callers place before their first read of GARM: a change GARM reports while a
 * pass reads (its calls queue behind the transport's slots) ends the wait that follows. The socket itself is opened
 * only by the first wait, so a drain or readiness wait that never waits (an empty scale set, runners already idle)
 * opens none; events flow from its creation only when the process's socket is already live for another wait.
 *
 * A wait trusts events alone (and polls at the slow fallback) only when it was listening and the socket was live,
 * in one unbroken live period, from before the pass it follows began its reads: from the wait's own subscription, not
 * from when the shared socket came up. Otherwise it polls at the caller's interval.
 */
export function changeWaiter(events: GarmEvents, concerns: Concern, options: WaiterOptions = {}): ChangeWaiter {
  const fallbackMs = options.fallbackMs ?? FALLBACK_POLL_MS;
  const settleMs = options.settleMs ?? 20;
  const sleep = options.sleep ?? sleepFor;
  const now = Date.now;
  const minIntervalMs = options.minIntervalMs ?? MIN_PASS_INTERVAL_MS;
  // The floor between passes a wake must respect now: back to minIntervalMs after a wake that came later than it.
  let floorMs = minIntervalMs;
  let runners: ReadonlySet<string> = new Set();
  let woken = false;
  let wake: (() => void) | undefined;
  let closed = false;
  // While the caller's pass runs, the events that concerned none of the runners known before it: the pass may find
  // the runner a job event names (job rows carry only runner_name), so its wait checks them against what it saw.
  let unmatched: GarmEvent[] = [];
  let unmatchedOverflow = false;
  let inPass = true;
  // When the caller's current pass began (the wait's creation, then each return), and the socket's live period then:
  // undefined when it was not live. `lost` says the socket reported a loss since.
  let passStarted = 0;
  let livePeriod: number | undefined;
  let lost = false;
  const rouse = () => {
    woken = true;
    wake?.();
  };
  const unsubscribe = events.subscribe(
    {
      onEvent: (event) => {
        if (closed) return;
        if (concerns(event, runners)) rouse();
        else if (inPass && !woken) {
          if (unmatched.length < UNMATCHED_MAX) unmatched.push(event);
          else unmatchedOverflow = true;
        }
      },
      // Events may have been missed: re-read now, then poll at the caller's interval until the socket is back.
      onLost: () => {
        lost = true;
        rouse();
      },
    },
    { connect: false },
  );
  const passBegins = () => {
    passStarted = now();
    livePeriod = events.liveSince;
    lost = false;
    unmatched = [];
    unmatchedOverflow = false;
    inPass = true;
  };
  passBegins();
  return {
    async wait(pollMs, maxMs, names) {
      if (names) runners = new Set(names);
      inPass = false;
      // A full buffer may have dropped one that concerns us: re-read rather than guess.
      if (unmatchedOverflow || unmatched.some((event) => concerns(event, runners))) woken = true;
      unmatched = [];
      events.open();
      try {
        await waitOnce(pollMs, maxMs);
      } finally {
        passBegins();
      }
    },
    close() {
      closed = true;
      unsubscribe();
    },
    cadence(pollMs, leftMs) {
      if (events.liveSince === undefined) return `every ${formatDuration(pollMs)}`;
      const boundMs = Math.max(fallbackMs, pollMs);
      if (boundMs >= leftMs) return "on GARM's events";
      return `on GARM's events, at least every ${formatDuration(boundMs)}`;
    },
  };

  /** Whether every event since the current pass began reached this wait: it listened, in one live period of the socket. */
  function covered(): boolean {
    return livePeriod !== undefined && !lost && events.liveSince === livePeriod;
  }

  async function waitOnce(pollMs: number, maxMs: number): Promise<void> {
    if (!woken) {
      // Slow only when no change since the pass began can have slipped past this wait (covered).
      const ms = Math.min(covered() ? Math.max(fallbackMs, pollMs) : pollMs, maxMs);
      const abort = new AbortController();
      wake = () => abort.abort();
      try {
        await cancellableWait(options.cancel, (cancel) => sleep(ms, cancel ? AbortSignal.any([abort.signal, cancel]) : abort.signal));
      } finally {
        wake = undefined;
      }
    }
    if (!woken) {
      floorMs = minIntervalMs;
      return;
    }
    const sincePass = now() - passStarted;
    const held = Math.max(settleMs, floorMs - sincePass);
    // Wakes sooner than the floor are a stream (often of the pass's own writes): the next one waits longer.
    floorMs = sincePass < floorMs ? Math.min(floorMs * 2, Math.max(pollMs, minIntervalMs)) : minIntervalMs;
    await cancellableWait(options.cancel, (cancel) => sleep(Math.min(held, maxMs), cancel));
    // Whatever woke us, or came during the settle, is in what the caller reads next.
    woken = false;
  }
}

/**
 * The process's events socket for this client's GARM, or undefined when PULUMI_GARM_EVENTS=off. One per client, and
 * the provider process has one client (connection.ts), so one socket per process.
 */
export function processEvents(client: GarmClient, log: Logger): GarmEvents | undefined {
  return eventsEnabled() ? eventsSocketOf(client, log) : undefined;
}
