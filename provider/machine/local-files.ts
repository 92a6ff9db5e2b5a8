// This machine's files through node's fs, as MachineFiles (files.ts).
import { promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import * as os from "node:os";
import type { FileInfo, MachineFiles, OpenFile } from "./files";

interface LocalOpenFile extends OpenFile {
  fh: FileHandle;
}

function handle(f: OpenFile): FileHandle {
  return (f as LocalOpenFile).fh;
}

function info(st: import("node:fs").Stats): FileInfo {
  return { isFile: st.isFile(), isDirectory: st.isDirectory(), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, size: st.size, mtimeMs: st.mtimeMs };
}

export const localFiles: MachineFiles = {
  label: `this machine (${os.hostname()})`,
  actor: `uid ${process.getuid?.() ?? "?"} (gid ${process.getgid?.() ?? "?"})`,
  readFile: (path) => fs.readFile(path),
  realpath: (path) => fs.realpath(path),
  stat: async (path) => info(await fs.stat(path)),
  list: (dir) => fs.readdir(dir),
  async create(path, mode) {
    return { path, fh: await fs.open(path, "wx", mode) } as LocalOpenFile;
  },
  async openForUpdate(path) {
    return { path, fh: await fs.open(path, "r+") } as LocalOpenFile;
  },
  write: async (f, data, position) => (await handle(f).write(data, 0, data.length, position)).bytesWritten,
  truncate: (f, size) => handle(f).truncate(size),
  sync: (f) => handle(f).sync(),
  chown: (f, uid, gid) => handle(f).chown(uid, gid),
  chmod: (f, mode) => handle(f).chmod(mode),
  close: (f) => handle(f).close(),
  replace: (from, to) => fs.rename(from, to),
  async move(from, to) {
    // rename(2) replaces an empty directory at `to`; the lock's graves are fresh names, so a check suffices.
    if (await fs.lstat(to).then(() => true, () => false)) throw Object.assign(new Error(`${to} exists`), { code: "EEXIST" });
    await fs.rename(from, to);
  },
  unlink: (path) => fs.unlink(path),
  mkdir: (path, mode) => fs.mkdir(path, { mode }).then(() => undefined),
  rmdir: (path) => fs.rmdir(path),
  writeSmall: (path, data, mode) => fs.writeFile(path, data, { mode }),
  async syncDirectory(dir) {
    try {
      const dh = await fs.open(dir, "r");
      try {
        await dh.sync();
      } finally {
        await dh.close();
      }
    } catch {
      // Some file systems cannot fsync a directory; the rename is then as durable as they make it.
    }
  },
  now: async () => Date.now(),
  async freeBytes(dir) {
    try {
      const st = await fs.statfs(dir);
      return st.bavail * st.bsize;
    } catch {
      return undefined;
    }
  },
};
