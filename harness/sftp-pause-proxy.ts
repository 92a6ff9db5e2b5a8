// An sftp subsystem for tests that stops a client's write at a known point: it runs the real sftp-server and relays its
// packets, and while `<controlDir>/armed` exists it stops at the first request that would replace a file (a rename),
// writing `<controlDir>/paused` with its pid. `armed` holding "before" holds that request and every one after it (the
// rename never happens); "after" lets the server do the rename and holds its answer and everything after. `armed`
// holding "write-before <path>" or "write-after <path>" does the same at the first write to a handle opened for
// exactly <path> (a file rewritten in place) instead of at a rename. The test then drops the connection there, so "the
// connection died mid-write" happens at one place every run rather than when a race is won; or it creates
// `<controlDir>/release`, and the held request (or answer) goes on with everything after it, so a race is played out in
// one order. One arming holds one session: of several sessions meeting it, only the first stops (`claim-*` files).
// Usage (sshd_config): Subsystem sftp <node> <this file> <real sftp-server> <controlDir>. Node's builtins only: it runs
// as the login user, from the compiled dist/ tree.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

// SFTP packet types (draft-ietf-secsh-filexfer-02 §3): OPEN, WRITE, RENAME, HANDLE, and EXTENDED (posix-rename@openssh.com).
const SSH_FXP_OPEN = 3;
const SSH_FXP_WRITE = 6;
const SSH_FXP_RENAME = 18;
const SSH_FXP_HANDLE = 102;
const SSH_FXP_EXTENDED = 200;

/** Whether one client packet (without its length) renames a file. */
export function isRename(packet: Buffer): boolean {
  const type = packet[0];
  if (type === SSH_FXP_RENAME) return true;
  if (type !== SSH_FXP_EXTENDED || packet.length < 9) return false;
  const n = packet.readUInt32BE(5);
  return packet.subarray(9, 9 + n).toString("latin1") === "posix-rename@openssh.com";
}

/** The request id and first string of a packet (without its length) whose body starts `uint32 id, string s`. */
function idAndString(packet: Buffer): { id: number; s: Buffer } | undefined {
  if (packet.length < 9) return undefined;
  const id = packet.readUInt32BE(1);
  const n = packet.readUInt32BE(5);
  if (packet.length < 9 + n) return undefined;
  return { id, s: packet.subarray(9, 9 + n) };
}

/** Splits `buf` into whole packets (each with its length), returning them and the rest. */
function frames(buf: Buffer): { packets: Buffer[]; rest: Buffer } {
  const packets: Buffer[] = [];
  let rest: Buffer = buf;
  while (rest.length >= 4) {
    const len = rest.readUInt32BE(0);
    if (rest.length < 4 + len) break;
    packets.push(rest.subarray(0, 4 + len));
    rest = rest.subarray(4 + len);
  }
  return { packets, rest };
}

/** What `armed` asks for: where to stop, and whether the held request reaches the server first. */
function armedAt(controlDir: string): { at: "rename" | "write"; after: boolean; path?: string; claim: string } | undefined {
  const armed = path.join(controlDir, "armed");
  let text: string;
  let claim: string;
  try {
    const st = fs.statSync(armed);
    claim = path.join(controlDir, `claim-${st.ino}-${st.mtimeMs}`);
    text = fs.readFileSync(armed, "utf8").trim();
  } catch {
    return undefined;
  }
  const m = /^write-(before|after) (.+)$/.exec(text);
  if (m) return { at: "write", after: m[1] === "after", path: m[2], claim };
  return { at: "rename", after: text === "after", claim };
}

/** Whether this session is the first to meet this arming (an exclusive create). */
function claimed(claim: string): boolean {
  try {
    fs.closeSync(fs.openSync(claim, "wx"));
    return true;
  } catch {
    return false;
  }
}

function main(): void {
  const [server, controlDir] = process.argv.slice(2);
  const child = spawn(server, [], { stdio: ["pipe", "pipe", "inherit"] });
  child.on("exit", (code) => process.exit(code ?? 1));
  let pending: Buffer = Buffer.alloc(0);
  let answers: Buffer = Buffer.alloc(0);
  let held = false;
  // Every answer before the held request has been written out, so holding replies from here on holds only its answer.
  let repliesHeld = false;
  let heldReplies: Buffer[] = [];
  // Open requests by id, and the handles the server answered them with, by handle: which path a write goes to.
  const opening = new Map<number, string>();
  const handles = new Map<string, string>();
  child.stdout.on("data", (chunk: Buffer) => {
    answers = Buffer.concat([answers, chunk]);
    const { packets, rest } = frames(answers);
    answers = rest;
    for (const p of packets) {
      if (p[4] === SSH_FXP_HANDLE) {
        const r = idAndString(p.subarray(4));
        const opened = r && opening.get(r.id);
        if (r && opened !== undefined) handles.set(r.s.toString("latin1"), opened);
      }
      if (repliesHeld) heldReplies.push(p);
      else process.stdout.write(p);
    }
  });
  const relay = () => {
    const { packets, rest } = frames(pending);
    pending = rest;
    for (let i = 0; i < packets.length; i++) {
      const packet = packets[i];
      const body = packet.subarray(4);
      if (body[0] === SSH_FXP_OPEN) {
        const r = idAndString(body);
        if (r) opening.set(r.id, r.s.toString("utf8"));
      }
      const armed = armedAt(controlDir);
      const hit =
        armed !== undefined &&
        (armed.at === "rename"
          ? isRename(body)
          : body[0] === SSH_FXP_WRITE && handles.get(idAndString(body)?.s.toString("latin1") ?? "") === armed.path);
      if (hit && claimed(armed.claim)) {
        held = true;
        // Until released: the held request (unless it went on, "after") and what follows it wait in `pending`.
        pending = Buffer.concat([...packets.slice(armed.after ? i + 1 : i), pending]);
        if (armed.after) {
          repliesHeld = true;
          child.stdin.write(packet);
        }
        fs.writeFileSync(path.join(controlDir, "paused"), JSON.stringify({ pid: process.pid }));
        const release = path.join(controlDir, "release");
        const poll = setInterval(() => {
          if (!fs.existsSync(release)) return;
          clearInterval(poll);
          fs.rmSync(release, { force: true });
          held = false;
          repliesHeld = false;
          for (const p of heldReplies.splice(0)) process.stdout.write(p);
          relay();
        }, 20);
        return;
      }
      child.stdin.write(packet);
    }
  };
  process.stdin.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    if (!held) relay();
  });
  process.stdin.on("end", () => child.stdin.end());
}

if (require.main === module) main();
