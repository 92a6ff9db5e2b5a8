// Runs GARM's restart command once for all provider changes made together (GARM reads providers only at start,
// garm-behaviour.md §9.2); the shell runner itself lives in shell.ts.
import { describeCommand, maskCommandSecrets } from "./command-text";
import { outputTail, type CommandResult, type CommandRunner } from "./shell";

export { outputTail, runShellCommand, type CommandResult, type CommandRunner } from "./shell";

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
  const how = r.timedOut
    ? `did not finish within ${Math.round(timeoutMs / 100) / 10}s and was killed`
    : r.code === null
      ? `was ended by signal ${r.signal ?? "unknown"}`
      : `exited with code ${r.code}`;
  const tail = maskCommandSecrets(outputTail(r.output), command);
  // One line: Pulumi shows only the first line of an error in its progress row.
  return `${describeCommand(command)} ${how}${tail ? `; its last output: "${tail.split("\n").join(" | ")}"` : " with no output"}`;
}

export interface RestartCoordinatorOptions {
  run: CommandRunner;
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
  request(command: string, timeoutMs: number, cancel?: AbortSignal): Promise<void> {
    if (cancel?.aborted) return Promise.reject(cancel.reason);
    let queue = this.queues.get(command);
    if (!queue) {
      queue = { waiting: [], running: false };
      this.queues.set(command, queue);
    }
    const q = queue;
    return new Promise<void>((resolve, reject) => {
      const stop = () => {
        this.withdraw(command, q, waiter);
        reject(cancel?.reason);
      };
      const settled = () => cancel?.removeEventListener("abort", stop);
      const waiter: Waiter = { timeoutMs, resolve: () => (settled(), resolve()), reject: (e) => (settled(), reject(e)) };
      q.waiting.push(waiter);
      if (q.firstAt === undefined) q.firstAt = Date.now();
      if (!q.running) this.schedule(command, q);
      cancel?.addEventListener("abort", stop, { once: true });
    });
  }

  /**
   * A cancelled request stops waiting. One still queued leaves the batch, and a batch nobody waits for any more never
   * runs; a restart already running is let finish (its command runs in a process group of its own, shell.ts), and the
   * cancelled request's caller says what the next run does.
   */
  private withdraw(command: string, q: Queue, waiter: Waiter): void {
    q.waiting = q.waiting.filter((w) => w !== waiter);
    if (q.waiting.length > 0 || q.running) return;
    if (q.timer) clearTimeout(q.timer);
    q.timer = undefined;
    q.firstAt = undefined;
    this.queues.delete(command);
  }

  private schedule(command: string, q: Queue): void {
    if (q.timer) clearTimeout(q.timer);
    const untilCap = (q.firstAt ?? Date.now()) + this.maxDelayMs - Date.now();
    q.timer = setTimeout(() => void this.fire(command, q), Math.max(0, Math.min(this.quietMs, untilCap)));
  }

  private async fire(command: string, q: Queue): Promise<void> {
    q.timer = undefined;
    const batch = q.waiting;
    q.waiting = [];
    q.firstAt = undefined;
    if (batch.length === 0) return;
    q.running = true;
    const timeoutMs = Math.max(...batch.map((w) => w.timeoutMs));
    this.options.log?.(`GarmProvider: restarting GARM with ${describeCommand(command)} for ${batch.length} provider change(s) made together`);
    let failure: Error | undefined;
    try {
      const result = await this.options.run(command, timeoutMs);
      if (result.timedOut || result.code !== 0) failure = new RestartFailedError(command, result, timeoutMs);
    } catch (e) {
      failure = e instanceof Error ? e : new Error(String(e));
    }
    q.running = false;
    if (q.waiting.length > 0) {
      q.firstAt = Date.now();
      this.schedule(command, q);
    } else {
      this.queues.delete(command);
    }
    for (const w of batch) (failure ? w.reject(failure) : w.resolve());
  }
}
