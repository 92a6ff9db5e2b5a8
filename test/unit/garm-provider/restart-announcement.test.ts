// The restart announcement beside GARM's config file (restart-announcement.ts), on an in-memory host: it is found
// through any path that resolves to the same file, and a reader never compares its own clock with another machine's.
import * as assert from "node:assert/strict";
import type { MachineFiles } from "../../../provider/machine/files";
import type { GarmHost } from "../../../provider/machine/host";
import { announceRestart, announcementPath, readAnnouncement } from "../../../provider/kinds/garm-provider/restart-announcement";

/** A host holding `files`, where `links` maps a path to the file it resolves to. */
function memoryHost(links: Record<string, string> = {}): GarmHost & { notes: Map<string, string> } {
  const files = new Map<string, string>();
  const resolve = (f: string) => links[f] ?? f;
  const missing = () => Object.assign(new Error("no such file"), { code: "ENOENT" });
  return {
    label: "deploy@garm:22",
    // The announcement uses the host's note operations only; an edit is never made here.
    files: {} as MachineFiles,
    notes: files,
    readFile: async (f) => {
      const t = files.get(resolve(f));
      if (t === undefined) throw missing();
      return Buffer.from(t);
    },
    realpath: async (f) => resolve(f),
    stat: async () => ({ isFile: true, uid: 0, gid: 0, mode: 0o644 }),
    writeNote: async (f, text) => void files.set(resolve(f), text),
    remove: async (f) => void files.delete(resolve(f)),
    run: async () => ({ code: 0, signal: null, output: "", timedOut: false }),
  };
}

const WINDOW_MS = 10_000 + 2 * 60_000;

describe("garm-provider restart announcement", () => {
  it("is found through any path resolving to the same config file, and withdrawn through it", async () => {
    const host = memoryHost({ "/etc/garm/config.toml": "/srv/garm/config.toml", "/opt/garm/config.toml": "/srv/garm/config.toml" });
    const withdraw = await announceRestart(host, "/etc/garm/config.toml", 60_000);
    assert.deepEqual([...host.notes.keys()], [announcementPath("/srv/garm/config.toml")], "beside the file the path resolves to");
    const found = await readAnnouncement(host, "/opt/garm/config.toml");
    assert.ok(found && found.remainingMs > 0 && found.remainingMs <= WINDOW_MS, JSON.stringify(found));
    await withdraw();
    assert.equal(await readAnnouncement(host, "/opt/garm/config.toml"), undefined);
  });

  it("from another machine whose clock is an hour ahead: counts for its window from when this process first saw it, not an hour more", async () => {
    const host = memoryHost();
    const now = Date.now();
    host.notes.set(announcementPath("/etc/garm/config.toml"), JSON.stringify({ by: "another pulumi-garm run (pid 7 on laptop-ahead)", clock: "boot 0b1d", at: now + 3_600_000, windowMs: WINDOW_MS }));
    const found = await readAnnouncement(host, "/etc/garm/config.toml", now);
    assert.equal(found?.remainingMs, WINDOW_MS);
    assert.equal((await readAnnouncement(host, "/etc/garm/config.toml", now + 100_000))?.remainingMs, WINDOW_MS - 100_000);
    assert.equal(await readAnnouncement(host, "/etc/garm/config.toml", now + WINDOW_MS), undefined, "over once its window has passed here");
  });

  it("from another machine whose clock is an hour behind: still counts, for its window", async () => {
    const host = memoryHost();
    const now = Date.now();
    host.notes.set(announcementPath("/etc/garm/config.toml"), JSON.stringify({ by: "another pulumi-garm run (pid 8 on laptop-behind)", clock: "host laptop-behind", at: now - 3_600_000, windowMs: WINDOW_MS }));
    const found = await readAnnouncement(host, "/etc/garm/config.toml", now);
    assert.equal(found?.remainingMs, WINDOW_MS);
    assert.equal(found?.by, "another pulumi-garm run (pid 8 on laptop-behind)");
  });

  it("from this machine: judged by its own time, so one left behind past its window counts for nothing", async () => {
    const host = memoryHost();
    const now = Date.now();
    // What this process writes says which clock it read.
    await announceRestart(host, "/etc/garm/config.toml", 60_000);
    const clock = (JSON.parse(host.notes.get(announcementPath("/etc/garm/config.toml")) ?? "{}") as { clock?: string }).clock;
    host.notes.set(announcementPath("/etc/garm/config.toml"), JSON.stringify({ by: "another pulumi-garm run (pid 9)", clock, at: now - WINDOW_MS - 1, windowMs: WINDOW_MS }));
    assert.equal(await readAnnouncement(host, "/etc/garm/config.toml", now), undefined);
    host.notes.set(announcementPath("/etc/garm/config.toml"), JSON.stringify({ by: "another pulumi-garm run (pid 9)", clock, at: now - 30_000, windowMs: WINDOW_MS }));
    assert.equal((await readAnnouncement(host, "/etc/garm/config.toml", now))?.remainingMs, WINDOW_MS - 30_000);
  });
});
