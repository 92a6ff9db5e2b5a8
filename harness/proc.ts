// What Linux's /proc says of a process, for tests and benches that find processes by their ancestry.
import * as fs from "node:fs";

/** Parent pid of `pid`, or undefined once it is gone. */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name in parentheses may hold spaces: the fields after it start two characters past its ")".
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}
