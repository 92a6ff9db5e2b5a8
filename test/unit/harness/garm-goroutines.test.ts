// What the real-GARM launcher reports of a GARM that ran without answering: its own goroutines from Go's SIGQUIT dump.
import { strict as assert } from "node:assert";
import { garmGoroutines } from "../../../harness/real-garm";

const DUMP = [
  "SIGQUIT: quit",
  "PC=0x4741e1 m=0 sigcode=0",
  "",
  "goroutine 1 gp=0xc000002380 m=nil [select]:",
  "github.com/cloudbase/garm/workers/cache.(*Worker).waitForErrorGroupOrContextCancelled(0xc0001a2000, 0xc0003b6000)",
  "\t/root/go/pkg/mod/github.com/cloudbase/garm@v0.2.1/workers/cache/cache.go:211 +0x10b",
  "",
  "goroutine 7 gp=0xc000003dc0 m=nil [select]:",
  "database/sql.(*DB).connectionOpener(0xc0001b4000, {0x1a2b3c0, 0xc0001a6050})",
  "\t/usr/local/go/src/database/sql/sql.go:1253 +0x87",
  "",
  "goroutine 9 gp=0xc000004000 m=nil [semacquire]:",
  "sync.(*Mutex).Lock(...)",
  "github.com/cloudbase/garm/cache.SetInstanceCache({...})",
  "\t/root/go/pkg/mod/github.com/cloudbase/garm@v0.2.1/cache/instance_cache.go:40 +0x55",
].join("\n");

describe("a hung GARM's goroutines", () => {
  it("keeps the goroutines that run GARM's code, drops the runtime's and the dump's header", () => {
    const out = garmGoroutines(DUMP);
    assert.match(out, /^GARM's goroutines \(SIGQUIT\):\ngoroutine 1 /);
    assert.match(out, /waitForErrorGroupOrContextCancelled/);
    assert.match(out, /goroutine 9 .*\n.*\ngithub.com\/cloudbase\/garm\/cache.SetInstanceCache/);
    assert.doesNotMatch(out, /goroutine 7|connectionOpener|PC=0x/);
  });

  it("says nothing for a log without a dump, and caps a long one", () => {
    assert.equal(garmGoroutines("time=... level=DEBUG msg=\"waiting for tools to be available\""), "");
    const long = garmGoroutines(DUMP, 3).split("\n");
    assert.equal(long.length, 4);
    assert.match(long[3]!, /^\.\.\. \d+ more lines$/);
  });
});
