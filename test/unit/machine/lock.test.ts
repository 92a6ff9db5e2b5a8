// The one lock protocol (provider/machine/lock.ts) as both transports keep it: a stale lock met by two writers at
// once, the slower of two takeovers arriving after the faster one's fresh lock, a holder that lost its lock, a holder
// record that cannot be written, and a lock kept fresh only through its holder file (as an SSH writer keeps it).
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { FileEditError } from "../../../provider/machine/errors";
import { localFiles } from "../../../provider/machine/local-files";
import { takeLock, type HeldLock } from "../../../provider/machine/lock";
import { faultyFiles } from "./faulty-files";

const STALE_MS = 1_000;

describe("the lock of a file on a machine", function () {
  this.timeout(60_000);
  let dir: string;
  let target: string;
  let lockDir: string;
  const warnings: string[] = [];
  const options = (over: Partial<Parameters<typeof takeLock>[2]> = {}) => ({ waitMs: 10_000, what: "GARM config file", warn: (l: string) => warnings.push(l), staleMs: STALE_MS, ...over });

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "lock-"));
    target = path.join(dir, "config.toml");
    lockDir = `${target}.lock`;
    await fs.writeFile(target, "x\n");
    warnings.length = 0;
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

  /** A lock left by a writer that died `ageMs` ago, with its holder record. */
  async function staleLock(ageMs: number, token = "dead-token"): Promise<void> {
    await fs.mkdir(lockDir);
    await fs.writeFile(`${lockDir}/holder`, JSON.stringify({ who: "pulumi-garm pid 7", where: "laptop", since: Date.now() - ageMs, token }));
    const then = new Date(Date.now() - ageMs);
    await fs.utimes(`${lockDir}/holder`, then, then);
    await fs.utimes(lockDir, then, then);
  }

  it("a stale lock met by two writers at once: one takes it over, the other waits for its release, 20 times", async () => {
    for (let round = 0; round < 20; round++) {
      await fs.rm(lockDir, { recursive: true, force: true });
      await staleLock(5_000);
      let holding = 0;
      let most = 0;
      const writer = async () => {
        const lock = await takeLock(localFiles, target, options());
        holding++;
        most = Math.max(most, holding);
        await lock.assertHeld();
        await new Promise((r) => setTimeout(r, 20));
        holding--;
        await lock.release();
      };
      await Promise.all([writer(), writer()]);
      assert.equal(most, 1, `round ${round}: both writers held the lock at once`);
      assert.deepEqual((await fs.readdir(dir)).sort(), ["config.toml"], `round ${round}: nothing left`);
    }
    assert.ok(warnings.some((w) => /took over the lock .* left by pulumi-garm pid 7 on laptop/.test(w)), warnings.join("\n"));
  });

  it("the slower of two takeovers, arriving after the faster one made a fresh lock, does not take that lock", async () => {
    await staleLock(5_000);
    // B judges the lock stale, then waits at its claim until A has taken over and holds a fresh lock.
    const slow = faultyFiles("this machine");
    let releaseB!: () => void;
    const bHeld = new Promise<void>((r) => (releaseB = r));
    let aHolds!: () => void;
    const aReady = new Promise<void>((r) => (aHolds = r));
    slow.before = async (op, p) => {
      if (op === "mkdir" && p.endsWith("/takeover")) {
        aHolds();
        await bHeld;
      }
    };
    const b = takeLock(slow, target, options());
    await aReady;
    const a = await takeLock(localFiles, target, options());
    releaseB();
    // A keeps its lock: B's claim went into A's fresh lock, which B sees is not the one it judged stale.
    await new Promise((r) => setTimeout(r, 300));
    await a.assertHeld();
    const record = JSON.parse(await fs.readFile(`${lockDir}/holder`, "utf8")) as { token: string };
    assert.notEqual(record.token, "dead-token");
    await a.release();
    const bLock = await b;
    await bLock.assertHeld();
    await bLock.release();
    assert.deepEqual(await fs.readdir(dir), ["config.toml"]);
  });

  it("a holder whose lock was taken over writes nothing, and its release leaves the new holder's lock", async () => {
    const first = await takeLock(localFiles, target, options({ refreshMs: 60_000 }));
    // It stops refreshing (a paused process); the lock goes stale and another writer takes it.
    const then = new Date(Date.now() - 5_000);
    await fs.utimes(`${lockDir}/holder`, then, then);
    const second = await takeLock(localFiles, target, options());
    await assert.rejects(first.assertHeld(), (e: FileEditError) => /lost the lock .* holds it now.*nothing was written/.test(e.message));
    await first.release();
    await second.assertHeld();
    assert.ok((await fs.readdir(dir)).includes("config.toml.lock"), "the second writer's lock stays");
    await second.release();
  });

  it("a lock kept fresh through its holder file only (as over SSH) is not stale, whatever its directory's age", async () => {
    await staleLock(5_000, "live-token");
    await fs.utimes(`${lockDir}/holder`, new Date(), new Date());
    await assert.rejects(takeLock(localFiles, target, options({ waitMs: 400 })), /pulumi-garm pid 7 on laptop .* holds .*config\.toml\.lock and did not release it within 0\.4s/);
    assert.equal(JSON.parse(await fs.readFile(`${lockDir}/holder`, "utf8")).token, "live-token");
  });

  it("a holder record that cannot be written (a full disk) removes the lock it made and says so", async () => {
    const files = faultyFiles("this machine");
    files.before = async (op) => {
      if (op === "writeSmall") {
        files.failAt = files.log.length + 1;
        files.fault = "ENOSPC";
      }
    };
    await assert.rejects(takeLock(files, target, options()), (e: Error) => /writing who holds it .* failed \(no space left on the file system \(.*ENOSPC\)\); the lock .* was removed\. The file is unchanged/.test(e.message));
    assert.deepEqual(await fs.readdir(dir), ["config.toml"]);
    const lock: HeldLock = await takeLock(localFiles, target, options({ waitMs: 100 }));
    await lock.release();
  });
});
