// Smoke test: a trivial dynamic resource through the whole harness against an HTTP service on 127.0.0.1, with
// stack config, secret config, and one provider process per operation (pulumi-behaviour.md §2.1, pulumi-behaviour.md §6.3).
import { strict as assert } from "node:assert";
import { ref } from "../../../harness/engine";
import { widgetFixture, type WidgetFixture } from "../../../harness/engine/widgets/fixture";

describe("engine harness: smoke", function () {
  let fx: WidgetFixture;
  before(async () => {
    fx = await widgetFixture({ token: "s3cret" });
  });
  after(async () => {
    await fx.close();
  });

  it("preview, up, update, refresh, destroy against the HTTP service", async () => {
    const e = fx.engine({ config: { "widgetproj:label": "blue" }, secretConfig: { "widgets:token": "s3cret" } });
    const program = (size: number) => [fx.widget("base", { size }), fx.widget("top", { size: 1, link: ref("base", "widgetId") })];

    assert.equal((await e.preview(program(1))).ok, true);
    const up1 = await e.up(program(1));
    assert.equal(up1.ok, true, JSON.stringify(up1.errors));
    assert.equal(up1.outputs.top.link, up1.outputs.base.widgetId);
    const up2 = await e.up(program(2));
    assert.deepEqual(up2.updated, ["base"]);
    assert.deepEqual(up2.same, ["top"]);
    const rf = await e.refresh();
    assert.equal(rf.ok, true, JSON.stringify(rf.errors));
    const d = await e.destroy();
    assert.deepEqual(d.deleted, ["top", "base"]);
    assert.equal(fx.store.widgets.size, 0);

    // Configure got the project-namespaced key (PULUMI_NODEJS_PROJECT) and the unwrapped secret.
    assert.ok(e.logs.includes("[widgets] configured label=blue token=set"), e.logs.join("\n"));
    // One fresh provider process per operation, each configured once.
    assert.deepEqual(e.processes.map((p) => p.operation), ["preview", "up", "up", "refresh", "destroy"]);
    assert.equal(new Set(e.processes.map((p) => p.pid)).size, 5);
    assert.equal(e.logs.filter((l) => l.startsWith("[widgets] configured")).length, 5);
    assert.ok(e.logs.includes("[widgets] deleted top #2"));
    assert.ok(e.logEntries.every((l) => l.stream === "stdout" || l.stream === "stderr"));
  });
});
