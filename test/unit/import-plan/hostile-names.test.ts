// import-plan's writers given names GARM holds that are hostile as code (issue 34 item 5): every program, command line
// and file it writes parses in its own language, runs nothing but its declarations, and gives each name back exactly.
import { strict as assert } from "node:assert";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vm from "node:vm";
import * as ts from "typescript";
import * as YAML from "yaml";
import * as command from "../../../cli/import-plan/command";
import type { Plan } from "../../../cli/import-plan/plan";
import { configCommandsFor } from "../../../cli/import-plan/secrets";
import { typescriptProgram } from "../../../cli/import-plan/typescript";
import { pythonProgram } from "../../../cli/import-plan/python";
import { HOSTILE, hostilePlan } from "./hostile-garm";

/** Every string in `value`, map keys included. */
function stringsIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, into);
  else if (value !== null && typeof value === "object") {
    for (const k of Object.getOwnPropertyNames(value)) {
      into.push(k);
      stringsIn((value as Record<string, unknown>)[k], into);
    }
  }
  return into;
}

/** The JSON string literals a comment quotes, parsed back (from its start, where each is written whole). */
function quotedIn(comment: string): string[] {
  return [...comment.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => JSON.parse(m[0]) as string);
}

/** The import id a program's comment line quotes, parsed back. */
function commentedId(line: string): string | undefined {
  const quoted = /\(import id ("(?:[^"\\]|\\.)*")\)/.exec(line);
  return quoted ? (JSON.parse(quoted[1]) as string) : undefined;
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "import-plan-hostile-"));

describe("import-plan with hostile names in GARM", function () {
  this.timeout(60_000);
  let dir = "";
  before(() => {
    dir = tmp();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the TypeScript program compiles and passes node --check, runs only its declarations, and gives every name back", async () => {
    const { plan, inputs } = await hostilePlan("/etc/garm/config.toml");
    const code = typescriptProgram(plan, inputs, `https://garm.example/${HOSTILE[5]}`);
    const out = ts.transpileModule(code, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
    assert.deepEqual(out.diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")), []);
    const js = path.join(dir, "index.js");
    fs.writeFileSync(js, out.outputText);
    execFileSync(process.execPath, ["--check", js]);
    for (const ch of ["\r", "\u2028", "\u2029", "\u0000"]) assert.ok(!code.includes(ch), `no raw U+${ch.charCodeAt(0).toString(16)} in the program`);

    const declared: { name: string; args: unknown; opts: unknown }[] = [];
    const output = (name: string) => new Proxy({}, { get: (_t, p) => (typeof p === "string" ? `<${name}.${p}>` : undefined) });
    const garm = new Proxy({}, { get: (_t, cls) => function (this: unknown, name: string, args: unknown, opts: unknown) { declared.push({ name, args, opts }); return output(name); } });
    const pulumi = { Config: class { requireSecret = (k: string) => `<config ${k}>`; requireNumber = (k: string) => `<config ${k}>`; } };
    const sandbox: Record<string, unknown> = { exports: {}, require: (m: string) => ({ "pulumi-garm": garm, "@pulumi/pulumi": pulumi })[m] };
    vm.runInNewContext(out.outputText, sandbox);
    assert.equal(sandbox.pwned, undefined, "no name ran as code");
    assert.deepEqual(declared.map((d) => d.name), plan.entries.filter((e, i) => typeof inputs[i] === "object").map((e) => e.spec.name));

    const given = new Set(stringsIn(declared));
    for (const { object, spec } of plan.entries) {
      if ("name" in object.view && plan.file.resources.includes(spec) && typeof inputs[plan.entries.findIndex((e) => e.spec === spec)] === "object") {
        assert.ok(given.has(object.view.name), `${JSON.stringify(object.view.name)} comes back from the program`);
        assert.ok(given.has(spec.id), `import id ${JSON.stringify(spec.id)} comes back from the program`);
      }
    }
    for (const h of HOSTILE) assert.ok(given.has(h), `${JSON.stringify(h)} comes back as a value and a map key`);
    const org = declared.find((d) => d.name.startsWith("org-"))!;
    assert.ok(Object.prototype.hasOwnProperty.call((org.args as { extraSpecs: object }).extraSpecs, "__proto__"), "a `__proto__` key stays a key");

    // Each comment is one line, and what it quotes parses back to the object's import id, or its name.
    const commented = plan.entries.filter((e, i) => typeof inputs[i] !== "object");
    assert.ok(commented.length > 1);
    const lines = code.split("\n");
    for (const { spec } of commented) {
      const line = lines.find((l) => l.startsWith(`// `) && l.includes(JSON.stringify(spec.name)));
      assert.ok(line, `${spec.name} has its comment line`);
      assert.equal(commentedId(line), spec.id, `${line} quotes the import id`);
    }
  });

  it("the Python program parses, runs only its declarations, and gives every name back", async () => {
    const { plan, inputs } = await hostilePlan();
    const code = pythonProgram(plan, inputs, `https://garm.example/${HOSTILE[5]}`);
    const file = path.join(dir, "__main__.py");
    fs.writeFileSync(file, code);
    execFileSync("python3", ["-c", "import ast,sys; ast.parse(open(sys.argv[1], encoding='utf-8').read())", file]);
    const runner = `
import json, sys, types
declared = []
class Out:
    def __init__(self, name): self._name = name
    def __getattr__(self, attr): return "<%s.%s>" % (self._name, attr)
class Garm(types.ModuleType):
    def __getattr__(self, cls):
        def make(*args, **kwargs):
            declared.append({"name": args[0], "args": kwargs})
            return Out(args[0])
        return make
class Config:
    def __init__(self, ns): pass
    def require_secret(self, k): return "<config %s>" % k
    def require_int(self, k): return "<config %s>" % k
pulumi = types.ModuleType("pulumi")
pulumi.Config = Config
pulumi.ResourceOptions = lambda **kw: kw
sys.modules["pulumi"] = pulumi
sys.modules["pulumi_garm"] = Garm("pulumi_garm")
scope = {}
exec(compile(open(sys.argv[1], encoding="utf-8").read(), sys.argv[1], "exec"), scope)
print(json.dumps({"declared": declared, "pwned": scope.get("pwned")}, ensure_ascii=True))
`;
    const ran = spawnSync("python3", ["-c", runner, file], { encoding: "utf8" });
    assert.equal(ran.status, 0, ran.stderr);
    const result = JSON.parse(ran.stdout) as { declared: { name: string; args: Record<string, unknown> }[]; pwned: unknown };
    assert.equal(result.pwned, null, "no name ran as code");
    assert.deepEqual(result.declared.map((d) => d.name), plan.entries.filter((e, i) => typeof inputs[i] === "object").map((e) => e.spec.name));
    const given = new Set(stringsIn(result.declared));
    for (const h of HOSTILE) assert.ok(given.has(h), `${JSON.stringify(h)} comes back as a value and a map key`);
    for (const { spec } of plan.entries.filter((e, i) => typeof inputs[i] === "object")) assert.ok(given.has(spec.id), `import id ${JSON.stringify(spec.id)} comes back`);
    const lines = code.split("\n");
    for (const { spec } of plan.entries.filter((e, i) => typeof inputs[i] !== "object")) {
      const line = lines.find((l) => l.startsWith("# ") && l.includes(JSON.stringify(spec.name)));
      assert.ok(line, `${spec.name} has its comment line`);
      assert.equal(commentedId(line), spec.id, `${line} quotes the import id`);
    }
  });

  it("the `pulumi config set` lines pass bash -n and run only `pulumi`, one call per line, each comment naming its object", async () => {
    const { plan } = await hostilePlan();
    const commands = configCommandsFor(plan.entries);
    assert.equal(commands.length, HOSTILE.length * 4, "one line per credentials and entity");
    const script = path.join(dir, "commands.sh");
    fs.writeFileSync(script, `${commands.join("\n")}\n`);
    execFileSync("bash", ["-n", script]);
    const log = path.join(dir, "calls");
    const ran = spawnSync("bash", ["-c", `cd "$1" || exit 1; LOG="$2"; pulumi() { printf 'pulumi %s\\n' "$*" >>"$LOG"; }; command_not_found_handle() { printf 'ran %s\\n' "$1" >>"$LOG"; }; PATH=/nonexistent; source "$0"`, script, dir, log], { encoding: "utf8", input: "" });
    assert.equal(ran.status, 0, ran.stderr);
    const calls = fs.readFileSync(log, "utf8").trim().split("\n");
    assert.equal(calls.length, commands.length, "one pulumi call per line, and nothing else ran");
    assert.ok(calls.every((c) => c.startsWith("pulumi ")), calls.join("\n"));
    assert.ok(!fs.existsSync(path.join(dir, "pwned")));
    for (const { object } of plan.entries.filter((e) => e.object.kind === "credentials" || e.object.kind === "organization" || e.object.kind === "repository")) {
      const name = (object.view as { name: string }).name;
      assert.ok(commands.some((c) => quotedIn(c.slice(c.indexOf("#"))).includes(name)), `a comment quotes ${JSON.stringify(name)}`);
    }
  });

  it("the import file is JSON and YAML alike, every id coming back exactly", async () => {
    const { plan } = await hostilePlan("/etc/garm/config.toml");
    const { planFileText } = command as unknown as { planFileText: (p: Plan) => string };
    const text = planFileText(plan);
    assert.deepEqual(JSON.parse(text), plan.file);
    assert.deepEqual(YAML.parse(text), plan.file);
    for (const ch of ["\u2028", "\u2029", "\u007f", "\u0085", "\u202e"]) assert.ok(!text.includes(ch), `no raw U+${ch.charCodeAt(0).toString(16)} in the file`);
    assert.ok(plan.file.resources.some((r) => r.id === `/etc/garm/config.toml#${HOSTILE[5]}`));
  });

  it("logical names are valid Pulumi names, and the variables valid identifiers", async () => {
    const { plan, inputs } = await hostilePlan("/etc/garm/config.toml");
    for (const { spec } of plan.entries) assert.match(spec.name, /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/);
    const tsVars = [...typescriptProgram(plan, inputs, "x").matchAll(/^const (\S+) = new /gm)].map((m) => m[1]);
    const pyVars = [...pythonProgram(plan, inputs, "x").matchAll(/^(\S+) = garm\./gm)].map((m) => m[1]);
    assert.ok(tsVars.length > HOSTILE.length && pyVars.length > HOSTILE.length);
    for (const v of tsVars) assert.match(v, /^[A-Za-z_$][A-Za-z0-9_$]*$/);
    const checked = spawnSync("python3", ["-c", "import json,keyword,sys; print(all(v.isidentifier() and not keyword.iskeyword(v) for v in json.load(sys.stdin)))"], { input: JSON.stringify(pyVars), encoding: "utf8" });
    assert.equal(checked.stdout.trim(), "True");
  });
});
