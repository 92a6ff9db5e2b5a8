// System users and groups the real-host tests need (GARM's own user, the operators who log in over SSH), made with
// useradd/groupadd when missing and kept by number: a uid or gid that already exists is reused under its own name.
//
// Test files run in parallel processes (`make test`), and two of them may make the same user at once on a fresh
// machine: a groupadd or useradd that fails because the other made it first counts as done, and a command that found
// /etc/passwd or /etc/group locked by the other (shadow's lckpwdf) is tried again.
import { spawnSync } from "node:child_process";

/** Exit statuses of useradd, usermod and groupadd when the password or group files are locked or cannot be updated. */
const LOCKED = new Set([1, 10]);
const LOCK_ATTEMPTS = 50;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function attempt(cmd: string, args: string[]): { status: number | null; output: string } {
  for (let i = 1; ; i++) {
    const r = spawnSync(cmd, args, { encoding: "utf8" });
    const output = (r.stderr || r.stdout || String(r.error ?? "")).trim();
    if (r.status === 0 || i === LOCK_ATTEMPTS || !LOCKED.has(r.status ?? -1) || !/lock/i.test(output)) return { status: r.status, output };
    sleepSync(100);
  }
}

function run(cmd: string, args: string[]): string {
  const r = attempt(cmd, args);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}): ${r.output}`);
  return r.output;
}

function getent(db: "passwd" | "group", key: string | number): string[] | undefined {
  const r = spawnSync("getent", [db, String(key)], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim().split(":") : undefined;
}

/** Runs `cmd` to make `key` in `db` unless it exists; one made meanwhile by another process counts. */
function make(db: "passwd" | "group", key: number, cmd: string, args: string[]): string[] {
  const r = attempt(cmd, args);
  const made = getent(db, key);
  if (made) return made;
  throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}): ${r.output}`);
}

/** The name of group `gid`, made as `name` when it does not exist. */
export function ensureGroup(gid: number, name: string): string {
  const found = getent("group", gid) ?? make("group", gid, "groupadd", ["-g", String(gid), name]);
  return found[0]!;
}

export interface HostUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * The user `uid`, made as `name` with primary group `gid` and shell /bin/sh when missing, then added to `groups`.
 * Its password field is `*` (no password login, but not "locked", which sshd without PAM refuses for key logins too).
 */
export function ensureUser(opts: { uid: number; name: string; gid: number; groups?: number[] }): HostUser {
  const found =
    getent("passwd", opts.uid) ??
    make("passwd", opts.uid, "useradd", ["-u", String(opts.uid), "-g", String(opts.gid), "-M", "-d", "/tmp", "-s", "/bin/sh", "-p", "*", opts.name]);
  const name = found[0]!;
  if (found[6] !== "/bin/sh") run("usermod", ["-s", "/bin/sh", name]);
  run("usermod", ["-p", "*", name]);
  for (const g of opts.groups ?? []) run("usermod", ["-a", "-G", String(g), name]);
  const again = getent("passwd", opts.uid)!;
  return { name, uid: opts.uid, gid: Number(again[3]) };
}
