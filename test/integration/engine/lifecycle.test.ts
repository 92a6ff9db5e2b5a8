// Engine harness: preview, create, update, same, refresh, destroy and state files, replayed against the real
// dynamic-provider server with the trivial "widgets" provider (pulumi-behaviour.md §2.2-2.5).
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ref, UNKNOWN, type Engine, type StepRecord } from "../../../harness/engine";
import { widgetFixture, type WidgetFixture } from "../../../harness/engine/widgets/fixture";
import { widgetProviderV2 } from "../../../harness/engine/widgets/provider";

const rpcs = (e: Engine, operation: string): string[] =>
  e.steps.filter((s: StepRecord) => s.operation === operation).map((s) => `${s.op}:${s.name}`);

describe("engine harness: lifecycle", function () {
  let fx: WidgetFixture;
  beforeEach(async () => {
    fx = await widgetFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it("preview sends only Check (+Diff for existing), with the unknown sentinel for unresolved outputs", async () => {
    const e = fx.engine({ parallel: 1 });
    const program = (size: number) => [fx.widget("a", { size }), fx.widget("b", { size: 1, link: ref("a", "serial"), aid: ref("a", "id") })];

    const p1 = await e.preview(program(1));
    assert.equal(p1.ok, true);
    assert.deepEqual(p1.created, ["a", "b"]);
    assert.deepEqual(rpcs(e, "preview"), ["check:a", "check:b"]);
    const checkB = e.steps.find((s) => s.operation === "preview" && s.op === "check" && s.name === "b")!;
    assert.equal((checkB.request.news as Record<string, unknown>).link, UNKNOWN);
    assert.equal((checkB.request.news as Record<string, unknown>).aid, UNKNOWN);
    // The sentinel reached the provider code itself.
    assert.ok(p1.logs.some((l) => l.startsWith("[widgets] check b") && l.includes(UNKNOWN)), p1.logs.join("\n"));
    assert.equal(fx.store.events.length, 0, "preview must not touch the service");
    assert.deepEqual(e.state().resources, []);

    await e.up(program(1));
    const before = e.steps.length;
    // a changes (update): its computed output `serial` is unknown in preview, so b's Diff sees the sentinel.
    const p2 = await e.preview(program(2));
    assert.equal(p2.ok, true);
    // b's input is unknown, so its diff reports a change too: the preview shows both as updates.
    assert.deepEqual(p2.updated, ["a", "b"]);
    const previewRpcs = e.steps.slice(before).map((s) => `${s.op}:${s.name}`);
    assert.deepEqual(previewRpcs, ["check:a", "diff:a", "check:b", "diff:b"]);
    const diffB = e.steps.slice(before).find((s) => s.op === "diff" && s.name === "b")!;
    assert.equal((diffB.request.news as Record<string, unknown>).link, UNKNOWN);
    // `id` survives an update, so it stays known.
    assert.equal((diffB.request.news as Record<string, unknown>).aid, e.state().resources.find((r) => r.name === "a")!.id);
    assert.deepEqual(p2.diffs.b, { changes: "some", replaces: [], deleteBeforeReplace: false });
    assert.ok(!fx.store.events.some((ev) => ev.startsWith("update")), "preview must not update");
  });

  it("up creates with Check -> Create and stores checked inputs and outputs (with __provider)", async () => {
    const e = fx.engine();
    const r = await e.up([fx.widget("a", { size: 3, tag: "x" })]);
    assert.equal(r.ok, true, JSON.stringify(r.errors));
    assert.deepEqual(r.created, ["a"]);
    assert.deepEqual(rpcs(e, "up"), ["check:a", "create:a"]);
    const [st] = e.state().resources;
    assert.equal(st.urn, "urn:pulumi:test::widgetproj::pulumi-nodejs:dynamic/test:Widget::a");
    assert.equal(st.type, "pulumi-nodejs:dynamic/test:Widget");
    assert.equal(st.id, "1");
    assert.equal(typeof st.inputs.__provider, "string");
    assert.equal(st.outputs.__provider, st.inputs.__provider);
    assert.deepEqual(r.outputs.a, { name: "a", size: 3, tag: "x", widgetId: "1", serial: 1 });
    assert.deepEqual(fx.store.events, ["create a#1"]);
  });

  it("update: Diff gets old OUTPUTS and checked inputs; Update's result replaces the outputs", async () => {
    const e = fx.engine();
    await e.up([fx.widget("a", { size: 1 })]);
    const r = await e.up([fx.widget("a", { size: 2 })]);
    assert.equal(r.ok, true);
    assert.deepEqual(r.updated, ["a"]);
    assert.deepEqual(rpcs(e, "up").slice(2), ["check:a", "diff:a", "update:a"]);
    const diff = e.steps.filter((s) => s.op === "diff")[0];
    assert.deepEqual(diff.request.olds, { name: "a", size: 1, widgetId: "1", serial: 1 });
    assert.deepEqual(diff.request.news, { name: "a", size: 2 });
    assert.deepEqual(diff.request.oldInputs, { name: "a", size: 1 });
    assert.deepEqual(e.state().resources[0].outputs.size, 2);
    assert.deepEqual(fx.store.events, ["create a#1", "update a#1"]);
  });

  it("no-op up is a Same step that keeps the OLD outputs (and the old __provider) but stores the new inputs", async () => {
    const e = fx.engine();
    await e.up([fx.widget("a", { size: 1 })]);
    const s1 = e.state().resources[0];
    const r = await e.up([fx.widget("a", { size: 1 }, { provider: widgetProviderV2 })]);
    assert.equal(r.ok, true);
    assert.deepEqual(r.same, ["a"]);
    assert.deepEqual(r.diffs.a.changes, "none");
    assert.ok(!e.steps.some((s) => s.op === "update"));
    const s2 = e.state().resources[0];
    assert.deepEqual(s2.outputs, s1.outputs, "Same keeps the old outputs (pulumi-behaviour.md §2.3)");
    assert.notEqual(s2.inputs.__provider, s1.inputs.__provider, "inputs carry the new provider text");
    assert.equal(s2.outputs.__provider, s1.outputs.__provider, "outputs still carry the old provider text (pulumi-behaviour.md §3.4)");
  });

  it("refresh: Read with stored outputs/inputs updates outputs; an empty id drops the resource", async () => {
    const e = fx.engine();
    await e.up([fx.widget("a", { size: 1 }), fx.widget("b", { size: 1 })]);
    fx.store.widgets.get("1")!.size = 9; // drift on a
    fx.store.widgets.delete("2"); // b deleted out of band
    const r = await e.refresh();
    assert.equal(r.ok, true, JSON.stringify(r.errors));
    assert.deepEqual(r.dropped, ["b"]);
    const reads = e.steps.filter((s) => s.operation === "refresh" && s.op === "read");
    assert.deepEqual(reads.map((s) => s.name).sort(), ["a", "b"]);
    assert.deepEqual(reads.find((s) => s.name === "a")!.request.properties, { name: "a", size: 1, widgetId: "1", serial: 1 });
    assert.deepEqual(reads.find((s) => s.name === "a")!.request.inputs, { name: "a", size: 1 });
    const st = e.state().resources;
    assert.deepEqual(st.map((x) => x.name), ["a"]);
    assert.equal(st[0].outputs.size, 9);
    assert.equal(typeof st[0].outputs.__provider, "string", "the server re-adds __provider after read");
    assert.ok(r.steps.find((s) => s.name === "a")!.changed);
    // The drift shows in the diff the engine computes after Read (pulumi-behaviour.md §2.5).
    assert.equal(r.diffs.a.changes, "some");
  });

  it("destroy deletes in reverse dependency order with the stored outputs", async () => {
    const e = fx.engine();
    await e.up([
      fx.widget("a", { size: 1 }),
      fx.widget("b", { size: 1, link: ref("a", "serial") }),
      fx.widget("c", { size: 1, link: ref("b", "serial") }),
      fx.widget("d", { size: 1 }, { dependsOn: ["a"] }),
    ]);
    const stored = Object.fromEntries(e.state().resources.map((r) => [r.name, r]));
    const r = await e.destroy();
    assert.equal(r.ok, true);
    const order = e.steps.filter((s) => s.operation === "destroy").map((s) => s.name);
    assert.ok(order.indexOf("c") < order.indexOf("b") && order.indexOf("b") < order.indexOf("a"), order.join(","));
    assert.ok(order.indexOf("d") < order.indexOf("a"), order.join(","));
    for (const s of e.steps.filter((x) => x.op === "delete")) {
      const { __provider: _p, ...outs } = stored[s.name].outputs;
      assert.deepEqual(s.request.properties, outs);
      assert.equal(s.id, stored[s.name].id);
    }
    assert.deepEqual(e.state().resources, []);
    assert.equal(fx.store.widgets.size, 0);
  });

  it("saveState/loadState round-trips the checkpoint; another engine can destroy from it", async () => {
    const e = fx.engine();
    await e.up([fx.widget("a", { size: 1 }), fx.widget("b", { size: 2, link: ref("a", "serial") })]);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "engine-state-")), "state.json");
    e.saveState(file);
    const e2 = fx.engine();
    e2.loadState(file);
    assert.deepEqual(e2.state(), e.state());
    assert.deepEqual(e2.state().resources.find((r) => r.name === "b")!.dependencies, ["a"]);
    const r = await e2.up([fx.widget("a", { size: 1 }), fx.widget("b", { size: 2, link: ref("a", "serial") })]);
    assert.deepEqual(r.same.sort(), ["a", "b"]);
    const d = await e2.destroy();
    assert.deepEqual(d.deleted, ["b", "a"]);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
