// The config file on a small tmpfs that fills up, for both transports and both write paths (in place as a member of
// the file's group, temp file and rename as its owner): "full disk", where the new text cannot fit at all, and "a
// short write", where the file system fills in the middle of the write. The edit fails saying so, the file keeps its
// old bytes (or has them back), nothing is left beside it, and once there is room again the next edit converges.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { checkConverges, checkFile, configFile, configText, editAs, garmDir, leftovers, metaOf, mountSmallDisk, providerLine, type SmallDisk, type Transport, type WritePath, appendLine, useEnv } from "./support";

const CASES = [
  // 3 pages of old text; the new text needs 5, one page is free (room for the lock's holder file, not for the text).
  { kind: "full disk", newLineBytes: 9_000, freeBytes: 4096 },
  // 3 pages of old text; the new text needs 8, three are free: the write starts and the disk fills in its middle.
  { kind: "a short write", newLineBytes: 20_000, freeBytes: 3 * 4096 },
] as const;

describe("config edit fault matrix: the disk fills", function () {
  this.timeout(120_000);
  const fx = useEnv();
  let disk: SmallDisk | undefined;

  afterEach(() => {
    disk?.unmount();
    disk = undefined;
  });

  for (const c of CASES) {
    for (const transport of ["local", "ssh"] as Transport[]) {
      for (const writePath of ["in-place", "atomic"] as WritePath[]) {
        it(`${c.kind}, ${transport}, ${writePath}: the edit fails saying the disk is full, the file keeps its old bytes, no lock is left, and with room again the next edit converges`, async () => {
          const login = fx.env.login(transport, writePath);
          disk = mountSmallDisk(256);
          const dir = garmDir(disk.dir);
          const oldText = configText(10_000);
          const file = configFile(dir, oldText, writePath);
          const meta = metaOf(file);
          const line = providerLine(`${transport}-${writePath}`, c.newLineBytes);
          disk.fill(c.freeBytes);
          const outcome = await editAs(fx.env, login, file, line, 10_000);
          console.log(`      ${outcome.ok ? "succeeded" : `${outcome.name} (fileState ${outcome.fileState}): ${outcome.message}`}`);
          const holds = checkFile(`${c.kind} ${transport} ${writePath}`, file, Buffer.from(oldText), Buffer.from(appendLine(line)(oldText)), outcome, meta);
          assert.equal(outcome.ok, false, "the new text cannot fit: the edit fails");
          assert.equal(holds, "old", "the file holds its old bytes");
          assert.match(outcome.message ?? "", /space|disk|ENOSPC|full/i, "the error says the disk is full");
          assert.deepEqual(leftovers(dir), [], "no lock, temp or backup file left beside the file");
          disk.free();
          await checkConverges(fx.env, login, file, meta);
          assert.ok(fs.readFileSync(file, "utf8").startsWith(oldText));
        });
      }
    }
  }
});
