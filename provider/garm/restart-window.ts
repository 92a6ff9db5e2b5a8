// Restarts of GARM that this process started, or that another writer of GARM's config file announced: while one is
// under way, requests wait for GARM instead of failing on the refused connections of the seconds GARM is down (GARM
// loads providers only at start, garm-behaviour.md §9.2).

export type RestartWindowState = "open" | "confirmed" | "failed" | "expired";

export class RestartWindow {
  private state_: "open" | "confirmed" | "failed" = "open";
  /** Set when the restart command ended; answers to requests sent after it come from the restarted GARM. */
  private endedAtTick: number | undefined;

  constructor(
    private deadline: number,
    private readonly timeoutMs: number,
    private readonly windows: RestartWindows,
    /** Who started the restart, for messages: "this run", or the writer an announcement names. */
    readonly startedBy = "this run",
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

/** A restart another process announced: how long GARM may still be down for it, and who started it. */
export interface AnnouncedRestart {
  readonly remainingMs: number;
  readonly by: string;
}

/** Reads where restarts are announced (e.g. beside a GARM config file); undefined when none is under way. */
export type RestartAnnouncement = () => Promise<AnnouncedRestart | undefined>;

/** The restarts of one process. */
export class RestartWindows {
  private readonly windows = new Set<RestartWindow>();
  private readonly announcements = new Map<string, RestartAnnouncement>();
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

  /**
   * Watches where other writers announce their restarts of GARM (`key` names the place, so watching it again replaces
   * the reader): another stack editing the same config file restarts the same GARM.
   */
  watch(key: string, read: RestartAnnouncement): void {
    this.announcements.set(key, read);
  }

  /**
   * Asked when GARM refuses a request and this process has no restart under way: opens a window for the announced
   * restart that leaves GARM the longest, if any. Its command counts as ended (GARM is down now), so GARM's next
   * answer closes it. Unreadable announcements count as none.
   */
  async announced(): Promise<RestartWindow | undefined> {
    let longest: AnnouncedRestart | undefined;
    for (const read of this.announcements.values()) {
      const found = await read().catch(() => undefined);
      if (found && found.remainingMs > 0 && (!longest || found.remainingMs > longest.remainingMs)) longest = found;
    }
    if (!longest) return undefined;
    const window = new RestartWindow(this.now() + longest.remainingMs, longest.remainingMs, this, longest.by);
    window.commandEnded(true);
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

/** Each GARM's restarts, by its base URL: a program that manages several GARMs restarts each on its own. */
const restartsByGarm = new Map<string, RestartWindows>();

/**
 * The restarts of the GARM at `url` that this provider process started or was told of; GarmProvider marks them, the
 * GARM transport of that URL reads them. Another GARM's restart neither holds its requests nor is closed by its answers.
 */
export function restartWindowsFor(url: string): RestartWindows {
  const key = url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  let windows = restartsByGarm.get(key);
  if (!windows) {
    windows = new RestartWindows();
    restartsByGarm.set(key, windows);
  }
  return windows;
}

/** What a restart command runner reports; the shape of garm-provider's CommandResult that matters here. */
interface RestartOutcome {
  readonly code: number | null;
  readonly timedOut: boolean;
}

/**
 * Wraps the runner of GARM's restart command so every run opens a restart window in `restarts`: from the command's
 * start until GARM answers after it, or the timeout passes; a failed command closes it at once.
 */
export function markingGarmRestarts<R extends RestartOutcome, A extends unknown[] = []>(
  run: (command: string, timeoutMs: number, ...rest: A) => Promise<R>,
  restarts: () => RestartWindows,
): (command: string, timeoutMs: number, ...rest: A) => Promise<R> {
  return async (command, timeoutMs, ...rest) => {
    const window = restarts().begin(timeoutMs);
    let succeeded = false;
    try {
      const result = await run(command, timeoutMs, ...rest);
      succeeded = result.code === 0 && !result.timedOut;
      return result;
    } finally {
      window.commandEnded(succeeded);
    }
  };
}
