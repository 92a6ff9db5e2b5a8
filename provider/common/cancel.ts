// One provider instance's cancellation: an AbortSignal whose reason is a CancelledError. The plugin aborts it on the
// engine's Cancel; the dynamic provider's process on SIGINT or SIGTERM (pulumi-behaviour.md §5). Every wait of an
// operation ends on it, and the GARM transport starts no request after it, so an operation in progress fails promptly
// and says (in its own message) what state it left and what the next run does.
import { setTimeout as delay } from "node:timers/promises";

/** The reason a cancelled instance's signal carries; operations turn it into a message saying where they stopped. */
export class CancelledError extends Error {
  override readonly name = "CancelledError";
}

/** Whether `err` is the cancellation itself (not a failure that happened during it). */
export function isCancelled(err: unknown): err is CancelledError {
  return err instanceof CancelledError;
}

/** A fresh cancellation for one provider instance. */
export function newCancellation(): AbortController {
  return new AbortController();
}

/** Aborts the instance's signal once; `why` says who asked, e.g. "the engine asked to cancel". */
export function cancelNow(cancellation: AbortController, why: string): void {
  if (!cancellation.signal.aborted) cancellation.abort(new CancelledError(`cancelled: ${why}`));
}

/** Waits in flight on each signal, so a process signal handler knows whether an operation has anything to end. */
const waiting = new WeakMap<AbortSignal, number>();

/** How many cancellable waits are in flight on `signal`. */
export function waitsOn(signal: AbortSignal): number {
  return waiting.get(signal) ?? 0;
}

/**
 * Runs a wait that ends early when `cancel` aborts (`wait` is handed the signal to end on), counted in waitsOn; rejects
 * with the cancellation when it was aborted before or during the wait.
 */
export async function cancellableWait<T>(cancel: AbortSignal | undefined, wait: (signal?: AbortSignal) => Promise<T>): Promise<T> {
  if (!cancel) return wait(undefined);
  cancel.throwIfAborted();
  waiting.set(cancel, waitsOn(cancel) + 1);
  try {
    return await wait(cancel);
  } finally {
    waiting.set(cancel, waitsOn(cancel) - 1);
    cancel.throwIfAborted();
  }
}

/** Resolves after `ms`; rejects with the cancellation at once when `cancel` aborts (or has aborted). */
export function sleepUnlessCancelled(ms: number, cancel?: AbortSignal): Promise<void> {
  return cancellableWait(cancel, (signal) => delay(ms, undefined, { signal }).then(() => undefined, () => undefined));
}

/** What the dynamic provider's process signal handler needs of `process`. */
export interface SignalTarget {
  once(signal: NodeJS.Signals, listener: () => void): unknown;
  removeListener(signal: NodeJS.Signals, listener: () => void): unknown;
  kill(pid: number, signal: NodeJS.Signals): unknown;
  readonly pid: number;
}

/** How long an operation whose wait the signal ended has to log its line before the process ends. */
export const SIGNAL_GRACE_MS = 300;

const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/**
 * The dynamic provider's treatment of a signal: the engine's Cancel never reaches its code (Pulumi's server answers it
 * itself), but the engine interrupts the process when it closes it, which a second Ctrl-C does at once. The first
 * SIGINT or SIGTERM aborts the cancellation; the process then ends by the same signal as it would have without this
 * handler, at once when no wait was in flight, else after the grace period, so the ended waits' lines reach the output.
 */
export function cancelOnSignals(cancellation: AbortController, target: SignalTarget = process, graceMs = SIGNAL_GRACE_MS): void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  for (const signal of SIGNALS) {
    const handler = () => {
      for (const [s, h] of handlers) target.removeListener(s, h);
      const busy = waitsOn(cancellation.signal) > 0;
      cancelNow(cancellation, `the provider process received ${signal}`);
      const end = () => void target.kill(target.pid, signal);
      if (busy) setTimeout(end, graceMs);
      else end();
    };
    handlers.set(signal, handler);
    target.once(signal, handler);
  }
}
