// Announces a GARM restart beside GARM's config file, so every other writer of that file (another stack, another
// operator) knows GARM is down on purpose and its requests wait, as they do for their own restarts (restart-window.ts).
import * as os from "node:os";
import * as path from "node:path";
import type { AnnouncedRestart } from "../../garm/restart-window";
import type { GarmHost } from "../../machine/host";

/** How long after its request a restart may still keep GARM down: the coordinator's longest delay, the command, GARM's return. */
const COORDINATOR_MAX_DELAY_MS = 10_000;

interface Announcement {
  by: string;
  /** Epoch ms when the restart was requested. */
  at: number;
  /** How long from `at` GARM may be down for it. */
  windowMs: number;
}

/** `/etc/garm/.config.toml.pulumi-garm-restart` for `/etc/garm/config.toml`: in the directory the lock needs anyway. */
export function announcementPath(configFile: string): string {
  return path.join(path.dirname(configFile), `.${path.basename(configFile)}.pulumi-garm-restart`);
}

/**
 * Writes the announcement of a restart of `timeoutMs`; best effort (a directory this user may not write also refuses
 * the lock, which fails the edit first). Returns its withdrawal, which removes it only while it is still this one.
 */
export async function announceRestart(host: GarmHost, configFile: string, timeoutMs: number, now = Date.now()): Promise<() => Promise<void>> {
  const file = announcementPath(configFile);
  const text = JSON.stringify({ by: `another pulumi-garm run (pid ${process.pid} on ${os.hostname()})`, at: now, windowMs: COORDINATOR_MAX_DELAY_MS + 2 * timeoutMs } satisfies Announcement);
  try {
    await host.writeNote(file, text);
  } catch {
    return async () => undefined;
  }
  // Bounded: after a lost connection the host may be out of reach, and the run must not wait for it to come back. Left
  // behind, the announcement only covers its own window, and only while GARM refuses requests.
  return () => withinMs(WITHDRAW_MS, (async () => {
    const current = await host.readFile(file).then((b) => b.toString("utf8"), () => undefined);
    if (current === text) await host.remove(file).catch(() => undefined);
  })());
}

/** How long a withdrawal may take before the run goes on without it. */
const WITHDRAW_MS = 3_000;

/** Resolves when `work` settles or after `ms`, whichever is first; never rejects. */
function withinMs(ms: number, work: Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    work.then(
      () => (clearTimeout(timer), resolve()),
      () => (clearTimeout(timer), resolve()),
    );
  });
}

/** The restart announced beside `configFile` that may still keep GARM down at `now`, if any. */
export async function readAnnouncement(host: GarmHost, configFile: string, now = Date.now()): Promise<AnnouncedRestart | undefined> {
  const text = await host.readFile(announcementPath(configFile)).then((b) => b.toString("utf8"), () => undefined);
  if (text === undefined) return undefined;
  let a: Partial<Announcement>;
  try {
    a = JSON.parse(text) as Partial<Announcement>;
  } catch {
    return undefined;
  }
  if (typeof a.at !== "number" || typeof a.windowMs !== "number" || typeof a.by !== "string") return undefined;
  const remainingMs = a.at + a.windowMs - now;
  return remainingMs > 0 ? { remainingMs, by: a.by } : undefined;
}
