// An sftp subsystem for tests that stops a client's write at a known point: it runs the real sftp-server and relays its
// packets, and while `<controlDir>/armed` exists it stops at the first request that would replace a file (a rename),
// writing `<controlDir>/paused` with its pid. `armed` holding "before" holds that request and every one after it (the
// rename never happens); "after" lets the server do the rename and holds its answer and everything after. The test then
// drops the connection there, so "the connection died mid-write" happens at one place every run rather than when a race
// is won.
// Usage (sshd_config): Subsystem sftp <node> <this file> <real sftp-server> <controlDir>. Node's builtins only: it runs
// as the login user, from the compiled dist/ tree.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

// SFTP packet types (draft-ietf-secsh-filexfer-02 §3): RENAME, and EXTENDED (posix-rename@openssh.com).
const SSH_FXP_RENAME = 18;
const SSH_FXP_EXTENDED = 200;

/** Whether one client packet (without its length) renames a file. */
export function isRename(packet: Buffer): boolean {
  const type = packet[0];
  if (type === SSH_FXP_RENAME) return true;
  if (type !== SSH_FXP_EXTENDED || packet.length < 9) return false;
  const n = packet.readUInt32BE(5);
  return packet.subarray(9, 9 + n).toString("latin1") === "posix-rename@openssh.com";
}

function main(): void {
  const [server, controlDir] = process.argv.slice(2);
  const child = spawn(server, [], { stdio: ["pipe", "pipe", "inherit"] });
  child.on("exit", (code) => process.exit(code ?? 1));
  let pending = Buffer.alloc(0);
  let held = false;
  // Every answer before the held rename has been written out, so holding replies from here on holds only its answer.
  let repliesHeld = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (!repliesHeld) process.stdout.write(chunk);
  });
  process.stdin.on("data", (chunk: Buffer) => {
    if (held) return;
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const len = pending.readUInt32BE(0);
      if (pending.length < 4 + len) break;
      const packet = pending.subarray(0, 4 + len);
      const armed = path.join(controlDir, "armed");
      if (fs.existsSync(armed) && isRename(packet.subarray(4))) {
        held = true;
        if (fs.readFileSync(armed, "utf8").trim() === "after") {
          repliesHeld = true;
          child.stdin.write(packet);
        }
        fs.writeFileSync(path.join(controlDir, "paused"), JSON.stringify({ pid: process.pid }));
        return;
      }
      child.stdin.write(packet);
      pending = pending.subarray(4 + len);
    }
  });
  process.stdin.on("end", () => child.stdin.end());
}

if (require.main === module) main();
