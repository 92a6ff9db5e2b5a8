// GarmTemplate scenarios through the engine harness against the GARM simulator (issue 16).
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { templateMethodsWith } from "../../../provider/kinds/template/resource";
import { ref } from "../../../harness/engine";
import { type Fixture, TEMPLATE_BODY, mutatingCalls, startFixture, templateDecl } from "../scaleset/fixture";

const BODY = TEMPLATE_BODY;
const template = templateDecl;

const decoded = (data: string | undefined) => Buffer.from(data ?? "", "base64").toString("utf8");

describe("GarmTemplate against the GARM simulator", function () {
  this.timeout(60_000);
  let fx: Fixture;
  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(async () => fx?.close());
  const own = () => fx.sim.templates().filter((t) => t.owner !== undefined);

  it("refuses a rename onto a name another template holds at preview, and words GARM's 500 when the clash comes later", async () => {
    assert.ok((await fx.engine.up([template("tpl")])).ok);
    const other = await fx.garm().createTemplate({ name: "taken", description: "", os_type: "linux", forge_type: "github", data: Buffer.from("x").toString("base64") });
    fx.sim.clearRequests();
    const preview = await fx.engine.preview([template("tpl", { name: "taken" })]);
    assert.equal(preview.ok, false);
    const reason = (preview.checkFailures.tpl ?? []).find((f) => f.property === "name")?.reason ?? "";
    assert.match(reason, new RegExp(`name "taken" is taken: GARM already has a template named "taken" \\(id ${other.id}\\)`));
    assert.deepEqual(mutatingCalls(fx.sim), []);
    const stored = fx.engine.state().resources.find((r) => r.name === "tpl")!;
    const methods = templateMethodsWith({ client: () => fx.garm(), log: { info() {}, warn() {} }, readBody: () => BODY });
    await assert.rejects(
      methods.update!(stored.id, stored.outputs, { ...stored.outputs, name: "taken" }),
      new RegExp(`^Error: GarmTemplate ci-linux \\(id \\d+\\): not renamed to "taken": GARM already has a template named "taken" \\(id ${other.id}\\) and refused the rename`),
    );
  });

  it("creates with the body sent as base64, refreshes, and an unchanged up makes no mutating GARM call", async () => {
    const program = [template("tpl", { description: "CI runners" })];
    const up = await fx.engine.up(program);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [held] = own();
    assert.equal(held?.name, "ci-linux");
    assert.equal(decoded(held?.data), BODY);
    assert.equal(held?.osType, "linux");
    assert.equal(held?.forgeType, "github");
    const state = fx.engine.state().resources.find((r) => r.name === "tpl");
    assert.equal(state?.id, String(held?.id));
    assert.equal(state?.outputs.templateId, held?.id);
    assert.equal(state?.outputs.body, BODY);
    assert.equal(state?.outputs.owner, "admin");

    assert.ok((await fx.engine.refresh()).ok);
    fx.sim.clearRequests();
    const again = await fx.engine.up(program);
    assert.ok(again.ok, JSON.stringify(again.errors));
    assert.deepEqual(again.same, ["tpl"]);
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });

  it("reads the body from bodyFile at preview and updates a body change in place with one PUT", async () => {
    const dir = mkdtempSync(join(tmpdir(), "garm-template-"));
    const file = join(dir, "install.sh");
    writeFileSync(file, BODY);
    await fx.engine.up([template("tpl", { body: undefined, bodyFile: file })]);
    const [before] = own();
    writeFileSync(file, `${BODY}echo v2\n`);
    const changed = [template("tpl", { body: undefined, bodyFile: file })];
    const preview = await fx.engine.preview(changed);
    assert.deepEqual(preview.diffs.tpl?.replaces ?? [], []);
    assert.equal(preview.diffs.tpl?.changes, "some");
    fx.sim.clearRequests();
    const up = await fx.engine.up(changed);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const calls = mutatingCalls(fx.sim);
    assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), [`PUT /api/v1/templates/${before?.id}`]);
    const [after] = own();
    assert.equal(after?.id, before?.id);
    assert.equal(decoded(after?.data), `${BODY}echo v2\n`);
    rmSync(dir, { recursive: true, force: true });
  });

  it("replaces on an OS type change, deleting the old template first since the name stays", async () => {
    await fx.engine.up([template("tpl")]);
    const [before] = own();
    const changed = [template("tpl", { osType: "windows" })];
    const preview = await fx.engine.preview(changed);
    assert.deepEqual(preview.diffs.tpl?.replaces, ["osType"]);
    assert.equal(preview.diffs.tpl?.deleteBeforeReplace, true);
    assert.ok(preview.logs.includes(`GarmTemplate ci-linux (id ${before?.id}): will replace: osType (GARM cannot change a template's OS type)`), preview.logs.join("\n"));
    const up = await fx.engine.up(changed);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [after] = own();
    assert.equal(own().length, 1);
    assert.notEqual(after?.id, before?.id);
    assert.equal(after?.osType, "windows");
  });

  it("refresh picks up a body changed out of band, and the next up puts the program's body back", async () => {
    await fx.engine.up([template("tpl")]);
    const [held] = own();
    await fx.garm().updateTemplate(held!.id, { data: Buffer.from("echo hijacked\n").toString("base64") });
    const refresh = await fx.engine.refresh();
    assert.ok(refresh.ok, JSON.stringify(refresh.errors));
    assert.equal(fx.engine.state().resources.find((r) => r.name === "tpl")?.outputs.body, "echo hijacked\n");
    const up = await fx.engine.up([template("tpl")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(decoded(own()[0]?.data), BODY);
  });

  it("refresh drops a template deleted out of band, and the next up creates it again", async () => {
    await fx.engine.up([template("tpl")]);
    const [held] = own();
    await fx.garm().deleteTemplate(held!.id);
    assert.ok((await fx.engine.refresh()).ok);
    assert.equal(fx.engine.state().resources.find((r) => r.name === "tpl"), undefined);
    const up = await fx.engine.up([template("tpl")]);
    assert.ok(up.ok, JSON.stringify(up.errors));
    assert.equal(own().length, 1);
    assert.notEqual(own()[0]?.id, held?.id);
  });

  it("refuses a name already taken unless adoptExisting, adopts it in place, and never adopts a system template", async () => {
    const existing = await fx.garm().createTemplate({ name: "ci-linux", description: "", os_type: "linux", forge_type: "github", data: Buffer.from("old").toString("base64") });
    const refused = await fx.engine.up([template("tpl")]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.tpl), /already has a template named "ci-linux" \(id \d+\); nothing was created\. Set adoptExisting: true/);

    const adopted = await fx.engine.up([template("tpl", { adoptExisting: true })]);
    assert.ok(adopted.ok, JSON.stringify(adopted.errors));
    assert.equal(own().length, 1);
    assert.equal(own()[0]?.id, existing.id);
    assert.equal(decoded(own()[0]?.data), BODY);

    const system = await fx.engine.up([template("sys", { name: "github_linux", adoptExisting: true })]);
    assert.equal(system.ok, false);
    assert.match(String(system.errors.sys), /"github_linux" is a GARM system template, which a stack never manages or deletes/);
    assert.equal(fx.sim.templates().filter((t) => t.name === "github_linux").length, 1);
  });

  it("refuses to delete a template a scale set uses, naming the scale set, and deletes it once the scale set is gone", async () => {
    await fx.engine.up([template("tpl"), fx.scaleSet("small", { templateId: ref("tpl", "templateId") })]);
    const [ss] = fx.sim.scaleSets();
    const [held] = own();
    assert.equal(ss?.templateId, held?.id);

    // The program drops the template but the scale set keeps its id: GARM must not be asked, and nothing is cascaded.
    fx.sim.clearRequests();
    const refused = await fx.engine.up([fx.scaleSet("small", { templateId: held!.id })]);
    assert.equal(refused.ok, false);
    assert.match(String(refused.errors.tpl), new RegExp(`not deleted, because GARM refuses to delete a template still in use; it is used by scale set "${ss!.name}" \\(id ${ss!.id}, organization acme\\)`));
    assert.ok(!fx.sim.requests().some((r) => r.method === "DELETE"), "nothing was deleted");
    assert.equal(own().length, 1);

    // Once the program again says the scale set uses the template, destroy retires the scale set before the template.
    assert.ok((await fx.engine.up([template("tpl"), fx.scaleSet("small", { templateId: ref("tpl", "templateId") })])).ok);
    const destroyed = await fx.engine.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.errors));
    assert.deepEqual(own(), []);
  });

  it("a template switch reaches the scale set in place, and the old template goes only after the scale set left it", async () => {
    await fx.engine.up([template("a"), fx.scaleSet("small", { templateId: ref("a", "templateId") })]);
    const [ss] = fx.sim.scaleSets();
    const switched = [template("b", { name: "ci-linux-v2" }), fx.scaleSet("small", { templateId: ref("b", "templateId") })];
    const preview = await fx.engine.preview(switched);
    assert.deepEqual(preview.diffs.small?.replaces ?? [], []);
    const up = await fx.engine.up(switched);
    assert.ok(up.ok, JSON.stringify(up.errors));
    const [b] = own();
    assert.equal(own().length, 1);
    assert.equal(b?.name, "ci-linux-v2");
    const [now] = fx.sim.scaleSets();
    assert.equal(now?.id, ss?.id);
    assert.equal(now?.templateId, b?.id);
  });

  it("check names the field at preview: both body and bodyFile, an unreadable bodyFile, an empty body, a bad osType", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ bodyFile: "/nonexistent/x.sh" }, /set exactly one of body or bodyFile; both are set/],
      [{ body: undefined, bodyFile: "/nonexistent/x.sh" }, /bodyFile "\/nonexistent\/x\.sh" cannot be read \(ENOENT\)/],
      [{ body: "" }, /the template body is empty/],
      [{ osType: "macos" }, /osType is "macos"; it must be one of "linux", "windows"/],
      [{ name: "" }, /name is required/],
    ];
    for (const [inputs, expected] of cases) {
      const preview = await fx.engine.preview([template("tpl", inputs)]);
      assert.equal(preview.ok, false, JSON.stringify(inputs));
      assert.match((preview.checkFailures.tpl ?? []).map((f) => f.reason).join("\n"), expected);
    }
    assert.deepEqual(mutatingCalls(fx.sim), []);
  });
});
