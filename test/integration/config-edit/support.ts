// What the config-edit fault matrix shares: the users (a login in the file's group that cannot give a new file the
// owner, so the in-place path runs, and the owner, whose edits go by temp file and rename), a real sshd on loopback
// with the sftp pause proxy as its sftp subsystem, writers in their own processes under those uids, and the checks
// every case ends with: the file old, new or restored byte for byte, its owner, group and mode kept, nothing left
// beside it, and the next edit converging.
import { strict as assert } from "node:assert";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { editConfigFile, type EditOptions } from "../../../provider/kinds/garm-provider/config-file";
import { FileEditError } from "../../../provider/machine/errors";
import { SshHost } from "../../../provider/machine/ssh-host";
import type { SshConnection } from "../../../provider/machine/ssh-connection";
import { appendLine, type WriterEvent, type WriterSpec } from "../../../harness/config-edit-writer";
import { ensureGroup, ensureUser, type HostUser } from "../../../harness/host-users";
import { ensureOpenSshServer, startSshServer, type SshServer } from "../../../harness/sshd";

export { appendLine };

/** GARM's group, the file's owner (atomic path) and a member of the group (in-place path). */
export const GROUP = 4262;
export const OWNER = 4263;
export const MEMBER = 4264;

export type Transport = "local" | "ssh";
/** "in-place": the login is in the file's group but is not its owner; "atomic": the login is the owner. */
export type WritePath = "in-place" | "atomic";

export interface Login {
  transport: Transport;
  path: WritePath;
  user: HostUser;
}

export const STATES = ["unchanged", "restored", "old-or-new", "damaged"] as const;

export interface Outcome {
  ok: boolean;
  isFileEditError?: boolean;
  fileState?: string;
  message?: string;
  name?: string;
}

export interface Env {
  owner: HostUser;
  member: HostUser;
  sshd: SshServer;
  controlDir: string;
  login(transport: Transport, writePath: WritePath): Login;
  connection(user: string): SshConnection;
  stop(): Promise<void>;
}

/** Why the matrix cannot run here (then it skips), or undefined. */
export function whyNot(): string | undefined {
  if (process.getuid?.() !== 0) return "the matrix makes users, mounts tmpfs and runs writers under other uids, which needs root";
  return ensureOpenSshServer();
}

/** Users, and an sshd whose sftp subsystem is the pause proxy (idle until armed), for one test file. */
export async function startEnv(): Promise<Env> {
  ensureGroup(GROUP, "pgarm-cfg");
  ensureGroup(MEMBER, "pgarm-cfgmem");
  const owner = ensureUser({ uid: OWNER, name: "pgarm-cfgown", gid: GROUP });
  const member = ensureUser({ uid: MEMBER, name: "pgarm-cfgmem", gid: MEMBER, groups: [GROUP] });
  const controlDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-cfgedit-control-"));
  fs.chmodSync(controlDir, 0o777);
  const proxy = path.join(__dirname, "..", "..", "..", "harness", "sftp-pause-proxy.js");
  const sshd = await startSshServer({ anyUser: true, sftpSubsystem: (real) => `${process.execPath} ${proxy} ${real} ${controlDir}` });
  const connection = (user: string): SshConnection => ({
    host: sshd.host,
    port: sshd.port,
    user,
    privateKey: sshd.clientKey,
    hostKey: sshd.hostKey,
    agentSocketPath: "",
    dialErrorLimit: 3,
    perDialTimeout: 10,
  });
  return {
    owner,
    member,
    sshd,
    controlDir,
    login: (transport, writePath) => ({ transport, path: writePath, user: writePath === "atomic" ? owner : member }),
    connection,
    stop: async () => {
      await sshd.stop();
      fs.rmSync(controlDir, { recursive: true, force: true });
    },
  };
}

/** GARM's directory: its group may add files (the lock and temp files go beside the config file). */
export function garmDir(parent: string, name = "garm"): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir);
  fs.chownSync(dir, 0, GROUP);
  fs.chmodSync(dir, 0o770);
  return dir;
}

/**
 * GARM's config file with `text`: root:GROUP 0660 for an in-place login (it may write the file, not give a new one
 * that owner), OWNER:GROUP 0660 when the login is the owner.
 */
export function configFile(dir: string, text: string | Buffer, writePath: WritePath): string {
  const file = path.join(dir, "config.toml");
  fs.writeFileSync(file, text);
  fs.chownSync(file, writePath === "atomic" ? OWNER : 0, GROUP);
  fs.chmodSync(file, 0o660);
  return file;
}

/** A config file's worth of text: `[default]` and comment lines, about `bytes` long. */
export function configText(bytes: number, tag = "operator"): string {
  let text = "[default]\ncallback_url = \"https://garm.example.com/api/v1/callbacks\"\n";
  for (let i = 0; text.length < bytes; i++) text += `# ${tag} note ${String(i).padStart(4, "0")}: kept byte for byte by every edit\n`;
  return text;
}

/** A provider-ish line (a TOML comment, so the file stays valid), padded to about `bytes`. */
export function providerLine(name: string, bytes = 0): string {
  const base = `# [[provider]] name = "${name}" provider_type = "external"`;
  return base.length >= bytes ? base : `${base} ${"x".repeat(bytes - base.length - 1)}`;
}

export interface Meta {
  uid: number;
  gid: number;
  mode: string;
}

export function metaOf(file: string): Meta {
  const st = fs.statSync(file);
  return { uid: st.uid, gid: st.gid, mode: (st.mode & 0o7777).toString(8).padStart(4, "0") };
}

// ---- writers ----

export interface Writer {
  child: ChildProcess;
  events: WriterEvent[];
  stderr(): string;
  /** Resolves with the first event `pred` accepts; rejects when the writer exits first or after `ms`. */
  until(pred: (e: WriterEvent) => boolean, what: string, ms?: number): Promise<WriterEvent>;
  exited: Promise<number | null>;
}

const WRITER = path.join(__dirname, "..", "..", "..", "harness", "config-edit-writer.js");

/**
 * Starts a writer process. A local one runs under the login's uid with the file's group as its gid (spawn drops
 * supplementary groups); an SSH one runs as this user and logs in as the login.
 */
export function startWriter(env: Env, login: Login, spec: Omit<WriterSpec, "transport" | "connection">): Writer {
  const full: WriterSpec = { ...spec, transport: login.transport, connection: login.transport === "ssh" ? env.connection(login.user.name) : undefined };
  const ids = login.transport === "local" ? { uid: login.user.uid, gid: GROUP } : {};
  const child = spawn(process.execPath, [WRITER, JSON.stringify(full)], { ...ids, stdio: ["ignore", "pipe", "pipe"] });
  const events: WriterEvent[] = [];
  const waiters: Array<() => void> = [];
  let out = "";
  let err = "";
  child.stdout!.on("data", (b: Buffer) => {
    out += b.toString();
    const lines = out.split("\n");
    out = lines.pop()!;
    for (const l of lines) if (l.trim()) events.push(JSON.parse(l) as WriterEvent);
    for (const w of waiters.splice(0)) w();
  });
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      for (const w of waiters.splice(0)) w();
      resolve(code);
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const until = (pred: (e: WriterEvent) => boolean, what: string, ms = 120_000): Promise<WriterEvent> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`writer: ${what} did not happen within ${ms / 1000}s; events ${JSON.stringify(events)}; stderr ${err}`)), ms);
      const check = () => {
        const found = events.find(pred);
        if (found) return clearTimeout(timer), resolve(found);
        if (gone || child.exitCode !== null || child.signalCode !== null) return clearTimeout(timer), reject(new Error(`writer exited (${child.exitCode ?? child.signalCode}) before ${what}; events ${JSON.stringify(events)}; stderr ${err}`));
        waiters.push(check);
      };
      check();
    });
  return { child, events, stderr: () => err, until, exited };
}

/** One edit appending `line` by `login`, in a writer process; its outcome. */
export async function editAs(env: Env, login: Login, file: string, line: string, lockWaitMs = 60_000, lockStaleMs?: number): Promise<Outcome> {
  const w = startWriter(env, login, { file, lines: [line], lockWaitMs, lockStaleMs });
  const r = await w.until((e) => e.event === "result", "the edit's result");
  await w.exited;
  return r as Outcome;
}

/** One edit by an SSH login in this process (the test reaches into the connection meanwhile); its outcome. */
export async function editOverSsh(host: SshHost, file: string, edit: (t: string) => string, options: EditOptions = {}): Promise<Outcome> {
  try {
    await editConfigFile(file, edit, () => undefined, { host, lockWaitMs: 60_000, ...options });
    return { ok: true };
  } catch (e) {
    const err = e as Error & { fileState?: string };
    return { ok: false, isFileEditError: e instanceof FileEditError, fileState: err.fileState, message: err.message, name: err.name };
  }
}

// ---- the checks every case ends with ----

/** What is in `dir` besides `keep`: locks, temp files, backups, clock probes. */
export function leftovers(dir: string, keep: string[] = ["config.toml"]): string[] {
  return fs.readdirSync(dir).filter((f) => !keep.includes(f)).sort();
}

/**
 * The file after a case: no NUL, the old or the new bytes whole, as the outcome says (a failure is a FileEditError
 * whose fileState matches the bytes; "damaged" is never acceptable here), owner, group and mode as before.
 * @returns which the file holds.
 */
export function checkFile(what: string, file: string, oldBytes: Buffer, newBytes: Buffer, outcome: Outcome, meta: Meta): "old" | "new" {
  const now = fs.readFileSync(file);
  const desc = `${what}: outcome ${JSON.stringify(outcome)}`;
  assert.equal(now.indexOf(0), -1, `${desc}: the file holds NUL bytes (at ${now.indexOf(0)} of ${now.length})`);
  const holds = now.equals(oldBytes) ? "old" : now.equals(newBytes) ? "new" : undefined;
  assert.ok(holds, `${desc}: the file holds neither the old bytes (${oldBytes.length}) nor the new (${newBytes.length}) but ${now.length} bytes: …${JSON.stringify(now.subarray(Math.max(0, now.length - 120)).toString())}`);
  if (outcome.ok) {
    assert.equal(holds, "new", `${desc}: the edit succeeded, the file holds the old bytes`);
  } else {
    assert.equal(outcome.isFileEditError, true, `${desc}: the failure is a FileEditError (provider/machine/errors.ts) saying what the file holds`);
    assert.ok((STATES as readonly string[]).includes(outcome.fileState ?? ""), `${desc}: fileState is one of ${STATES.join(", ")}`);
    assert.notEqual(outcome.fileState, "damaged", `${desc}: the file was left damaged`);
    if (outcome.fileState === "unchanged" || outcome.fileState === "restored") assert.equal(holds, "old", `${desc}: fileState ${outcome.fileState} but the file holds the new bytes`);
  }
  assert.deepEqual(metaOf(file), meta, `${desc}: owner, group and mode kept`);
  return holds!;
}

/** The next edit by `login` succeeds and appends its line to what the file holds; nothing is left beside it. */
export async function checkConverges(env: Env, login: Login, file: string, meta: Meta, keep?: string[], lockStaleMs?: number): Promise<void> {
  const before = fs.readFileSync(file, "utf8");
  const line = providerLine(`converge-${login.transport}-${login.path}-${Math.random().toString(16).slice(2, 8)}`);
  const r = await editAs(env, login, file, line, 60_000, lockStaleMs);
  assert.deepEqual(r, { event: "result", round: 0, ok: true, changed: true }, `the next edit by ${login.transport}/${login.path} converges`);
  assert.equal(fs.readFileSync(file, "utf8"), appendLine(line)(before), "the next edit appended its line to what the file held");
  assert.deepEqual(metaOf(file), meta, "owner, group and mode kept by the next edit");
  assert.deepEqual(leftovers(path.dirname(file), keep), [], "nothing left beside the file after the next edit");
}

// ---- a small tmpfs ----

export interface SmallDisk {
  dir: string;
  /** Fills the disk with a filler file (outside GARM's directory) so that only `freeBytes` (whole pages) stay free. */
  fill(freeBytes: number): void;
  /** Removes the filler. */
  free(): void;
  unmount(): void;
}

export function mountSmallDisk(sizeKiB: number): SmallDisk {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-garm-cfgedit-disk-"));
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKiB}k,mode=0755`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mount tmpfs on ${dir} failed: ${r.stderr}`);
  const filler = path.join(dir, "filler");
  const page = 4096;
  return {
    dir,
    fill(freeBytes) {
      const fd = fs.openSync(filler, "w");
      const chunk = Buffer.alloc(page, 0x2e);
      let written = 0;
      try {
        for (;;) {
          const n = fs.writeSync(fd, chunk, 0, page, written);
          if (n < page) break;
          written += n;
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      }
      const keep = Math.max(0, Math.floor(written / page) - Math.ceil(freeBytes / page));
      fs.ftruncateSync(fd, keep * page);
      fs.closeSync(fd);
    },
    free() {
      fs.rmSync(filler, { force: true });
    },
    unmount() {
      const u = spawnSync("umount", [dir], { encoding: "utf8" });
      if (u.status !== 0) spawnSync("umount", ["-l", dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Registers a matrix file's hooks (call inside `describe`): the logins, the sshd and its proxy (`env`), and, with
 * `prefix`, a base directory; the file is skipped, saying why, where they cannot be had. After it, the proxy's control
 * files are removed and everything is stopped.
 */
export function useEnv(prefix?: string): { readonly env: Env; readonly base: string } {
  let env: Env | undefined;
  let base: string | undefined;
  before(async function () {
    const why = whyNot();
    if (why) {
      console.log(`      skipped: ${why}`);
      return this.skip();
    }
    env = await startEnv();
    if (prefix) {
      base = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      fs.chmodSync(base, 0o755);
    }
  });
  after(async () => {
    for (const f of ["armed", "paused", "release"]) fs.rmSync(path.join(env?.controlDir ?? "/nonexistent", f), { force: true });
    await env?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });
  return {
    get env() {
      return env!;
    },
    get base() {
      return base!;
    },
  };
}
