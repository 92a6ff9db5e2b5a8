// GarmTemplate's hold on its GARM id (issue 23 items 1 and 3): a create whose answer was lost is settled instead of
// blamed on someone else, and an id a database restore handed to another template is never rebound.
import { strict as assert } from "node:assert";
import { type Fixture, TEMPLATE_BODY, startFixture, startFixtureGoneAfterLostAnswer, templateDecl } from "../scaleset/fixture";

const BODY = TEMPLATE_BODY;
const OTHER_BODY = Buffer.from("#!/bin/bash\necho someone else\n").toString("base64");
const template = templateDecl;

describe("GarmTemplate and its GARM id", function () {
  this.timeout(60_000);
  let fx: Fixture;
  afterEach(async () => fx?.close());
  const own = () => fx.sim.templates().filter((t) => t.owner !== undefined);

  describe("a create whose answer is lost", () => {
    it("keeps the template GARM made, so the next up does not blame the name on someone else", async () => {
      fx = await startFixture();
      fx.sim.loseNextResponse("POST", /\/templates$/);
      const up = await fx.engine.up([template("tpl")]);
      assert.ok(up.ok, JSON.stringify(up.errors));
      assert.equal(own().length, 1);
      assert.equal(fx.engine.state().resources.find((r) => r.name === "tpl")?.id, String(own()[0]?.id));
      assert.ok(up.logs.some((l) => /answer to the create was lost, but GARM has it/.test(l)), up.logs.join("\n"));
      const again = await fx.engine.up([template("tpl")]);
      assert.ok(again.ok, JSON.stringify(again.errors));
      assert.deepEqual(again.same, ["tpl"]);
    });

    it("records it as unconfirmed when GARM cannot be asked, and the next up binds it; destroy deletes it", async () => {
      fx = await startFixtureGoneAfterLostAnswer();
      fx.sim.loseNextResponse("POST", /\/templates$/);
      const first = await fx.engine.up([template("tpl")]);
      assert.equal(first.ok, false);
      assert.match(String(first.errors.tpl), /may or may not have created it/);
      await fx.sim.resumeServing();
      assert.equal(own().length, 1, "GARM carried out the create");

      const second = await fx.engine.up([template("tpl")]);
      assert.ok(second.ok, JSON.stringify(second.errors));
      assert.equal(own().length, 1, "no second template, no name clash");
      const state = fx.engine.state().resources.find((r) => r.name === "tpl");
      assert.equal(state?.outputs.templateId, own()[0]?.id);
      const refresh = await fx.engine.refresh();
      assert.ok(refresh.ok, JSON.stringify(refresh.errors));
      assert.equal(fx.engine.state().resources[0]?.id, String(own()[0]?.id));
      const destroy = await fx.engine.destroy();
      assert.ok(destroy.ok, JSON.stringify(destroy.errors));
      assert.deepEqual(own(), []);
    });
  });

  describe("renamed in GARM behind Pulumi's back (issue 34 item 8)", () => {
    it("stays this stack's: refresh shows the name as drift and up renames it back, with no second template", async () => {
      fx = await startFixture();
      assert.ok((await fx.engine.up([template("tpl")])).ok);
      const ours = own()[0]!;
      await fx.garm().updateTemplate(ours.id, { name: "renamed-by-hand" });
      const refresh = await fx.engine.refresh();
      assert.ok(refresh.ok, JSON.stringify(refresh.errors));
      const kept = fx.engine.state().resources.find((r) => r.name === "tpl");
      assert.equal(kept?.id, String(ours.id), "still in the stack");
      assert.equal(kept?.outputs.name, "renamed-by-hand", "the name GARM holds, which the program's differs from");
      const up = await fx.engine.up([template("tpl")]);
      assert.ok(up.ok, JSON.stringify(up.errors));
      assert.deepEqual(up.updated, ["tpl"]);
      assert.deepEqual(own().map((t) => [t.id, t.name]), [[ours.id, "ci-linux"]], "renamed back, and no second template");
      const again = await fx.engine.up([template("tpl")]);
      assert.deepEqual(again.same, ["tpl"]);
    });
  });

  describe("an id a database restore gave to another template", () => {
    /** This stack's template is made after a backup; the restore forgets it, and the next template made gets its id. */
    async function reusedBySomeoneElse() {
      fx = await startFixture();
      const backup = fx.sim.snapshotDatabase();
      const up = await fx.engine.up([template("tpl")]);
      assert.ok(up.ok, JSON.stringify(up.errors));
      const ours = own()[0]!;
      fx.sim.restoreDatabase(backup);
      const theirs = await fx.garm().createTemplate({ name: "team-b", description: "theirs", os_type: "linux", forge_type: "github", data: OTHER_BODY });
      assert.equal(theirs.id, ours.id, "the other template took the id");
      fx.sim.clearRequests();
      return theirs;
    }
    const touched = (id: number) => fx.sim.requests().filter((r) => r.method !== "GET" && r.path === `/api/v1/templates/${id}`);
    const held = (id: number) => own().find((t) => t.id === id);

    it("refresh drops this one instead of binding to the other template", async () => {
      const theirs = await reusedBySomeoneElse();
      const refresh = await fx.engine.refresh();
      assert.ok(refresh.ok, JSON.stringify(refresh.errors));
      assert.equal(fx.engine.state().resources.find((r) => r.name === "tpl"), undefined, "dropped from state");
      assert.ok(fx.engine.logs.some((l) => new RegExp(`GARM id ${theirs.id} now holds template team-b`).test(l)), fx.engine.logs.join("\n"));
      assert.equal(held(theirs.id)?.name, "team-b");
    });

    it("up refuses to rename and rewrite the other template", async () => {
      const theirs = await reusedBySomeoneElse();
      const up = await fx.engine.up([template("tpl", { body: `${BODY}echo v2\n` })]);
      assert.equal(up.ok, false);
      assert.match(String(up.errors.tpl), new RegExp(`GARM id ${theirs.id} now holds template team-b.*nothing was changed.*pulumi refresh`));
      assert.deepEqual(touched(theirs.id), []);
      assert.equal(held(theirs.id)?.name, "team-b");
      assert.equal(held(theirs.id)?.data, OTHER_BODY);
    });

    it("destroy leaves the other template alone", async () => {
      const theirs = await reusedBySomeoneElse();
      const destroy = await fx.engine.destroy();
      assert.ok(destroy.ok, JSON.stringify(destroy.errors));
      assert.deepEqual(touched(theirs.id), []);
      assert.equal(held(theirs.id)?.name, "team-b");
      assert.ok(fx.engine.logs.some((l) => /now holds template team-b.*leaving that one alone/.test(l)), fx.engine.logs.join("\n"));
    });
  });
});
