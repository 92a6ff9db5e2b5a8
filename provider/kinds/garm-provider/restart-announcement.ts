// Announces a GARM restart beside GARM's config file, so every other writer of that file (another stack, another
// operator) knows GARM is down on purpose and its requests wait, as they do for their own restarts (restart-window.ts).
import { readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { AnnouncedRestart } from "../../garm/restart-window";
import type { GarmHost } from "../../machine/host";

/** How long after its request a restart may still keep GARM down: the coordinator's longest delay, the command, GARM's return. */
const COORDINATOR_MAX_DELAY_MS = 10_000;

/**
 * Which clock this process reads: the kernel's boot id where there is one (containers on one kernel share its clock),
 * else the host name.
 */
function clockId(): string {
  try {
    return `boot ${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()}`;
  } catch {
    return `host ${os.hostname()}`;
  }
}

interface Announcement {
  by: string;
  /** The clock `at` was read on (clockId()). */
  clock?: string;
  /** Epoch ms when the restart was requested, on `clock`. */
  at: number;
  /** How long from `at` GARM may be down for it. */
  windowMs: number;
}

/** `/etc/garm/.config.toml.pulumi-garm-restart` for `/etc/garm/config.toml`: in the directory the lock needs anyway. */
export function announcementPath(configFile: string): string {
  return path.join(path.dirname(configFile), `.${path.basename(configFile)}.pulumi-garm-restart`);
}

/** The announcement's path beside the file `configFile` resolves to, as the lock's is: one per file, however spelled. */
async function resolvedAnnouncementPath(host: GarmHost, configFile: string): Promise<string> {
  return announcementPath(await host.realpath(configFile).catch(() => configFile));
}

/**
 * Writes the announcement of a restart of `timeoutMs`; best effort (a directory this user may not write also refuses
 * the lock, which fails the edit first). Returns its withdrawal, which removes it only while it is still this one.
 */
export async function announceRestart(host: GarmHost, configFile: string, timeoutMs: number, now = Date.now()): Promise<() => Promise<void>> {
  let file: string;
  const text = JSON.stringify({ by: `another pulumi-garm run (pid ${process.pid} on ${os.hostname()})`, clock: clockId(), at: now, windowMs: COORDINATOR_MAX_DELAY_MS + 2 * timeoutMs } satisfies Announcement);
  try {
    file = await resolvedAnnouncementPath(host, configFile);
    await host.writeNote(file, text);
  } catch {
    return async () => undefined;
  }
  // Bounded: after a lost connection the host may be out of reach, and the run must not wait for it to come back. Left
  // behind, the announcement only covers its own window, and only while GARM refuses requests.
  return () =>
    withinMs(
      WITHDRAW_MS,
      (async () => {
        const current = await host.readFile(file).then(
          (b) => b.toString("utf8"),
          () => undefined,
        );
        if (current === text) await host.remove(file).catch(() => undefined);
      })(),
    );
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

/**
 * When this process first read each announcement another machine wrote (by host, file and text), on this process's
 * clock: the other machine's clock is never compared with this one's. One entry per announcement file.
 */
const firstSeen = new Map<string, { text: string; at: number }>();

/**
 * The restart announced beside `configFile` that may still keep GARM down at `now`, if any. One written on this
 * machine is judged by its `at`; one from another machine counts for its window from when this process first read it
 * (its writer's clock may be off by any amount), so at worst a reader waits one window longer than needed.
 */
export async function readAnnouncement(host: GarmHost, configFile: string, now = Date.now()): Promise<AnnouncedRestart | undefined> {
  const file = await resolvedAnnouncementPath(host, configFile);
  const text = await host.readFile(file).then(
    (b) => b.toString("utf8"),
    () => undefined,
  );
  const key = `${host.label}\0${file}`;
  if (text === undefined) {
    firstSeen.delete(key);
    return undefined;
  }
  let a: Partial<Announcement>;
  try {
    a = JSON.parse(text) as Partial<Announcement>;
  } catch {
    return undefined;
  }
  if (typeof a.at !== "number" || typeof a.windowMs !== "number" || typeof a.by !== "string") return undefined;
  let since = a.at;
  if (a.clock !== clockId()) {
    const seen = firstSeen.get(key);
    if (seen?.text === text) since = seen.at;
    else firstSeen.set(key, { text, at: (since = now) });
  }
  const remainingMs = since + a.windowMs - now;
  return remainingMs > 0 ? { remainingMs, by: a.by } : undefined;
}
