// The direction imports run in (docs/development.md, "Layout"): GARM access at the bottom, what every kind uses above it,
// what scale sets and pools share above that, one folder per kind, the front doors on top. Read from the sources, so a
// new import that runs the wrong way fails here, naming the file and the import.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..", "..");

/** Every .ts file under `dir` (repository-relative, forward slashes), generated code included. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".ts")) out.push(child);
    }
  };
  walk(dir);
  return out;
}

/** The repository-relative module each relative import of `file` names (extension dropped), and bare package names. */
function importsOf(file: string): { local: string[]; packages: string[] } {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const specs = [...text.matchAll(/(?:\bfrom|\bimport|\brequire\()\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]!);
  const local = specs
    .filter((s) => s.startsWith("."))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
  return { local, packages: specs.filter((s) => !s.startsWith(".")) };
}

/** The layer a provider module belongs to, and for a kind, which kind. */
function layerOf(module: string): { layer: number; name: string } {
  const rel = module.replace(/^provider\//, "");
  if (rel.startsWith("garm/")) return { layer: 0, name: "garm" };
  if (rel.startsWith("common/")) return { layer: 1, name: "common" };
  if (rel.startsWith("machine/")) return { layer: 1, name: "machine" };
  if (rel.startsWith("runners/")) return { layer: 2, name: "runners" };
  const kind = /^kinds\/([^/]+)\//.exec(rel);
  if (kind) return { layer: 3, name: `kinds/${kind[1]}` };
  // The functions (data sources) sit beside the kinds: they read what kinds manage, and import none of them.
  if (rel.startsWith("functions/")) return { layer: 3, name: "functions" };
  return { layer: 4, name: "front door" };
}

describe("imports run one way", () => {
  it("inside provider/: garm < common < runners < kinds and functions < front doors, and no kind imports another kind or the functions", () => {
    const wrong: string[] = [];
    for (const file of sources("provider")) {
      const from = layerOf(file);
      for (const target of importsOf(file).local) {
        if (!target.startsWith("provider/")) {
          wrong.push(`${file} imports ${target}, outside provider/`);
          continue;
        }
        const to = layerOf(target);
        if (to.layer > from.layer) wrong.push(`${file} (${from.name}) imports ${target} (${to.name}), a layer above it`);
        else if (to.layer === 3 && from.layer === 3 && to.name !== from.name) wrong.push(`${file} (${from.name}) imports another kind: ${target}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it("provider/garm knows nothing of Pulumi", () => {
    const wrong = sources("provider/garm").filter((f) => importsOf(f).packages.some((p) => p.startsWith("@pulumi/")));
    assert.deepEqual(wrong, []);
  });

  it("the plugin imports the provider, never the SDK, tests or harnesses", () => {
    const wrong = sources("provider-plugin").flatMap((f) =>
      importsOf(f).local.filter((t) => !t.startsWith("provider/") && !t.startsWith("provider-plugin/")).map((t) => `${f} imports ${t}`));
    assert.deepEqual(wrong, []);
  });

  it("the pulumi-garm command (cli/) sits above the provider: it imports provider/ and itself, never the SDK, plugin or harnesses", () => {
    const wrong = sources("cli").flatMap((f) => importsOf(f).local.filter((t) => !t.startsWith("provider/") && !t.startsWith("cli/")).map((t) => `${f} imports ${t}`));
    assert.deepEqual(wrong, []);
  });

  it("nothing outside test/ imports from test/", () => {
    const wrong = ["cli", "provider", "provider-plugin", "sdk/nodejs", "simulator", "harness", "bench", "scripts"]
      .flatMap(sources)
      .flatMap((f) => importsOf(f).local.filter((t) => t.startsWith("test/")).map((t) => `${f} imports ${t}`));
    assert.deepEqual(wrong, []);
  });

  it("the simulator stands alone: it imports no provider, SDK or harness module", () => {
    const wrong = sources("simulator").flatMap((f) =>
      importsOf(f).local.filter((t) => !t.startsWith("simulator/")).map((t) => `${f} imports ${t}`));
    assert.deepEqual(wrong, []);
  });
});
