// GARM is asked through one door: the client in provider/garm, whose calls are typed by the served spec and whose
// answers are parsed by views.ts. Kinds call the client's methods; none builds a path or sends a request itself.
import { strict as assert } from "node:assert";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "../../../..");
const GARM = path.join(ROOT, "provider", "garm");

/** The GARM modules only provider/garm may use: the wire, the spec's types, the route tables, the answer parser. */
const INNER = /(^openapi-fetch$)|(\/garm\/(transport|answer|spec|entity-routes|forge-routes)$)/;
/** A literal that starts a path of GARM's API (apiserver/routers/routers.go), e.g. "/scalesets" or `/pools/${id}`. */
const ROUTE = /^\/(auth|controller|controller-info|first-run|metrics-token|providers|jobs|instances|pools|scalesets|templates|organizations|repositories|enterprises|github|gitea)(\/|\?|$)/;

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

/** Imports of GARM internals, reaches for a client's transport and literals that build a GARM path, as `file:line: text`. */
function garmAccess(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    found.push(`${path.relative(ROOT, file)}:${line}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && INNER.test(node.moduleSpecifier.text)) {
      at(node, `imports ${node.moduleSpecifier.text}`);
    } else if (ts.isPropertyAccessExpression(node) && node.name.text === "transport") {
      at(node, `sends through ${node.getText(source).slice(0, 60)}`);
    } else if ((ts.isStringLiteralLike(node) || ts.isTemplateHead(node)) && ROUTE.test(node.text)) {
      at(node, `builds the path ${node.getText(source).slice(0, 60)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("GARM access", function () {
  // Parsing every provider source takes a few seconds on a busy machine.
  this.timeout(30_000);

  it("goes through provider/garm's client only: nothing else imports its wire or builds a GARM path", async () => {
    const files = [...(await sourceFiles(path.join(ROOT, "provider"))), ...(await sourceFiles(path.join(ROOT, "provider-plugin")))];
    const outside = files.filter((f) => !f.startsWith(GARM + path.sep));
    const found = (await Promise.all(outside.map(async (f) => garmAccess(f, await fs.readFile(f, "utf8"))))).flat();
    assert.deepEqual(found, []);
  });

  it("sends requests from client.ts only and parses answers with the views of views.ts only", async () => {
    const found: string[] = [];
    for (const file of await sourceFiles(GARM)) {
      const name = path.basename(file);
      const text = await fs.readFile(file, "utf8");
      if (name !== "client.ts" && name !== "answer.ts" && /\b(parsedAnswer|emptyAnswer)\(/.test(text)) found.push(`${name} parses answers`);
      if (name !== "views.ts" && /\bz\.(object|array)\(/.test(text)) found.push(`${name} defines an answer schema`);
    }
    assert.deepEqual(found, []);
  });

  it("would see a kind that builds a path", () => {
    const kind = 'import { parsedAnswer } from "../../garm/answer";\nsend(client().transport, `/pools/${id}`);\nget("/controller");';
    const found = garmAccess("kinds/x/api.ts", kind).map((f) => f.replace(/^.*?:/, ""));
    assert.deepEqual(found, ["1: imports ../../garm/answer", "2: sends through client().transport", "2: builds the path `/pools/${", '3: builds the path "/controller"']);
  });
});
