// The escapers every import-plan writer uses (cli/import-plan/escape.ts), each read back by its own language's parser.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as YAML from "yaml";
import { commentQuote, commentText, jsonText, pyString, shellWord, tsKey, tsString, yamlString } from "../../../cli/import-plan/escape";
import { HOSTILE } from "./hostile-garm";

const CORPUS = [...HOSTILE, "", "plain", "__proto__", "constructor", "a\u000bb\u000cc", "\u2066isolate\u2069", "zero\u200bwidth", "𝕏 \u{1f600}", "x\udc00y"];
/** Line breaks to JavaScript, Python, YAML or a shell, and what no source file should hold raw. */
const BREAKS = /[\n\r\u2028\u2029\u0085\u000b\u000c\u0000]/;

describe("import-plan's escapers", () => {
  it("TypeScript: each literal evaluates back to the string, and holds no raw line break", () => {
    for (const s of CORPUS) {
      const literal = tsString(s);
      assert.ok(!BREAKS.test(literal), literal);
      assert.equal(new Function(`return ${literal};`)(), s, literal);
    }
  });

  it("TypeScript: each key is the property it names, `__proto__` included", () => {
    for (const s of CORPUS) {
      const object = new Function(`return { ${tsKey(s)}: 1 };`)() as object;
      assert.deepEqual(Object.getOwnPropertyNames(object), [s], tsKey(s));
      assert.equal(Object.getPrototypeOf(object), Object.prototype);
    }
  });

  it("Python: each literal parses back to the string", () => {
    const literals = CORPUS.map(pyString);
    for (const l of literals) assert.ok(!BREAKS.test(l), l);
    const source = `[\n${literals.join(",\n")}\n]\n`;
    const parsed = execFileSync("python3", ["-c", "import ast,json,sys; print(json.dumps(ast.literal_eval(sys.stdin.read())))"], { input: source, encoding: "utf8" });
    assert.deepEqual(JSON.parse(parsed), CORPUS);
  });

  it("JSON and YAML: the same text reads back as the same strings through both parsers", () => {
    const text = jsonText({ names: CORPUS, keyed: Object.fromEntries(CORPUS.map((s) => [s, s])) });
    assert.ok(!/[\u2028\u2029\u0085\u007f\ufeff]/.test(text));
    assert.deepEqual(JSON.parse(text).names, CORPUS);
    assert.deepEqual(YAML.parse(text).names, CORPUS);
    for (const s of CORPUS) {
      assert.equal(YAML.parse(`key: ${yamlString(s)}\n`).key, s, yamlString(s));
    }
  });

  it("shell: each word is one argument equal to the string; NUL, which no argument can hold, throws", () => {
    const words = CORPUS.filter((s) => !s.includes("\u0000") && !/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, "")));
    const script = `printf '%s\\0' ${words.map(shellWord).join(" ")}`;
    execFileSync("bash", ["-n", "-c", script]);
    const out = execFileSync("bash", ["-c", script], { encoding: "utf8" });
    assert.deepEqual(out.split("\u0000").slice(0, -1), words);
    assert.equal(shellWord("garm:credentials-acme-pat-token"), "garm:credentials-acme-pat-token");
    assert.equal(shellWord("systemctl restart garm"), "'systemctl restart garm'");
    assert.throws(() => shellWord("a\u0000b"), /NUL/);
  });

  it("comments: one line in every language, a quoted name parsing back with JSON.parse", () => {
    for (const s of CORPUS) {
      for (const comment of [commentQuote(s), commentText(s)]) assert.ok(!BREAKS.test(comment) && !/[\u202a-\u202e\u2066-\u2069]/.test(comment), comment);
      assert.equal(JSON.parse(commentQuote(s)), s);
    }
    const quoted = CORPUS.map((s) => `${commentQuote(s)} ${commentText(s)}`);
    assert.equal(new Function(`let ran = 0;\n${quoted.map((c) => `// ${c}`).join("\n")}\nreturn ran;`)(), 0);
    execFileSync("python3", ["-c", "import ast,sys; tree = ast.parse(sys.stdin.read()); assert len(tree.body) == 1, ast.dump(tree)"], { input: `ran = 0\n${quoted.map((c) => `# ${c}`).join("\n")}\n`, encoding: "utf8" });
    const out = execFileSync("bash", ["-c", `${quoted.map((c) => `# ${c}`).join("\n")}\necho done`], { encoding: "utf8" });
    assert.equal(out, "done\n");
  });
});
