// The machine GARM's config file lives on, as GarmProvider uses it: its files (files.ts, which the one edit in
// edit.ts and the one lock in lock.ts run over), and GARM's restart command run there. local-host.ts is this
// machine; ssh-host.ts reaches another one.
import type { MachineFiles } from "./files";
import type { CommandResult } from "./shell";

export { errnoOf } from "./files";
export { CONNECTION_LOST, ConnectionLostError as HostConnectionLostError } from "./errors";

/** What GarmProvider needs to know of a file: its kind, owner, group and permission bits. */
export interface HostFileStat {
  isFile: boolean;
  uid: number;
  gid: number;
  /** Permission and set-id bits (mode & 0o7777). */
  mode: number;
}

export interface GarmHost {
  /** Where the files are, for messages: "this machine", or "garm@10.0.0.5:22". */
  readonly label: string;
  /** The machine's files, for the edit (edit.ts) and the lock (lock.ts). */
  readonly files: MachineFiles;
  /** Where lines about the machine go (a lock taken over, a host key learnt); console.warn when absent. */
  readonly warn?: (line: string) => void;

  /** The file's bytes. Fails with an error carrying `code` (ENOENT, EACCES, ...) as node's fs does. */
  readFile(file: string): Promise<Buffer>;
  /** The path with every symlink resolved; fails with `code` ENOENT when it does not exist. */
  realpath(file: string): Promise<string>;
  /** Owner, group and mode; fails with `code` ENOENT when the file does not exist. */
  stat(file: string): Promise<HostFileStat>;
  /** Writes a small file (mode 0644) as it is, not atomically: for pulumi-garm's own notes beside the config file. */
  writeNote(file: string, text: string): Promise<void>;
  /** Removes a file; a file already gone is not an error. */
  remove(file: string): Promise<void>;

  /**
   * Runs `command` through `/bin/sh -c` and settles when that shell exits, not when what it started in the background
   * does. After `timeoutMs` it stops the shell and what it started in its process group, nothing else.
   * Never rejects for a failing command, only reports.
   */
  run(command: string, timeoutMs: number): Promise<CommandResult>;
}

/** The GarmHost operations on files, over `files`. */
export function fileOperations(files: MachineFiles): Pick<GarmHost, "readFile" | "realpath" | "stat" | "writeNote" | "remove"> {
  return {
    readFile: (file) => files.readFile(file),
    realpath: (file) => files.realpath(file),
    async stat(file) {
      const st = await files.stat(file);
      return { isFile: st.isFile, uid: st.uid, gid: st.gid, mode: st.mode };
    },
    writeNote: (file, text) => files.writeSmall(file, Buffer.from(text, "utf8"), 0o644),
    async remove(file) {
      try {
        await files.unlink(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    },
  };
}
