// Lines the user sees in `pulumi up`. A dynamic provider's stdout reaches the CLI as info and stderr as errors, not
// tied to the resource row (pulumi-behaviour.md §5), so every line names its resource itself.

export interface Logger {
  info(line: string): void;
  warn(line: string): void;
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

export const consoleLogger: Logger = {
  info: (line) => console.log(oneLine(line)),
  warn: (line) => console.error(`warning: ${oneLine(line)}`),
};

/** "1m05s", "3h02m", "2d04h": short enough for a progress line. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, "0")}h`;
}

/** How often an unchanged drain or wait says it is still at it. */
export const REMINDER_MS = 120_000;

/**
 * Prints a line only when what it reports changes, or as a reminder once `reminderMs` has passed without a line, so a
 * wait that polls every few seconds prints one line per change, not one per poll. `key` is what the line reports,
 * without what changes on every poll (ages, time left).
 */
export class ChangeLog {
  private lastKey: string | undefined;
  private lastAt = 0;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly reminderMs = REMINDER_MS,
  ) {}

  /** `line(reminder)`: the text, told whether it repeats an unchanged state. */
  info(key: string, line: (reminder: boolean) => string): void {
    this.emit("info", key, line);
  }

  warn(key: string, line: (reminder: boolean) => string): void {
    this.emit("warn", key, line);
  }

  private emit(level: keyof Logger, key: string, line: (reminder: boolean) => string): void {
    const now = this.now();
    const changed = key !== this.lastKey;
    if (!changed && now - this.lastAt < this.reminderMs) return;
    this.lastKey = key;
    this.lastAt = now;
    this.log[level](line(!changed));
  }
}
