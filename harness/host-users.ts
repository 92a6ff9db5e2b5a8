// System users and groups the real-host tests need (GARM's own user, the operators who log in over SSH), made with
// useradd/groupadd when missing and kept by number: a uid or gid that already exists is reused under its own name.
import { spawnSync } from "node:child_process";

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}): ${(r.stderr || r.stdout || String(r.error)).trim()}`);
  return r.stdout;
}

function getent(db: "passwd" | "group", key: string | number): string[] | undefined {
  const r = spawnSync("getent", [db, String(key)], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim().split(":") : undefined;
}

/** The name of group `gid`, made as `name` when it does not exist. */
export function ensureGroup(gid: number, name: string): string {
  const found = getent("group", gid);
  if (found) return found[0];
  run("groupadd", ["-g", String(gid), name]);
  return name;
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
  const found = getent("passwd", opts.uid);
  let name = opts.name;
  if (found) name = found[0];
  else run("useradd", ["-u", String(opts.uid), "-g", String(opts.gid), "-M", "-d", "/tmp", "-s", "/bin/sh", "-p", "*", name]);
  if (found && found[6] !== "/bin/sh") run("usermod", ["-s", "/bin/sh", name]);
  run("usermod", ["-p", "*", name]);
  for (const g of opts.groups ?? []) run("usermod", ["-a", "-G", String(g), name]);
  const again = getent("passwd", opts.uid)!;
  return { name, uid: opts.uid, gid: Number(again[3]) };
}
