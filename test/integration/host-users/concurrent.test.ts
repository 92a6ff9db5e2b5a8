// `make test` runs test files in parallel processes, and on a fresh machine two of them may make the same system user
// at once (the SSH tests' GARM user): every process must end with that user, none failing because the other's
// groupadd or useradd came first or held /etc/passwd's lock.
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as path from "node:path";

const UID = 4396;
const NAME = "pgarm-concur";
const PROCESSES = 6;
const ROUNDS = 3;

function remove(): void {
  const user = spawnSync("getent", ["passwd", String(UID)], { encoding: "utf8" });
  if (user.status === 0) spawnSync("userdel", [user.stdout.split(":")[0]!]);
  const group = spawnSync("getent", ["group", String(UID)], { encoding: "utf8" });
  if (group.status === 0) spawnSync("groupdel", [group.stdout.split(":")[0]!]);
}

/** Runs ensureGroup and ensureUser in a child process that starts them at `at` (ms since the epoch). */
function ensureAt(at: number): Promise<{ code: number | null; out: string }> {
  const module = path.join(__dirname, "..", "..", "..", "harness", "host-users.js");
  const script = [
    `const h = require(${JSON.stringify(module)});`,
    `while (Date.now() < ${at});`,
    `h.ensureGroup(${UID}, ${JSON.stringify(NAME)});`,
    `console.log(JSON.stringify(h.ensureUser({ uid: ${UID}, name: ${JSON.stringify(NAME)}, gid: ${UID}, groups: [${UID}] })));`,
  ].join("\n");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => resolve({ code, out: out.trim() }));
  });
}

describe("host users made by several processes at once (parallel test workers)", function () {
  this.timeout(120_000);
  before(function () {
    if (process.getuid?.() !== 0) this.skip(); // useradd needs root, as the tests that make users do
    remove();
  });
  after(remove);

  it(`${PROCESSES} processes making the same group and user together all get it, in each of ${ROUNDS} rounds`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      remove();
      const at = Date.now() + 1500; // past every child's start, so their getent-then-useradd steps overlap
      const results = await Promise.all(Array.from({ length: PROCESSES }, () => ensureAt(at)));
      const expected = JSON.stringify({ name: NAME, uid: UID, gid: UID });
      assert.deepEqual(results, Array.from({ length: PROCESSES }, () => ({ code: 0, out: expected })), `round ${round}`);
    }
  });
});
