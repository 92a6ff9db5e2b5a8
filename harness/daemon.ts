// What the tests' own copies of Debian's servers (sshd.ts, postgres.ts) share: installing the package with apt-get when
// it is missing, a free loopback port, waiting for the server to listen, and stopping it by its PID.
import { spawnSync, type ChildProcess } from "node:child_process";
import * as net from "node:net";

/**
 * Makes sure Debian's `packages` are installed: nothing when `ready()` already holds, else apt-get (as root only),
 * with an `apt-get update` when the package lists are stale. The packages' own start of their system service is
 * prevented: the tests start their own server.
 * @returns undefined when `ready()` holds afterwards, else why not (the tests then skip with it).
 */
export function ensureDebianPackages(packages: readonly string[], ready: () => boolean): string | undefined {
  if (ready()) return undefined;
  const names = packages.join(" ");
  if (process.getuid?.() !== 0) return `${names} ${packages.length > 1 ? "are" : "is"} missing and installing with apt-get needs root`;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive", RUNLEVEL: "1" };
  // Test files in parallel workers may install at the same time: apt waits for the other's dpkg lock instead of failing.
  const lock = "-o DPkg::Lock::Timeout=300";
  const apt = `apt-get ${lock} install -y -qq --no-install-recommends ${names}`;
  const install = spawnSync("sh", ["-c", `${apt} || (apt-get ${lock} update -qq && ${apt})`], { env, encoding: "utf8" });
  if (!ready()) return `installing ${names} with apt-get failed: ${(install.stderr || install.stdout || "").trim().split("\n").slice(-3).join(" | ")}`;
  return undefined;
}

/** A TCP port on 127.0.0.1 that nothing listens on (free when asked; the caller binds it soon after). */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Waits until something accepts connections on 127.0.0.1:`port`, for at most `timeoutMs`.
 * @throws naming `what` and its log when `child` exits first or the time runs out (then `child` is killed).
 */
export async function waitForListen(child: ChildProcess, port: number, what: string, log: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited at start: ${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${what} did not listen on ${port} within ${timeoutMs / 1000}s: ${log()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops `child` by its PID (never a system copy of the same server): `signal`, then SIGKILL after `graceMs`. */
export async function stopByPid(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(child.pid!, signal);
  await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
  if (child.exitCode === null && child.signalCode === null) {
    process.kill(child.pid!, "SIGKILL");
    await exited;
  }
}
