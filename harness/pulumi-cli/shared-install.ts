// One full `npm install` of the package's tarball per set of declared dependencies, shared by every project of a run
// (and by the parallel workers of `make test`): the first project installs as a user does and its node_modules is kept
// beside the tarball; each later project gets a copy of it and then runs the same `npm install`, which finds the tree
// complete (a few seconds instead of a minute) and writes package.json and package-lock.json as for a user.
import * as fs from "node:fs";
import { createHash } from "node:crypto";
import * as path from "node:path";

/** How long a project waits for another process's install before installing on its own. */
const WAIT_MS = 600_000;
const POLL_MS = 250;

/** What npm's tree depends on: the tarball's bytes and the project's declared dependencies. */
export function installKey(tarball: string, packageJson: string): string {
  const pkg = JSON.parse(packageJson) as Record<string, unknown>;
  const declared = ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides"].map((k) => pkg[k] ?? null);
  return createHash("sha256").update(fs.readFileSync(tarball)).update(JSON.stringify(declared)).digest("hex").slice(0, 16);
}

/** Whether the process that took `lock` (its pid file) is gone, so the lock is left over. */
function abandoned(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(lock, "pid"), "utf8"));
  } catch {
    return false; // taken a moment ago, pid not written yet
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Runs `install` (npm install of `tarball` in `dir`) with `dir`'s node_modules first filled from the run's shared tree
 * for the same key, making that tree from the first install when there is none yet. One process at a time makes it (a
 * lock directory beside it); the others wait for it.
 */
export async function installShared(dir: string, tarball: string, install: () => Promise<void>): Promise<void> {
  // No package.json (a YAML project): npm writes one naming only the tarball, and the one install is all there is.
  const packageJson = path.join(dir, "package.json");
  if (!fs.existsSync(packageJson)) return install();
  const store = path.join(path.dirname(tarball), "installs", installKey(tarball, fs.readFileSync(packageJson, "utf8")));
  const tree = path.join(store, "node_modules");
  const done = path.join(store, "done");
  const lock = `${store}.lock`;
  fs.mkdirSync(path.dirname(store), { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    if (fs.existsSync(done)) {
      fs.cpSync(tree, path.join(dir, "node_modules"), { recursive: true, verbatimSymlinks: true });
      return install();
    }
    try {
      fs.mkdirSync(lock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (abandoned(lock)) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, "pid"), String(process.pid));
      if (fs.existsSync(done)) continue; // made while this process waited for the lock
      await install();
      fs.rmSync(store, { recursive: true, force: true });
      fs.cpSync(path.join(dir, "node_modules"), tree, { recursive: true, verbatimSymlinks: true });
      fs.writeFileSync(done, "");
      return;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  return install();
}
