// The peak resident set of the processes a Pulumi run starts, found by what they run: sampled from /proc while the run
// goes, since a provider process is gone by the time the CLI returns. VmHWM is the kernel's own high-water mark, so
// a sample taken late still holds every peak before it; only growth in the last interval can be missed.
import * as fs from "node:fs";
import { parentOf } from "../harness/proc";

function isDescendant(pid: number, root: number): boolean {
  for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parentOf(p), hops++) {
    if (p === root) return true;
  }
  return false;
}

function highWaterKiB(pid: number): number | undefined {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
    return line ? Number(/(\d+)/.exec(line)?.[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Watches this process's descendants whose command line matches `pattern`; `stop()` answers the highest peak, in MiB. */
export function watchPeakRss(pattern: RegExp, intervalMs = 100): { stop(): { peakMiB: number; processes: number } } {
  const peaks = new Map<number, number>();
  const sample = () => {
    for (const entry of fs.readdirSync("/proc")) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      let cmdline: string;
      try {
        cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      } catch {
        continue;
      }
      if (!pattern.test(cmdline) || !isDescendant(pid, process.pid)) continue;
      const kib = highWaterKiB(pid);
      if (kib !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, kib));
    }
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakMiB: Math.round(Math.max(0, ...peaks.values()) / 1024), processes: peaks.size };
    },
  };
}
