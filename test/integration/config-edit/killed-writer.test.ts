// The provider process killed mid-write (SIGKILL of a writer process at its afterTempWritten hook: the lock held, the
// new text complete in its temp file, not yet renamed over the config file), for both transports on the owner's atomic
// path. The file holds its old or new bytes whole; the lock is left behind, and a writer meeting it names its holder;
// once stale (its mtimes, the lock directory's and its holder file's, put back past the staleness by the host's clock,
// as the API has no way to shorten the 30 s wait) the next edit takes it over and converges.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { appendLine, checkConverges, configFile, configText, editAs, garmDir, metaOf, providerLine, startWriter, type Transport, useEnv } from "./support";

const STALE_MS = 3_000;

describe("config edit fault matrix: the provider process killed mid-write", function () {
  this.timeout(120_000);
  const fx = useEnv("pulumi-garm-cfgedit-killed-");

  for (const transport of ["local", "ssh"] as Transport[]) {
    it(`${transport}, atomic: SIGKILL at the hook leaves the file old or new whole and the lock behind; the next writer names its holder, and takes it over once stale`, async () => {
      const e = fx.env;
      const login = e.login(transport, "atomic");
      const dir = garmDir(fx.base, transport);
      const oldText = configText(6_000);
      const file = configFile(dir, oldText, "atomic");
      const meta = metaOf(file);
      const line = providerLine(`killed-${transport}`);
      const w = startWriter(e, login, { file, lines: [line], hook: { pause: true } });
      const at = await w.until((ev) => ev.event === "hook", "the writer's hook");
      w.child.kill("SIGKILL");
      await w.exited;

      const now = fs.readFileSync(file);
      assert.ok(now.equals(Buffer.from(oldText)) || now.equals(Buffer.from(appendLine(line)(oldText))), `the file holds its old or new bytes whole, not ${now.length} bytes`);
      assert.deepEqual(metaOf(file), meta, "owner, group and mode kept");
      const lockDir = `${file}.lock`;
      assert.ok(fs.existsSync(lockDir), "the killed writer's lock is left behind");

      const waited = await editAs(e, login, file, providerLine(`blocked-${transport}`), 1_500);
      console.log(`      ${waited.ok ? "succeeded" : waited.message}`);
      assert.equal(waited.ok, false, "a live-looking lock is not taken over at once");
      assert.match(waited.message ?? "", new RegExp(`pid ${w.child.pid}\\b`), "the waiting writer names the lock's holder (the killed writer's pid)");

      // The killed writer's complete temp file may stay (no one can tell it is abandoned) or be cleaned up; nothing else.
      await checkConverges(e, login, file, meta, ["config.toml", path.basename(at.temp!)], STALE_MS);
    });
  }
});
