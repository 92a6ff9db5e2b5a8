// Restarts of GARM that this process started: while one is under way, requests wait for GARM instead of failing on
// the refused connections of the seconds GARM is down (GARM loads providers only at start, garm-behaviour.md §9.2).

export type RestartWindowState = "open" | "confirmed" | "failed" | "expired";

export class RestartWindow {
  private state_: "open" | "confirmed" | "failed" = "open";
  /** Set when the restart command ended; answers to requests sent after it come from the restarted GARM. */
  private endedAtTick: number | undefined;

  constructor(
    private deadline: number,
    private readonly timeoutMs: number,
    private readonly windows: RestartWindows,
  ) {}

  get state(): RestartWindowState {
    if (this.state_ === "open" && this.windows.now() >= this.deadline) return "expired";
    return this.state_;
  }

  /** Milliseconds until the window closes on its own; 0 once it is closed. */
  remainingMs(): number {
    return this.state === "open" ? this.deadline - this.windows.now() : 0;
  }

  /** How long GARM was given to come back, for messages. */
  get allowedMs(): number {
    return this.timeoutMs;
  }

  /**
   * The restart command ended. A failed command closes the window; after a successful one GARM has the restart
   * timeout again to answer, and its first answer closes the window.
   */
  commandEnded(succeeded: boolean): void {
    if (this.state_ !== "open") return;
    if (!succeeded) {
      this.state_ = "failed";
      return;
    }
    this.endedAtTick = this.windows.tick();
    this.deadline = this.windows.now() + this.timeoutMs;
  }

  /** @internal GARM answered a request sent at `sentAtTick`. */
  answered(sentAtTick: number): void {
    if (this.state_ === "open" && this.endedAtTick !== undefined && sentAtTick >= this.endedAtTick) this.state_ = "confirmed";
  }
}

/** The restarts of one process. */
export class RestartWindows {
  private readonly windows = new Set<RestartWindow>();
  private ticks = 0;

  constructor(readonly now: () => number = Date.now) {}

  /**
   * Marks a restart that is starting; its command may run up to `timeoutMs`, and GARM has `timeoutMs` after the
   * command ends to answer again.
   */
  begin(timeoutMs: number): RestartWindow {
    const window = new RestartWindow(this.now() + 2 * timeoutMs, timeoutMs, this);
    this.windows.add(window);
    return window;
  }

  /** The open window that closes last, if any. */
  current(): RestartWindow | undefined {
    let latest: RestartWindow | undefined;
    for (const w of this.windows) {
      if (w.state !== "open") this.windows.delete(w);
      else if (!latest || w.remainingMs() > latest.remainingMs()) latest = w;
    }
    return latest;
  }

  /** A mark for a request about to be sent; pass it to answered() when GARM answers it. */
  sending(): number {
    return this.ticks;
  }

  /** GARM answered a request: restarts whose command ended before it was sent are over. */
  answered(sentAtTick: number): void {
    for (const w of this.windows) w.answered(sentAtTick);
  }

  /** @internal */
  tick(): number {
    return ++this.ticks;
  }
}

/** The restarts this provider process started; GarmProvider marks them, the GARM transport reads them. */
export const processRestarts = new RestartWindows();

/** What a restart command runner reports; the shape of garm-provider's CommandResult that matters here. */
interface RestartOutcome {
  readonly code: number | null;
  readonly timedOut: boolean;
}

/**
 * Wraps the runner of GARM's restart command so every run opens a restart window in `restarts`: from the command's
 * start until GARM answers after it, or the timeout passes; a failed command closes it at once.
 */
export function markingGarmRestarts<R extends RestartOutcome>(
  run: (command: string, timeoutMs: number) => Promise<R>,
  restarts: RestartWindows = processRestarts,
): (command: string, timeoutMs: number) => Promise<R> {
  return async (command, timeoutMs) => {
    const window = restarts.begin(timeoutMs);
    let succeeded = false;
    try {
      const result = await run(command, timeoutMs);
      succeeded = result.code === 0 && !result.timedOut;
      return result;
    } finally {
      window.commandEnded(succeeded);
    }
  };
}
