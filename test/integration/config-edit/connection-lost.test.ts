// The SSH connection dropped at a known point of an edit (harness/sftp-pause-proxy.ts holds the request, the test
// kills the sshd processes serving that session): before, during and after the rename of the temp file over the config
// file (the owner's atomic path), before and during the in-place write (a member of the file's group), and sshd itself
// restarted mid-write. Each time the file holds its old or new bytes whole, the error (if any) says which, nothing is
// left beside it, and the next edit converges. (Local edits have no connection: these cases are SSH's only.)
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { SshHost } from "../../../provider/machine/ssh-host";
import { killSession } from "../../../harness/ssh-session";
import { checkConverges, checkFile, configFile, configText, editOverSsh, garmDir, leftovers, metaOf, type Outcome, providerLine, type WritePath, useEnv } from "./support";

// A block the edit removes, so the new text is shorter than the old one: a write in place that stops before the
// truncate leaves the new text followed by the old one's tail, which is neither.
const OBSOLETE = configText(4_000, "obsolete").replace(/^\[default\]\n[^\n]*\n/, "");

interface Case {
  name: string;
  path: WritePath;
  /** What the proxy holds: the rename ("before": its request, "after": its answer), or the write to the file. */
  armed: "before" | "after" | "write-before" | "write-after";
  /** For "after": wait until the server has made the rename before dropping the connection. */
  waitRenamed?: boolean;
  /** Restart the sshd listener too (on the same port, with the same host key) before the held request goes on. */
  restartSshd?: boolean;
}

const CASES: Case[] = [
  { name: "the connection killed before the rename", path: "atomic", armed: "before" },
  { name: "the connection killed during the rename (its request sent, the connection dropped at once)", path: "atomic", armed: "after" },
  { name: "the connection killed after the rename (made, its answer held)", path: "atomic", armed: "after", waitRenamed: true },
  { name: "the connection killed before the in-place write", path: "in-place", armed: "write-before" },
  { name: "the connection killed during the in-place write (written, its answer held, not yet truncated)", path: "in-place", armed: "write-after" },
  { name: "sshd restarted before the rename", path: "atomic", armed: "before", restartSshd: true },
  { name: "sshd restarted during the in-place write", path: "in-place", armed: "write-after", restartSshd: true },
];

describe("config edit fault matrix: the SSH connection lost mid-edit", function () {
  this.timeout(120_000);
  const fx = useEnv("pulumi-garm-cfgedit-conn-");
  const warnings: string[] = [];

  CASES.forEach((c, i) => {
    it(`ssh, ${c.path}: ${c.name}: the file holds its old or new bytes whole as the outcome says, nothing is left, the next edit converges`, async () => {
      const e = fx.env;
      const login = e.login("ssh", c.path);
      const dir = garmDir(fx.base, `garm-${i}`);
      const oldText = `${configText(6_000)}${OBSOLETE}`;
      const file = configFile(dir, oldText, c.path);
      const meta = metaOf(file);
      const line = providerLine(`lost-${i}`);
      const edit = (t: string) => `${t.replace(OBSOLETE, "")}${line}\n`;
      const newText = edit(oldText);
      const armed = path.join(e.controlDir, "armed");
      const paused = path.join(e.controlDir, "paused");
      fs.writeFileSync(armed, c.armed.startsWith("write") ? `${c.armed} ${fs.realpathSync(file)}` : c.armed);
      const host = new SshHost(e.connection(login.user.name), (l) => warnings.push(l));
      let settled: Outcome | undefined;
      const run = editOverSsh(host, file, edit).then((r) => (settled = r));
      try {
        const deadline = Date.now() + 60_000;
        while (!fs.existsSync(paused)) {
          assert.equal(settled, undefined, `the edit ended before the proxy held its ${c.armed} request: ${JSON.stringify(settled)}`);
          assert.ok(Date.now() < deadline, `the edit did not reach its ${c.armed} request within 60 s`);
          await new Promise((r) => setTimeout(r, 20));
        }
        fs.rmSync(armed);
        const { pid } = JSON.parse(fs.readFileSync(paused, "utf8")) as { pid: number };
        fs.rmSync(paused);
        if (c.waitRenamed) {
          while (fs.readdirSync(dir).some((f) => f.endsWith(".tmp"))) {
            assert.ok(Date.now() < deadline, "the server did not make the rename within 60 s");
            await new Promise((r) => setTimeout(r, 20));
          }
        }
        killSession(pid, e.sshd.pid);
        if (c.restartSshd) await e.sshd.restart();
        const outcome = await run;
        console.log(`      ${outcome.ok ? "succeeded" : `${outcome.name} (fileState ${outcome.fileState}): ${outcome.message}`}`);
        checkFile(c.name, file, Buffer.from(oldText), Buffer.from(newText), outcome, meta);
        if (!outcome.ok) assert.match(outcome.message ?? "", /connection/i, "the error says the connection was lost");
        assert.deepEqual(leftovers(dir), [], "no lock, temp or backup file left beside the file");
      } finally {
        fs.rmSync(armed, { force: true });
        await host.close().catch(() => undefined);
      }
      await checkConverges(e, login, file, meta);
    });
  });
});
