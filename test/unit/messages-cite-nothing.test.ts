// Issue 13 item 1: a message says what to do, not where the code's notes are, so no string the provider can print cites them. Citations live in
// comments and test names. This walks every string and template literal of provider/ and sdk/ with the TypeScript
// parser, so comments are skipped and a citation hidden in a template's middle part is still found.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "../../..");
const CITATION = /garm-(?:api|behaviour)\.md|pulumi-(?:dynamic-providers|behaviour)\.md|§\s*\d/;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "generated" ? [] : sourceFiles(full);
      return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [full] : [];
    }),
  );
  return nested.flat();
}

/** Literal texts in `file` that cite a reference document, with their line numbers. */
export function citingLiterals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (CITATION.test(node.text)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${path.relative(ROOT, file)}:${line}: ${node.text.slice(0, 80)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("user-facing text (issue 13 item 1)", () => {
  it("finds a citation in a template literal, and ignores one in a comment", () => {
    const sample = "// see garm-behaviour.md §9.3\nconst a = `x ${1} (garm-behaviour.md §9.3) y`;\nconst b = 'plain';\n";
    assert.equal(citingLiterals("/tmp/sample.ts", sample).length, 1);
  });

  it("no string in provider/ or sdk/ cites garm-behaviour.md or a § section", async () => {
    const files = [...(await sourceFiles(path.join(ROOT, "provider"))), ...(await sourceFiles(path.join(ROOT, "sdk")))];
    assert.ok(files.length > 10, `found the sources under ${ROOT}`);
    const hits = (await Promise.all(files.map(async (f) => citingLiterals(f, await fs.readFile(f, "utf8"))))).flat();
    assert.deepEqual(hits, []);
  });
});
