import * as assert from "node:assert/strict";
import * as toml from "smol-toml";
import {
  ManagedBlockError,
  findBlocks,
  readBlock,
  removeBlock,
  renderBlock,
  upsertBlock,
  withoutManagedBlocks,
} from "../../../provider/kinds/garm-provider/managed-block";
import { HAND_WRITTEN, spec } from "./helpers";

type Doc = { provider: Array<Record<string, any>>; database?: unknown; logging?: unknown };

describe("garm-provider managed block", () => {
  it("appends a new block at the end and keeps every other byte", () => {
    const out = upsertBlock(HAND_WRITTEN, spec("openstack"));
    assert.ok(out.startsWith(HAND_WRITTEN));
    const added = out.slice(HAND_WRITTEN.length);
    assert.ok(added.startsWith('# BEGIN pulumi-garm provider "openstack"\n'));
    assert.ok(added.endsWith('# END pulumi-garm provider "openstack"\n'));
    const doc = toml.parse(out) as unknown as Doc;
    // The new [[provider]] is its own array entry; the preceding [database.sqlite3] table is unchanged.
    assert.deepEqual(doc.provider.map((p) => p.name), ["lxd_local", "openstack"]);
    assert.deepEqual({ ...doc.provider[1].external }, {
      provider_executable: "/usr/local/bin/garm-provider-openstack",
      config_file: "/etc/garm/openstack.toml",
      environment_variables: ["PATH", "OS_"],
      interface_version: "v0.1.0",
    });
    assert.deepEqual(JSON.parse(JSON.stringify(doc.database)), { backend: "sqlite3", sqlite3: { db_file: "/var/lib/garm/garm.db" } });
  });

  it("adds a newline before the block when the file does not end with one", () => {
    const text = 'a = 1  # no newline';
    const out = upsertBlock(text, spec("x"));
    assert.ok(out.startsWith(`${text}\n# BEGIN`));
    assert.equal((toml.parse(out) as any).a, 1);
  });

  it("writes into an empty file", () => {
    const out = upsertBlock("", spec("x"));
    assert.equal(out, renderBlock(spec("x")));
  });

  it("keeps CRLF line endings of a CRLF file", () => {
    const crlf = HAND_WRITTEN.replace(/\n/g, "\r\n");
    const out = upsertBlock(crlf, spec("x"));
    assert.ok(out.startsWith(crlf));
    assert.ok(!/[^\r]\n/.test(out), "every newline is CRLF");
    assert.deepEqual(readBlock(out, "x"), spec("x"));
  });

  it("replaces an existing block in place, leaving text before and after it untouched", () => {
    const withTwo = upsertBlock(upsertBlock(HAND_WRITTEN, spec("a")), spec("b")) + "# trailing comment\n";
    const changed = upsertBlock(withTwo, spec("a", { description: "new text", environmentVariables: [] }));
    const a = findBlocks(withTwo).find((b) => b.name === "a")!;
    const a2 = findBlocks(changed).find((b) => b.name === "a")!;
    assert.equal(changed.slice(0, a2.start), withTwo.slice(0, a.start));
    assert.equal(changed.slice(a2.end), withTwo.slice(a.end));
    assert.deepEqual(readBlock(changed, "a"), spec("a", { description: "new text", environmentVariables: [] }));
    assert.deepEqual(readBlock(changed, "b"), spec("b"));
  });

  it("removes exactly the block it added (insert then remove is the identity)", () => {
    const once = upsertBlock(HAND_WRITTEN, spec("a"));
    const twice = upsertBlock(once, spec("b"));
    assert.equal(removeBlock(removeBlock(twice, "a"), "b"), HAND_WRITTEN);
    assert.equal(removeBlock(twice, "b"), once);
    assert.equal(removeBlock(HAND_WRITTEN, "absent"), HAND_WRITTEN);
  });

  describe("a file without a final newline keeps its bytes through insert and remove", () => {
    const lf = HAND_WRITTEN.replace(/\n$/, "");
    const crlf = HAND_WRITTEN.replace(/\n/g, "\r\n").replace(/\r\n$/, "");

    for (const [what, original] of [
      ["LF", lf],
      ["CRLF", crlf],
      ["ending in a lone CR", "a = 1\r"],
      ["a single line", "a = 1  # no newline"],
    ] as const) {
      it(`${what}: upsert then remove is the identity`, () => {
        const out = upsertBlock(original, spec("x"));
        assert.deepEqual(readBlock(out, "x"), spec("x"));
        assert.equal(removeBlock(out, "x"), original);
      });
    }

    it("two blocks appended, removed in either order, give the original", () => {
      for (const original of [lf, crlf]) {
        const two = upsertBlock(upsertBlock(original, spec("a")), spec("b"));
        assert.equal(removeBlock(removeBlock(two, "a"), "b"), original);
        assert.equal(removeBlock(removeBlock(two, "b"), "a"), original);
        assert.equal(withoutManagedBlocks(two), original);
      }
    });

    it("a block at the end rewritten in place is still removed to the original", () => {
      for (const original of [lf, crlf]) {
        const changed = upsertBlock(upsertBlock(original, spec("a")), spec("a", { description: "changed" }));
        assert.equal(readBlock(changed, "a")?.description, "changed");
        assert.equal(removeBlock(changed, "a"), original);
      }
    });

    it("the line ending is kept with a CRLF file and nothing else is added", () => {
      const out = upsertBlock(crlf, spec("x"));
      assert.ok(out.startsWith(`${crlf}\r\n# BEGIN`));
      assert.ok(!/[^\r]\n/.test(out), "every newline is CRLF");
    });
  });

  it("escapes strings so that the TOML parser reads them back exactly", () => {
    const nasty = spec("esc", {
      description: 'quote " backslash \\ newline \n tab \t unicode é ✓ control \u0001 """ \'\'\'',
      executable: "/opt/dir with space/bin\\x",
      environmentVariables: ['A"B', "C\\D"],
    });
    const out = upsertBlock(HAND_WRITTEN, nasty);
    assert.deepEqual(readBlock(out, "esc"), nasty);
    const doc = toml.parse(out) as unknown as Doc;
    assert.equal(doc.provider[1].description, nasty.description);
  });

  it("leaves config_file out when none is given", () => {
    const { configFile: _c, ...noConfig } = spec("n");
    const out = renderBlock(noConfig);
    assert.ok(!out.includes("config_file"));
    assert.deepEqual(readBlock(out, "n"), noConfig);
  });

  it("cuts all managed blocks for the hand-written view", () => {
    const out = upsertBlock(upsertBlock(HAND_WRITTEN, spec("a")), spec("b"));
    assert.equal(withoutManagedBlocks(out), HAND_WRITTEN);
  });

  it("refuses malformed markers", () => {
    const block = renderBlock(spec("a"));
    assert.throws(() => findBlocks(block.replace(/# END.*\n/, "")), ManagedBlockError);
    assert.throws(() => findBlocks('# END pulumi-garm provider "a"\n'), /no BEGIN/);
    assert.throws(() => findBlocks(block.replace('END pulumi-garm provider "a"', 'END pulumi-garm provider "b"')), /names provider "b"/);
    assert.throws(() => findBlocks(block + block), /two managed blocks/);
    assert.throws(() => findBlocks(block.replace("[[provider]]", '# BEGIN pulumi-garm provider "b"')), /inside the managed block/);
  });

  it("reports a block edited into something else", () => {
    const broken = renderBlock(spec("a")).replace("[[provider]]", "[[provider]]\n[[provider]]");
    assert.throws(() => readBlock(broken, "a"), ManagedBlockError);
  });
});
