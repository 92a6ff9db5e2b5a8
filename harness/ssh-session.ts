// The sshd processes serving one SSH session on a test's own sshd (harness/sshd.ts), and killing them to drop that
// session's connection at a known point. Processes may exit while they are being found or killed (the session ends on
// its own once one of them dies): a process already gone is not an error.
import * as fs from "node:fs";
import { parentOf } from "./proc";

function commOf(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined; // already exited
  }
}

/**
 * The sshd processes serving the session `pid` runs in: its ancestors up to (not including) the listener. Empty when
 * `pid` or its session already ended.
 * @throws when `pid` is alive and does not descend from `listener`.
 */
export function sessionProcesses(pid: number, listener: number): number[] {
  const chain: number[] = [];
  if (parentOf(pid) === undefined) return [];
  for (let p = parentOf(pid); p !== undefined && p > 1; p = parentOf(p)) {
    if (p === listener) return chain.filter((q) => commOf(q)?.startsWith("sshd"));
    chain.push(p);
  }
  // The chain broke because a process in it exited: the session is ending anyway.
  if (parentOf(pid) === undefined) return chain.filter((q) => commOf(q)?.startsWith("sshd"));
  throw new Error(`process ${pid} does not descend from sshd ${listener}`);
}

/** Sends SIGKILL to `pid`, tolerating a process that already exited (ESRCH). Returns whether it was still there. */
export function killIfAlive(pid: number, signal: NodeJS.Signals = "SIGKILL"): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw e;
  }
}

/** Kills the sshd processes serving the session of `pid` (and `pid` itself), tolerating those already gone. */
export function killSession(pid: number, listener: number): void {
  for (const q of sessionProcesses(pid, listener)) killIfAlive(q);
  killIfAlive(pid);
}

/** Every process below `listener` (its sessions), deepest first. */
export function descendants(listener: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      walk(c);
      out.push(c);
    }
  };
  walk(listener);
  return out;
}
