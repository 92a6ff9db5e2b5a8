// Every citation and link resolves inside the repository: a bare `§N.M` or `Appendix X` in the code names a heading of
// docs/garm-behaviour.md, `pulumi-behaviour.md §N.M` one of docs/pulumi-behaviour.md, a cited `.md` file exists, and
// every relative link (and its #anchor, by GitHub's slug rules) in README.md and docs/ points at something real.
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";

import { KINDS, tokenOf } from "../../provider/registry/kinds";

const ROOT = path.resolve(__dirname, "../../..");
/** Where code and tests cite the notes (the generated SDKs and code carry no citations of their own). */
const CITING_DIRS = ["provider", "provider-plugin", "sdk/nodejs", "test", "bench", "scripts", "simulator", "harness"];
const CITING_FILES = /\.(ts|md|sh|go|py)$|^Makefile$/;
const SKIPPED_DIRS = new Set(["node_modules", "generated", "fixtures", "dist", "build"]);
/** This file's samples are not citations. */
const SELF = path.join(ROOT, "test", "unit", "docs.test.ts");

function walk(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) || e.name.startsWith(".") ? [] : walk(full, keep);
    return keep(e.name) ? [full] : [];
  });
}

/** GitHub's heading anchor: lower-cased, punctuation dropped (letters, digits, `-`, `_` and spaces kept), spaces to `-`. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/ /g, "-");
}

/** Markdown text without its fenced code blocks, which hold neither links nor headings. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** Markdown text without fenced code and inline code spans: where links can be. */
function proseOf(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, "``");
}

/** The headings of a markdown file, as GitHub lists them (fenced code skipped). */
export function headingsOf(markdown: string): string[] {
  return [...withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) => m[1]);
}

/** The anchors GitHub generates for a file's headings, repeats numbered `-1`, `-2`, .... */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(markdown)) {
    const slug = githubSlug(heading);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Section numbers (`2`, `2.4`) and appendix letters (`Appendix A`) a notes page has as headings. */
export function sectionsOf(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const heading of headingsOf(markdown)) {
    const numbered = /^(\d+(?:\.\d+)*)\.?\s/.exec(heading);
    if (numbered) found.add(`§${numbered[1]}`);
    const appendix = /^Appendix ([A-Z])\b/.exec(heading);
    if (appendix) found.add(`Appendix ${appendix[1]}`);
  }
  return found;
}

export interface Citation {
  where: string;
  doc: "garm-behaviour.md" | "pulumi-behaviour.md";
  section: string;
}

/**
 * The section citations of one file. `pulumi-behaviour.md §2.3` (also across a comment's line break) cites the Pulumi
 * notes; every other `§N.M` and every `Appendix X` cites the GARM notes.
 */
export function citationsIn(file: string, text: string): Citation[] {
  const found: Citation[] = [];
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  for (const m of text.matchAll(/(pulumi-behaviour\.md(?:\s|\/\/|\*|#)*)?§\s?(\d+(?:\.\d+)*)/g)) {
    const doc = m[1] ? "pulumi-behaviour.md" : "garm-behaviour.md";
    found.push({ where: `${file}:${lineOf(m.index! + m[0].indexOf("§"))}`, doc, section: `§${m[2]}` });
  }
  for (const m of text.matchAll(/\bAppendix ([A-Z])\b/g)) {
    found.push({ where: `${file}:${lineOf(m.index!)}`, doc: "garm-behaviour.md", section: `Appendix ${m[1]}` });
  }
  return found;
}

/** `.md` files a text names (`garm-behaviour.md`, `docs/concepts/drains.md`, `../docs/x.md`). */
export function markdownNamesIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w.-])((?:\.{1,2}\/)*[\w-]+(?:\/[\w.-]+)*\.md)\b/g)].map((m) => m[1]);
}

/** Whether a cited `.md` name is a file of the repository: a path from the root, or the tail of one. */
export function namesRepositoryFile(name: string, repositoryMarkdown: string[]): boolean {
  const tail = name.replace(/^(\.{1,2}\/)+/, "");
  return repositoryMarkdown.some((file) => file === tail || file.endsWith(`/${tail}`));
}

/** Relative links of a markdown file that lead nowhere: a missing file, or an anchor its target does not have. */
export function brokenLinks(file: string, markdown: string, read: (file: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const m of proseOf(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    const [filePart, anchor] = target.split("#", 2) as [string, string | undefined];
    const resolved = filePart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(filePart));
    const rel = path.relative(ROOT, resolved);
    if (rel.startsWith("..")) {
      broken.push(`${path.relative(ROOT, file)}: ${target} (outside the repository)`);
      continue;
    }
    const isDirectory = existsSync(resolved) && statSync(resolved).isDirectory();
    const content = isDirectory ? undefined : read(resolved);
    if (!isDirectory && content === undefined) {
      broken.push(`${path.relative(ROOT, file)}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined || anchor === "") continue;
    if (content === undefined || !resolved.endsWith(".md") || !anchorsOf(content).has(anchor)) {
      broken.push(`${path.relative(ROOT, file)}: ${target} (no heading with that anchor)`);
    }
  }
  return broken;
}

const read = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, "utf8") : undefined);
const citingFiles = () =>
  CITING_DIRS.flatMap((d) => walk(path.join(ROOT, d), (n) => CITING_FILES.test(n))).filter((f) => f !== SELF);
const docsPages = () => [path.join(ROOT, "README.md"), ...walk(path.join(ROOT, "docs"), (n) => n.endsWith(".md"))];

/** Citations of `files` that name a section the notes do not have. */
function unresolved(files: string[], notes: Record<Citation["doc"], Set<string>>): string[] {
  return files
    .flatMap((f) => citationsIn(path.relative(ROOT, f), readFileSync(f, "utf8")))
    .filter((c) => !notes[c.doc].has(c.section))
    .map((c) => `${c.where}: ${c.doc} ${c.section}`);
}

describe("docs: citations and links resolve inside the repository", () => {
  const notes = () => ({
    "garm-behaviour.md": sectionsOf(read(path.join(ROOT, "docs/garm-behaviour.md")) ?? ""),
    "pulumi-behaviour.md": sectionsOf(read(path.join(ROOT, "docs/pulumi-behaviour.md")) ?? ""),
  });

  it("reads citations the way the code writes them", () => {
    const sample = [
      "// GARM answers 200 and keeps it (§5, Appendix B); Pulumi drops it (pulumi-behaviour.md §2.5).",
      "// see (pulumi-behaviour.md",
      "// §1.2, pulumi-behaviour.md §2.8) and garm-behaviour.md §10.2 L6",
    ].join("\n");
    assert.deepEqual(
      citationsIn("x.ts", sample).map((c) => `${c.where} ${c.doc} ${c.section}`),
      [
        "x.ts:1 garm-behaviour.md §5",
        "x.ts:1 pulumi-behaviour.md §2.5",
        "x.ts:3 pulumi-behaviour.md §1.2",
        "x.ts:3 pulumi-behaviour.md §2.8",
        "x.ts:3 garm-behaviour.md §10.2",
        "x.ts:1 garm-behaviour.md Appendix B",
      ],
    );
    assert.deepEqual([...sectionsOf("# T\n## 2. Routes\n### 2.4 Entities\n```\n## 9. in code\n```\n## Appendix B — Drain\n")], [
      "§2",
      "§2.4",
      "Appendix B",
    ]);
  });

  it("slugs headings as GitHub does", () => {
    assert.equal(githubSlug("Other languages: the `garm` resource plugin"), "other-languages-the-garm-resource-plugin");
    assert.equal(githubSlug("2.4 Entities (routers.go)"), "24-entities-routersgo");
    assert.equal(githubSlug("Drains, timeouts and retries"), "drains-timeouts-and-retries");
    assert.deepEqual([...anchorsOf("## Example\n## Example\n")], ["example", "example-1"]);
    const dir = path.join(ROOT, "docs");
    const pages: Record<string, string> = { [path.join(dir, "a.md")]: "## Here\n", [path.join(dir, "b.md")]: "x" };
    assert.deepEqual(brokenLinks(path.join(dir, "b.md"), "[ok](a.md#here) [no](a.md#there) `[code](zz.md)`", (f) => pages[f]), [
      "docs/b.md: a.md#there (no heading with that anchor)",
    ]);
  });

  it("every § and Appendix citation in code, tests and scripts names a heading of the notes", () => {
    const files = citingFiles();
    assert.ok(files.length > 100, `found the sources under ${ROOT}`);
    const n = notes();
    assert.ok(n["garm-behaviour.md"].size > 40 && n["pulumi-behaviour.md"].size > 10, "docs/garm-behaviour.md and docs/pulumi-behaviour.md have numbered sections");
    assert.deepEqual(unresolved(files, n), []);
  });

  it("every .md file the code, tests and scripts cite is in the repository", () => {
    const repositoryMarkdown = walk(ROOT, (n) => n.endsWith(".md")).map((f) => path.relative(ROOT, f));
    const missing = citingFiles().flatMap((f) =>
      markdownNamesIn(readFileSync(f, "utf8"))
        .filter((name) => !namesRepositoryFile(name, repositoryMarkdown))
        .map((name) => `${path.relative(ROOT, f)}: ${name}`),
    );
    assert.deepEqual(missing, []);
    assert.equal(namesRepositoryFile("reference-notes.md", repositoryMarkdown), false, "a document outside the repository is not found");
  });

  it("every relative link in README.md and docs/ leads to a file and heading that exist", () => {
    const pages = docsPages();
    assert.ok(pages.length > 10, "README.md and the docs/ pages");
    assert.deepEqual(
      pages.flatMap((p) => brokenLinks(p, readFileSync(p, "utf8"), read)),
      [],
    );
  });

  it("README.md stays a landing page: under 200 lines", () => {
    const lines = readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n").length;
    assert.ok(lines < 200, `README.md has ${lines} lines; move reference text into docs/`);
  });

  it("README.md's plugin section names every resource type of the registry, and no other", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const start = readme.indexOf("## Other languages: the `garm` resource plugin");
    assert.ok(start >= 0, "README.md has the plugin section");
    const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
    const listed = [...new Set([...section.matchAll(/`(garm:index:\w+)`/g)].map((m) => m[1]))].sort();
    assert.deepEqual(listed, KINDS.map(tokenOf).sort());
    assert.equal(listed.length, 10);
  });
});
