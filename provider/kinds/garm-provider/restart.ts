// Runs GARM's restart command once for all provider changes made together (GARM reads providers only at start,
// garm-behaviour.md §9.2); the shell runner itself lives in shell.ts.
import { describeCommand, maskCommandSecrets } from "./command-text";
import { outputTail, type CommandResult, type CommandRunner } from "../../machine/shell";

export { outputTail, runShellCommand, type CommandResult, type CommandRunner } from "../../machine/shell";

/**
 * The restart command failed; `message` carries its exit code and the tail of its output, with the command's
 * secret-looking words masked. The command itself is not kept: it can hold a token.
 */
export class RestartFailedError extends Error {
  override readonly name = "RestartFailedError";
  constructor(
    command: string,
    readonly result: CommandResult,
    timeoutMs: number,
  ) {
    super(describeFailure(command, result, timeoutMs));
  }
}

function describeFailure(command: string, r: CommandResult, timeoutMs: number): string {
  const how = r.failure
    ? r.failure
    : r.timedOut
    ? `did not finish within ${Math.round(timeoutMs / 100) / 10}s and was killed`
    : r.code === null
      ? `was ended by signal ${r.signal ?? "unknown"}`
      : `exited with code ${r.code}`;
  const tail = maskCommandSecrets(outputTail(r.output), command);
  // One line: Pulumi shows only the first line of an error in its progress row.
  const shown = tail ? `; its last output: "${tail.split("\n").join(" | ")}"` : r.failure ? "" : " with no output";
  return `${describeCommand(command)} ${how}${shown}`;
}

/** Where a restart command runs: this machine unless a request names GARM's host (host.ts). */
export interface RestartHost {
  readonly label: string;
  run: CommandRunner;
}

export interface RestartCoordinatorOptions {
  /** Runs the command on `host` when the request named one. */
  run: (command: string, timeoutMs: number, host?: RestartHost) => Promise<CommandResult>;
  /** Quiet window: a restart starts once no new change has arrived for this long. Defaults to 750 ms. */
  quietMs?: number;
  /** A restart starts at the latest this long after the first change waiting for it. Defaults to 10 s. */
  maxDelayMs?: number;
  /** Called with one line when a restart starts and ends. */
  log?: (line: string) => void;
}

interface Waiter {
  timeoutMs: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

interface Queue {
  command: string;
  host?: RestartHost;
  waiting: Waiter[];
  firstAt?: number;
  timer?: NodeJS.Timeout;
  running: boolean;
}

/**
 * Coalesces restart requests per restart command: every request made within the quiet window of another shares one
 * run of the command; requests made while it runs wait for the next run (their file change may be newer than what
 * the running restart read).
 */
export class RestartCoordinator {
  private readonly queues = new Map<string, Queue>();
  /** Changes under way per host label ("" for this machine), whose restart requests the waiting batches should share. */
  private readonly held = new Map<string, number>();
  private readonly quietMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: RestartCoordinatorOptions) {
    this.quietMs = options.quietMs ?? 750;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
  }

  /**
   * Resolves once a run of `command` that started after this call has succeeded.
   * @throws RestartFailedError when that run fails; every request sharing it gets the same error.
   */
  request(command: string, timeoutMs: number, host?: RestartHost, cancel?: AbortSignal): Promise<void> {
    if (cancel?.aborted) return Promise.reject(cancel.reason);
    // The same command on two hosts restarts two GARMs.
    const key = host ? `${host.label}\0${command}` : command;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { command, host, waiting: [], running: false };
      this.queues.set(key, queue);
    }
    const q = queue;
    return new Promise<void>((resolve, reject) => {
      const stop = () => {
        this.withdraw(key, q, waiter);
        reject(cancel?.reason);
      };
      const settled = () => cancel?.removeEventListener("abort", stop);
      const waiter: Waiter = { timeoutMs, resolve: () => (settled(), resolve()), reject: (e) => (settled(), reject(e)) };
      q.waiting.push(waiter);
      if (q.firstAt === undefined) q.firstAt = Date.now();
      if (!q.running) this.schedule(key, q);
      cancel?.addEventListener("abort", stop, { once: true });
    });
  }

  /**
   * Marks a change to a config file on `host` as under way (its checks, lock and write): a batch for that host waits
   * for it to request its restart too, or to end without one, at most until the batch's maxDelayMs. Over SSH the
   * changes of one `pulumi up` reach their requests seconds apart, far more than the quiet window. Returns the release,
   * which may be called more than once.
   */
  hold(host?: RestartHost): () => void {
    const label = host?.label ?? "";
    this.held.set(label, (this.held.get(label) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(label) ?? 1) - 1;
      if (left > 0) this.held.set(label, left);
      else this.held.delete(label);
      if (left > 0) return;
      for (const [key, q] of this.queues) if ((q.host?.label ?? "") === label && !q.running && q.waiting.length > 0) this.schedule(key, q);
    };
  }

  /**
   * A cancelled request stops waiting. One still queued leaves the batch, and a batch nobody waits for any more never
   * runs; a restart already running is let finish (its command runs in a process group of its own, shell.ts), and the
   * cancelled request's caller says what the next run does.
   */
  private withdraw(key: string, q: Queue, waiter: Waiter): void {
    q.waiting = q.waiting.filter((w) => w !== waiter);
    if (q.waiting.length > 0 || q.running) return;
    if (q.timer) clearTimeout(q.timer);
    q.timer = undefined;
    q.firstAt = undefined;
    this.queues.delete(key);
  }

  private schedule(key: string, q: Queue): void {
    if (q.timer) clearTimeout(q.timer);
    const untilCap = (q.firstAt ?? Date.now()) + this.maxDelayMs - Date.now();
    // While another change on the host is under way, wait for it (hold's release schedules again) up to the cap.
    const wait = this.held.has(q.host?.label ?? "") ? untilCap : Math.min(this.quietMs, untilCap);
    q.timer = setTimeout(() => void this.fire(key, q), Math.max(0, wait));
  }

  private async fire(key: string, q: Queue): Promise<void> {
    const command = q.command;
    q.timer = undefined;
    const batch = q.waiting;
    q.waiting = [];
    q.firstAt = undefined;
    if (batch.length === 0) return;
    q.running = true;
    const timeoutMs = Math.max(...batch.map((w) => w.timeoutMs));
    const on = q.host ? ` on ${q.host.label}` : "";
    this.options.log?.(`GarmProvider: restarting GARM${on} with ${describeCommand(command)} for ${batch.length} provider change(s) made together`);
    let failure: Error | undefined;
    try {
      const result = await (q.host ? this.options.run(command, timeoutMs, q.host) : this.options.run(command, timeoutMs));
      if (result.timedOut || result.code !== 0) failure = new RestartFailedError(command, result, timeoutMs);
    } catch (e) {
      failure = e instanceof Error ? e : new Error(String(e));
    }
    q.running = false;
    if (q.waiting.length > 0) {
      q.firstAt = Date.now();
      this.schedule(key, q);
    } else {
      this.queues.delete(key);
    }
    for (const w of batch) (failure ? w.reject(failure) : w.resolve());
  }
}
