// A MachineFiles over this machine's files that fails one chosen operation, the way SQLite's tests fail each step of
// its file layer: a full disk, an I/O error, a short write, or the connection lost (after which, as over SSH, the next
// operation runs on a new connection and works).
import { ConnectionLostError } from "../../../provider/machine/errors";
import { codedError, type MachineFiles } from "../../../provider/machine/files";
import { localFiles } from "../../../provider/machine/local-files";

export type Fault = "ENOSPC" | "EIO" | "short" | "lost";

export interface FaultyFiles extends MachineFiles {
  /** Operations made so far, as `name path`. */
  readonly log: string[];
  /** Fails the operation with this 1-based number with `fault`; 0 fails none. */
  failAt: number;
  fault: Fault;
  /** Makes chown refuse (EPERM), as for a login that is not the file's owner: the edit rewrites in place. */
  refuseChown: boolean;
  /** Paths where create refuses (EACCES), as in a directory this login may not add files to. */
  refuseCreateIn: string[];
  /** Runs before each operation (name, path): to hold one writer at a chosen step. */
  before?: (op: string, path: string) => Promise<void>;
}

export function faultyFiles(label = "a faulty machine"): FaultyFiles {
  const f: FaultyFiles = {
    label,
    actor: "uid 1000 (gid 1000)",
    log: [],
    failAt: 0,
    fault: "EIO",
    refuseChown: false,
    refuseCreateIn: [],
  } as unknown as FaultyFiles;
  const pathOf = (args: unknown[]): string => {
    const a = args[0] as { path?: string } | string;
    return typeof a === "string" ? a : (a?.path ?? "");
  };
  for (const key of Object.keys(localFiles) as (keyof MachineFiles)[]) {
    const real = localFiles[key];
    if (typeof real !== "function") continue;
    (f as unknown as Record<string, unknown>)[key] = async (...args: unknown[]) => {
      const p = pathOf(args);
      await f.before?.(key, p);
      f.log.push(`${key} ${p}`);
      if (key === "chown" && f.refuseChown) throw codedError(`chown ${p}: EPERM`, "EPERM");
      if (key === "create" && f.refuseCreateIn.some((d) => p.startsWith(`${d}/`))) throw codedError(`open ${p}: EACCES`, "EACCES");
      if (f.log.length === f.failAt) {
        if (f.fault === "lost") throw new ConnectionLostError(`the SSH connection to ${label} was lost while doing ${key} ${p}`);
        if (f.fault === "short" && key === "write") {
          // Takes half of what was asked, as a file system filling up does; the next write finds it full.
          const [file, data, position] = args as [never, Buffer, number];
          const half = Math.floor(data.length / 2);
          const n = half > 0 ? await localFiles.write(file, data.subarray(0, half), position) : 0;
          f.failAt = f.log.length + 1;
          f.fault = "ENOSPC";
          return n;
        }
        throw codedError(`${key} ${p}: injected ${f.fault}`, f.fault === "short" ? "ENOSPC" : f.fault);
      }
      return (real as (...a: unknown[]) => unknown).apply(localFiles, args);
    };
  }
  return f;
}
