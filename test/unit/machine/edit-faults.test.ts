// The one edit (provider/machine/edit.ts) with a fault injected at every step it takes, on both of its paths (temp file
// and rename; in place, when the owner cannot be given to a new file): after each, the file holds exactly its old or
// its new bytes as the error says, owner and mode are kept, no lock and no temp file is left, and the next edit
// converges.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { editFile } from "../../../provider/machine/edit";
import { FileEditError } from "../../../provider/machine/errors";
import { faultyFiles, type Fault, type FaultyFiles } from "./faulty-files";

const OLD = '[default]\ncallback_url = "https://garm.example.com/callbacks"\n\n[database]\nbackend = "sqlite3"\n'.repeat(40);
const NEW = OLD + '# BEGIN pulumi-garm provider "lxd"\n[[provider]]\nname = "lxd"\n# END pulumi-garm provider "lxd"\n'.repeat(30);

type Path = "rename" | "in place" | "in place, directory closed";

describe("one edit of a file on a machine, a fault at every step", function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  const warnings: string[] = [];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "edit-faults-"));
    file = path.join(dir, "config.toml");
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
    warnings.length = 0;
  });

  const edit = (files: FaultyFiles) =>
    editFile(files, file, () => NEW, () => undefined, { what: "GARM config file", lockWaitMs: 2000, warn: (l) => warnings.push(l) });

  function arrange(files: FaultyFiles, way: Path): void {
    files.refuseChown = way !== "rename";
    if (way === "in place, directory closed") files.refuseCreateIn = [dir];
  }

  /** The number of operations a clean edit takes on `way`. */
  async function stepsOf(way: Path): Promise<number> {
    await fs.writeFile(file, OLD, { mode: 0o640 });
    const files = faultyFiles();
    arrange(files, way);
    await edit(files);
    assert.equal(await fs.readFile(file, "utf8"), NEW);
    return files.log.length;
  }

  for (const way of ["rename", "in place", "in place, directory closed"] as Path[]) {
    for (const fault of ["ENOSPC", "EIO", "short", "lost"] as Fault[]) {
      it(`${way}, ${fault}: the file is old, restored or new as the error says, nothing is left, and the next edit converges`, async () => {
        const steps = await stepsOf(way);
        assert.ok(steps > 8, `a clean edit took ${steps} steps`);
        const seen = new Set<string>();
        for (let k = 1; k <= steps; k++) {
          await fs.writeFile(file, OLD, { mode: 0o640 });
          await fs.chmod(file, 0o640);
          const files = faultyFiles();
          arrange(files, way);
          files.failAt = k;
          files.fault = fault;
          const failedOp = () => files.log[k - 1] ?? "(none)";
          let state: string;
          try {
            await edit(files);
            state = "new";
          } catch (e) {
            assert.ok(e instanceof FileEditError, `step ${k} (${failedOp()}): ${(e as Error).stack}`);
            state = e.fileState;
            assert.notEqual(state, "damaged", `step ${k} (${failedOp()}): a single fault is always undone: ${e.message}`);
            assert.match(e.message, /unchanged|old bytes again|either its old or its new/, `step ${k} (${failedOp()}): the error says what the file holds: ${e.message}`);
            if (fault === "ENOSPC" || fault === "short") {
              if (/write/.test(failedOp())) assert.match(e.message, /no space left/, `step ${k} (${failedOp()}): ${e.message}`);
            }
          }
          seen.add(state);
          const bytes = await fs.readFile(file, "utf8");
          const holds = bytes === OLD ? "old" : bytes === NEW ? "new" : `${bytes.length} other bytes`;
          if (state === "unchanged" || state === "restored") assert.equal(holds, "old", `step ${k} (${failedOp()}): said ${state}`);
          else if (state === "new") assert.equal(holds, "new", `step ${k} (${failedOp()}): the edit succeeded`);
          else assert.ok(holds === "old" || holds === "new", `step ${k} (${failedOp()}): said old-or-new, holds ${holds}`);
          assert.ok(!bytes.includes("\0"), `step ${k}: no NUL bytes`);
          assert.equal((await fs.stat(file)).mode & 0o777, 0o640, `step ${k}: mode kept`);
          const left = (await fs.readdir(dir)).filter((n) => n !== "config.toml");
          assert.deepEqual(left, [], `step ${k} (${failedOp()}): nothing left beside the file`);
          const tmpLeft = (await fs.readdir("/tmp")).filter((n) => n.startsWith(".config.toml.pulumi-garm-backup-"));
          assert.deepEqual(tmpLeft, [], `step ${k}: no copy left in /tmp`);
          // The next edit, with no fault, converges.
          const clean = faultyFiles();
          arrange(clean, way);
          await edit(clean);
          assert.equal(await fs.readFile(file, "utf8"), NEW, `step ${k}: the next edit converges`);
        }
        assert.ok(seen.has("unchanged"), `some faults leave the file unchanged: ${[...seen]}`);
        if (way !== "rename") assert.ok(seen.has("restored"), `a fault in the in-place write is undone: ${[...seen]}`);
      });
    }
  }

  it("in place, a write that fails after the first bytes reached the file puts the old bytes back (not NULs, not a cut file)", async () => {
    await fs.writeFile(file, OLD, { mode: 0o640 });
    const files = faultyFiles();
    files.refuseChown = true;
    files.before = async (op) => {
      if (op === "write" && files.log.filter((l) => l.startsWith("write ")).length === 1 && !files.log.some((l) => l.startsWith("truncate"))) {
        files.failAt = files.log.length + 1;
        files.fault = "ENOSPC";
      }
    };
    await assert.rejects(
      editFile(files, file, () => NEW, () => undefined, {
        what: "GARM config file",
        lockWaitMs: 2000,
        warn: () => undefined,
        hooks: { afterPartialWrite: async () => assert.notEqual(await fs.readFile(file, "utf8"), OLD, "the first bytes reached the file") },
      }),
      (e: FileEditError) => e.fileState === "restored" && /no space left/.test(e.message) && /holds its old bytes again/.test(e.message),
    );
    assert.equal(await fs.readFile(file, "utf8"), OLD);
  });
});
