// Engine harness: replacement orderings, pending deletes and removed resources (pulumi-behaviour.md §2.3).
import { strict as assert } from "node:assert";
import { ref } from "../../../harness/engine";
import { widgetFixture, type WidgetFixture } from "../../../harness/engine/widgets/fixture";

describe("engine harness: replacement and deletes", function () {
  let fx: WidgetFixture;
  beforeEach(async () => {
    fx = await widgetFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it("create-before-delete: the new one is created first, the old one deleted at the end of the run", async () => {
    const e = fx.engine({ parallel: 1 });
    await e.up([fx.widget("a", { size: 1 }), fx.widget("b", { size: 1, link: ref("a", "serial") }), fx.widget("c", { size: 1 })]);
    fx.store.events.length = 0;
    const r = await e.up([
      fx.widget("a", { name: "a-renamed", size: 1 }),
      fx.widget("b", { size: 1, link: ref("a", "serial") }),
      fx.widget("c", { size: 2 }),
    ]);
    assert.equal(r.ok, true, JSON.stringify(r.errors));
    assert.deepEqual(r.replaced, ["a"]);
    assert.deepEqual(r.diffs.a, { changes: "some", replaces: ["name"], deleteBeforeReplace: false });
    assert.deepEqual(r.updated.sort(), ["b", "c"]);
    assert.deepEqual(r.deleted, ["a"]);
    assert.equal(r.steps.find((s) => s.op === "delete")!.replaced, true);
    // Service view: new a created, b and c updated, and only then the old a deleted.
    assert.deepEqual(fx.store.events.slice(0, 1), ["create a-renamed#4"]);
    assert.equal(fx.store.events[fx.store.events.length - 1], "delete a#1");
    assert.deepEqual(fx.store.events.slice(1, 3).sort(), ["update b#2", "update c#3"]);
    // RPC view: the delete is the last RPC of the run and uses the OLD outputs.
    const upRpcs = e.steps.filter((s) => s.operation === "up").slice(-7);
    assert.equal(upRpcs[upRpcs.length - 1].op, "delete");
    assert.equal(upRpcs[upRpcs.length - 1].id, "1");
    assert.deepEqual(upRpcs[upRpcs.length - 1].request.properties, { name: "a", size: 1, widgetId: "1", serial: 1 });
    // b was re-pointed at the new a.
    assert.equal(r.outputs.b.link, 4);
    assert.deepEqual(e.state().resources.map((x) => `${x.name}#${x.id}`).sort(), ["a#4", "b#2", "c#3"]);
  });

  it("deleteBeforeReplace from the Diff result: Delete(old) then Create(new)", async () => {
    const e = fx.engine({ parallel: 1 });
    await e.up([fx.widget("a", { size: 1, dbr: true })]);
    const r = await e.up([fx.widget("a", { name: "a2", size: 1, dbr: true })]);
    assert.equal(r.ok, true, JSON.stringify(r.errors));
    assert.equal(r.diffs.a.deleteBeforeReplace, true);
    assert.deepEqual(r.steps.map((s) => `${s.op}:${s.name}:${s.deleteBeforeReplace}`), ["delete:a:true", "replace:a:true"]);
    assert.deepEqual(fx.store.events, ["create a#1", "delete a#1", "create a2#2"]);
    assert.deepEqual(e.steps.filter((s) => s.operation === "up").slice(-4).map((s) => s.op), ["check", "diff", "delete", "create"]);
  });

  it("the deleteBeforeReplace resource option overrides the Diff result both ways", async () => {
    const e = fx.engine({ parallel: 1 });
    await e.up([fx.widget("a", { size: 1 }), fx.widget("b", { size: 1, dbr: true })]);
    fx.store.events.length = 0;
    const r = await e.up([
      fx.widget("a", { name: "a2", size: 1 }, { deleteBeforeReplace: true }),
      fx.widget("b", { name: "b2", size: 1, dbr: true }, { deleteBeforeReplace: false }),
    ]);
    assert.equal(r.ok, true, JSON.stringify(r.errors));
    const ev = fx.store.events;
    assert.ok(ev.indexOf("delete a#1") < ev.indexOf("create a2#3"), ev.join(","));
    assert.ok(ev.indexOf("create b2#4") < ev.indexOf("delete b#2") || ev.indexOf("create b2#3") < ev.indexOf("delete b#2"), ev.join(","));
    assert.equal(ev[ev.length - 1], "delete b#2", "create-before-delete deletes at the end");
  });

  it("a failed Delete keeps the old resource as pending delete; the next up retries it at the end", async () => {
    const e = fx.engine({ parallel: 1 });
    await e.up([fx.widget("a", { size: 1 })]);
    fx.store.failDeletes.set("a", 1);
    const program = [fx.widget("a", { name: "a2", size: 1 }), fx.widget("z", { size: 1 })];
    const r1 = await e.up(program);
    assert.equal(r1.ok, false);
    assert.match(r1.errors.a, /HTTP 500/);
    assert.deepEqual(r1.replaced, ["a"]);
    const st = e.state().resources;
    assert.deepEqual(st.filter((x) => x.name === "a").map((x) => [x.id, x.pendingDelete]).sort(), [["1", true], ["2", false]]);
    assert.equal(fx.store.widgets.has("1"), true);

    const before = e.steps.length;
    const r2 = await e.up(program);
    assert.equal(r2.ok, true, JSON.stringify(r2.errors));
    assert.deepEqual(r2.same.sort(), ["a", "z"]);
    assert.deepEqual(r2.deleted, ["a"]);
    assert.equal(r2.steps.find((s) => s.op === "delete")!.replaced, true);
    const rpcs = e.steps.slice(before);
    assert.equal(rpcs[rpcs.length - 1].op, "delete", "the retry happens after everything else");
    assert.equal(rpcs[rpcs.length - 1].id, "1");
    assert.deepEqual(rpcs[rpcs.length - 1].request.properties, { name: "a", size: 1, widgetId: "1", serial: 1 });
    assert.deepEqual(e.state().resources.map((x) => `${x.name}#${x.id}:${x.pendingDelete}`).sort(), ["a#2:false", "z#3:false"]);
    assert.equal(fx.store.widgets.has("1"), false);
  });

  it("resources removed from the program are deleted at the end of up, in reverse dependency order", async () => {
    const e = fx.engine({ parallel: 1 });
    await e.up([fx.widget("a", { size: 1 }), fx.widget("b", { size: 1, link: ref("a", "serial") }), fx.widget("k", { size: 1 })]);
    fx.store.events.length = 0;
    const r = await e.up([fx.widget("k", { size: 2 })]);
    assert.equal(r.ok, true);
    assert.deepEqual(r.deleted, ["b", "a"]);
    assert.deepEqual(fx.store.events, ["update k#3", "delete b#2", "delete a#1"]);
  });

  it("a failed destroy Delete keeps the resource and blocks its dependencies; the next destroy retries", async () => {
    const e = fx.engine({ parallel: 1 });
    await e.up([fx.widget("a", { size: 1 }), fx.widget("b", { size: 1, link: ref("a", "serial") })]);
    fx.store.failDeletes.set("b", 1);
    const d1 = await e.destroy();
    assert.equal(d1.ok, false);
    // b failed, so a (which b depends on) must not be deleted.
    assert.equal(d1.steps.find((s) => s.name === "a")!.skipped, true);
    assert.deepEqual(e.state().resources.map((x) => x.name).sort(), ["a", "b"]);
    const d2 = await e.destroy();
    assert.equal(d2.ok, true);
    assert.deepEqual(d2.deleted, ["b", "a"]);
    assert.deepEqual(e.state().resources, []);
  });

  it("destroy also deletes a pending-delete leftover, with its own stored outputs", async () => {
    const e = fx.engine({ parallel: 1 });
    await e.up([fx.widget("a", { size: 1 })]);
    fx.store.failDeletes.set("a", 1);
    await e.up([fx.widget("a", { name: "a2", size: 1 })]);
    assert.equal(e.state().resources.filter((x) => x.pendingDelete).length, 1);
    const d = await e.destroy();
    assert.equal(d.ok, true, JSON.stringify(d.errors));
    const dels = e.steps.filter((s) => s.operation === "destroy" && s.op === "delete");
    assert.deepEqual(dels.map((s) => s.id).sort(), ["1", "2"]);
    assert.deepEqual(dels.find((s) => s.id === "1")!.request.properties, { name: "a", size: 1, widgetId: "1", serial: 1 });
    assert.deepEqual(e.state().resources, []);
    assert.equal(fx.store.widgets.size, 0);
  });
});
