// Two writers at once, each in its own process: 20 rounds each, local+local, SSH+SSH and local+SSH (one the file's
// owner on the atomic path, the other a member of its group writing in place), each round appending the writer's own
// line: at the end every line is there exactly once (no lost update). Then a stale lock (an old lock directory with an
// old holder file) met by two writers at once: one at a time holds it (each checks, inside its hook, that no other
// writer is inside and that its lock is still there), both lines end up in the file, and neither release removes the
// other's lock; once more over SSH with the first takeover held (harness/sftp-pause-proxy.ts) until the other writer
// has taken the lock, so the two takeovers meet in the one order where a second one would succeed.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { WriterEvent } from "../../../harness/config-edit-writer";
import { checkConverges, configFile, configText, garmDir, leftovers, type Login, metaOf, OWNER, GROUP, providerLine, startWriter, type Transport, type Writer, useEnv } from "./support";

const ROUNDS = 20;

function countLines(text: string, line: string): number {
  return text.split("\n").filter((l) => l === line).length;
}

function failures(w: Writer, who: string): string[] {
  return w.events.filter((e: WriterEvent) => (e.event === "result" && !e.ok) || (e.event === "hook" && e.violation)).map((e) => `${who} round ${e.round}: ${e.violation ?? e.message}`);
}

describe("config edit fault matrix: two writers at once", function () {
  this.timeout(180_000);
  const fx = useEnv("pulumi-garm-cfgedit-two-");

  const PAIRS: Array<[Transport, Transport]> = [
    ["local", "local"],
    ["ssh", "ssh"],
    ["local", "ssh"],
  ];

  PAIRS.forEach(([a, b], i) => {
    it(`${a}+${b}, ${ROUNDS} rounds each at once (${a} in place, ${b} atomic): every writer's line is in the file exactly once`, async () => {
      const e = fx.env;
      const logins: Login[] = [e.login(a, "in-place"), e.login(b, "atomic")];
      const dir = garmDir(fx.base, `rounds-${i}`);
      const oldText = configText(3_000);
      // The owner's file: the owner replaces it by rename, the group member rewrites it in place.
      const file = configFile(dir, oldText, "atomic");
      const meta = metaOf(file);
      const startAt = Date.now() + 1_500;
      const lines = logins.map((l, k) => Array.from({ length: ROUNDS }, (_, r) => providerLine(`writer-${k}-${l.transport}-${l.path}-round-${r}`)));
      const started = Date.now();
      const writers = logins.map((l, k) => startWriter(e, l, { file, lines: lines[k], startAt }));
      await Promise.all(writers.map((w) => w.until((ev) => ev.event === "done", `${ROUNDS} rounds`, 150_000)));
      await Promise.all(writers.map((w) => w.exited));
      console.log(`      (${((Date.now() - started) / 1000).toFixed(1)}s)`);
      assert.deepEqual(writers.flatMap((w, k) => failures(w, `writer ${k}`)), [], "every edit succeeded");
      const text = fs.readFileSync(file, "utf8");
      assert.ok(text.startsWith(oldText), "the operator's lines are kept");
      const wrong = lines.flat().filter((l) => countLines(text, l) !== 1).map((l) => `${l}: ${countLines(text, l)} times`);
      assert.deepEqual(wrong, [], "every line is present exactly once (no lost update)");
      assert.equal(text.indexOf("\0"), -1);
      assert.deepEqual(metaOf(file), meta, "owner, group and mode kept");
      assert.deepEqual(leftovers(dir), [], "no lock, temp or backup file left");
      await checkConverges(e, logins[0], file, meta);
    });
  });

  /** A lock left long ago by a writer that is gone: its directory and holder file, both with old mtimes. */
  function staleLock(file: string): void {
    const lockDir = `${file}.lock`;
    fs.mkdirSync(lockDir, { mode: 0o700 });
    const holder = path.join(lockDir, "holder");
    const since = Date.now() - 600_000;
    fs.writeFileSync(holder, JSON.stringify({ who: "pulumi-garm pid 999999 (user pgarm-cfgown)", where: "decommissioned-laptop", since }));
    for (const f of [holder, lockDir]) {
      fs.chownSync(f, OWNER, GROUP);
      fs.utimesSync(f, new Date(since), new Date(since));
    }
  }

  const STALE: Array<{ a: Transport; b: Transport; ordered?: boolean }> = [
    { a: "local", b: "local" },
    { a: "ssh", b: "ssh" },
    { a: "local", b: "ssh" },
    { a: "ssh", b: "ssh", ordered: true },
  ];

  STALE.forEach(({ a, b, ordered }, i) => {
    const how = ordered ? ", the first takeover held until the other writer holds the lock" : "";
    it(`${a}+${b}: a stale lock met by two writers at once${how}: one holder at a time, both lines in the file, neither release removes the other's lock`, async () => {
      const e = fx.env;
      const logins: Login[] = [e.login(a, "atomic"), e.login(b, "atomic")];
      const dir = garmDir(fx.base, `stale-${i}`);
      const critical = path.join(fx.base, `critical-${i}`);
      fs.mkdirSync(critical, { mode: 0o777 });
      fs.chmodSync(critical, 0o777);
      const oldText = configText(3_000);
      const file = configFile(dir, oldText, "atomic");
      const meta = metaOf(file);
      staleLock(file);
      const armed = path.join(e.controlDir, "armed");
      const paused = path.join(e.controlDir, "paused");
      const release = path.join(e.controlDir, "release");
      // Renames through the proxy: the takeover's rename of the stale lock comes first (the temp file's comes later).
      if (ordered) fs.writeFileSync(armed, "before");
      const startAt = Date.now() + 1_500;
      const lines = logins.map((l, k) => providerLine(`stale-${i}-writer-${k}-${l.transport}`));
      const writers = logins.map((l, k) => startWriter(e, l, { file, lines: [lines[k]], startAt, hook: { critical, holdMs: 400 } }));
      try {
        if (ordered) {
          const deadline = Date.now() + 60_000;
          while (!fs.existsSync(paused)) {
            assert.ok(Date.now() < deadline, `no takeover reached its rename within 60 s: ${JSON.stringify(writers.map((w) => w.events))}`);
            await new Promise((r) => setTimeout(r, 20));
          }
          fs.rmSync(armed);
          const { pid } = JSON.parse(fs.readFileSync(paused, "utf8")) as { pid: number };
          fs.rmSync(paused);
          // The other writer takes the lock over and is inside it; then the held takeover goes on. (Should the held
          // rename be one made while holding the lock, no one else gets in: it goes on after 6 s all the same:
          // that is how a claim made before the move keeps the other writer out.)
          const inside = await Promise.any(writers.map((w) => w.until((ev) => ev.event === "inside", "a writer inside the lock", 6_000))).then(
            () => true,
            () => false,
          );
          fs.writeFileSync(release, "");
          console.log(`      (rename by sftp session ${pid} held until ${inside ? "a writer was inside the lock" : "6 s passed with no writer inside the lock"})`);
        }
        await Promise.all(writers.map((w) => w.until((ev) => ev.event === "done", "its edit", 90_000)));
        await Promise.all(writers.map((w) => w.exited));
      } finally {
        for (const f of [armed, paused, release]) fs.rmSync(f, { force: true });
      }
      for (const [k, w] of writers.entries()) {
        const r = w.events.find((ev) => ev.event === "result");
        console.log(`      writer ${k} (${logins[k].transport}): ${r?.ok ? "succeeded" : r?.message}${w.events.find((ev) => ev.violation)?.violation ? `; ${w.events.find((ev) => ev.violation)!.violation}` : ""}`);
      }
      assert.deepEqual(writers.flatMap((w, k) => failures(w, `writer ${k}`)), [], "both edits succeeded, one lock holder at a time, neither lock removed under its holder");
      const text = fs.readFileSync(file, "utf8");
      assert.deepEqual(lines.map((l) => countLines(text, l)), [1, 1], "both lines are in the file once");
      assert.ok(text.startsWith(oldText));
      assert.deepEqual(metaOf(file), meta, "owner, group and mode kept");
      assert.deepEqual(leftovers(dir), [], "no lock (nor the stale one's remains), temp or backup file left");
      await checkConverges(e, logins[0], file, meta);
    });
  });
  it("ssh+ssh: a holder stalled at its rename past staleness is taken over; its release, once it goes on, leaves the new holder's lock, and it does not report success for a line the file lost", async () => {
    const e = fx.env;
    const login = e.login("ssh", "atomic");
    const dir = garmDir(fx.base, "stalled");
    const critical = path.join(fx.base, "critical-stalled");
    fs.mkdirSync(critical, { mode: 0o777 });
    fs.chmodSync(critical, 0o777);
    const go = path.join(fx.base, "stalled-go");
    const oldText = configText(3_000);
    const file = configFile(dir, oldText, "atomic");
    const meta = metaOf(file);
    const armed = path.join(e.controlDir, "armed");
    const paused = path.join(e.controlDir, "paused");
    const release = path.join(e.controlDir, "release");
    const lines = [providerLine("stalled-writer-a"), providerLine("stalled-writer-b")];
    fs.writeFileSync(armed, "before");
    const a = startWriter(e, login, { file, lines: [lines[0]], hook: { critical } });
    let b: Writer | undefined;
    try {
      // A holds the lock, its new file complete, its rename (and every request after it, its refreshes too) held.
      const deadline = Date.now() + 60_000;
      while (!fs.existsSync(paused)) {
        assert.ok(Date.now() < deadline, `writer A did not reach its rename within 60 s: ${JSON.stringify(a.events)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      fs.rmSync(armed);
      fs.rmSync(paused);
      // Time passes on the host: A's lock is older than the staleness.
      const then = new Date(Date.now() - 120_000);
      const lockDir = `${file}.lock`;
      for (const f of fs.readdirSync(lockDir)) fs.utimesSync(path.join(lockDir, f), then, then);
      fs.utimesSync(lockDir, then, then);
      // B takes the stale lock over and stays inside it until A has gone on and finished.
      b = startWriter(e, login, { file, lines: [lines[1]], hook: { critical, waitFor: go } });
      await b.until((ev) => ev.event === "inside", "writer B inside the lock it took over", 60_000);
      fs.writeFileSync(release, "");
      await a.until((ev) => ev.event === "done", "writer A's edit, once its rename went on", 60_000);
      fs.writeFileSync(go, "");
      await b.until((ev) => ev.event === "done", "writer B's edit", 60_000);
      await Promise.all([a.exited, b.exited]);
    } finally {
      for (const f of [armed, paused, release, go]) fs.rmSync(f, { force: true });
      b?.child.kill("SIGKILL");
    }
    const resultOf = (w: Writer) => w.events.find((ev) => ev.event === "result")!;
    console.log(`      writer A: ${resultOf(a).ok ? "succeeded" : resultOf(a).message}`);
    console.log(`      writer B: ${resultOf(b).ok ? "succeeded" : resultOf(b).message}`);
    assert.deepEqual(failures(b, "writer B"), [], "B, which took the stale lock over, kept it to the end (A's release left it) and succeeded");
    const text = fs.readFileSync(file, "utf8");
    assert.equal(countLines(text, lines[1]), 1, "B's line is in the file");
    if (countLines(text, lines[0]) !== 1) assert.equal(resultOf(a).ok, false, "A's line is not in the file, so A does not report success");
    assert.ok(text.startsWith(oldText));
    assert.deepEqual(metaOf(file), meta, "owner, group and mode kept");
    assert.deepEqual(leftovers(dir), [], "no lock, temp or backup file left");
    await checkConverges(e, login, file, meta);
  });
});
