// Ports for servers the tests start as separate processes (real GARM), which must be chosen before the process binds.
//
// A port the kernel handed out (bind to 0) lies in its ephemeral range, the same range it takes the local port of every
// outgoing connection from: released and bound again by GARM a moment later, it can meanwhile have become the local end
// of some connection, and GARM exits with "address already in use". Ports outside that range are never given out
// implicitly, so only another explicit bind can take them, and a retry with another port handles that.
import * as fs from "node:fs";
import * as net from "node:net";

/** Linux's default when /proc cannot be read. */
const DEFAULT_EPHEMERAL: readonly [number, number] = [32768, 60999];
/** Below this, ports belong to well-known and registered services more often than not. */
const LOWEST = 10000;

/** The kernel's ephemeral port range, inclusive (/proc/sys/net/ipv4/ip_local_port_range). */
export function ephemeralPortRange(text?: string): [number, number] {
  let raw = text;
  if (raw === undefined) {
    try {
      raw = fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8");
    } catch {
      return [...DEFAULT_EPHEMERAL];
    }
  }
  const [lo, hi] = raw.trim().split(/\s+/).map(Number);
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo! < 1 || hi! > 65535 || lo! > hi!) return [...DEFAULT_EPHEMERAL];
  return [lo!, hi!];
}

/** The ports at or above LOWEST outside `range`, as inclusive intervals. */
export function portsOutside(range: readonly [number, number]): [number, number][] {
  const out: [number, number][] = [];
  if (range[0] - 1 >= LOWEST) out.push([LOWEST, range[0] - 1]);
  if (range[1] + 1 <= 65535) out.push([Math.max(LOWEST, range[1] + 1), 65535]);
  return out;
}

function randomPortIn(intervals: [number, number][], random: () => number): number {
  const total = intervals.reduce((n, [lo, hi]) => n + hi - lo + 1, 0);
  if (total === 0) throw new Error("no ports outside the kernel's ephemeral range (ip_local_port_range covers them all)");
  let k = Math.floor(random() * total);
  for (const [lo, hi] of intervals) {
    if (k <= hi - lo) return lo + k;
    k -= hi - lo + 1;
  }
  throw new Error("unreachable");
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/**
 * A port on 127.0.0.1 outside the ephemeral range that nothing listens on now. It is released again: the caller's
 * server binds it, and retries with another port if it lost a race with another explicit bind.
 */
export async function pickPort(random: () => number = Math.random): Promise<number> {
  const intervals = portsOutside(ephemeralPortRange());
  let last = 0;
  for (let i = 0; i < 50; i++) {
    last = randomPortIn(intervals, random);
    if (await bindable(last)) return last;
  }
  throw new Error(`no free port on 127.0.0.1 outside the ephemeral range after 50 tries (last tried ${last})`);
}

/**
 * Whether process `pid` holds the socket listening on TCP `port` (IPv4 or IPv6, any address), from /proc; undefined
 * when /proc cannot tell. An answer on the port proves nothing by itself: another process may hold it.
 */
export function listensOn(pid: number, port: number): boolean | undefined {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  try {
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let text = "";
      try {
        text = fs.readFileSync(table, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n").slice(1)) {
        const f = line.trim().split(/\s+/);
        // sl, local_address (ADDR:PORT in hex), rem_address, st (0A = LISTEN), ..., inode (10th column)
        if (f.length < 10 || f[3] !== "0A") continue;
        if (f[1]!.split(":")[1] === hexPort) inodes.add(f[9]!);
      }
    }
    if (inodes.size === 0) return false;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch (err) {
      // A process that is gone holds nothing: a GARM that exited on its taken port while another server answers there.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
    for (const fd of fds) {
      let target = "";
      try {
        target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]!)) return true;
    }
    return false;
  } catch {
    return undefined;
  }
}
