// Each resource's schema description is the opening paragraph of its page in docs/resources/, so the schema, the
// generated Python and Go docstrings and the docs say the same thing in one place.
import * as fs from "node:fs";
import * as path from "node:path";

/** docs/resources/<class, lower-cased>.md under the installed package (package.json exports it by name). */
export function resourcePagePath(sdkClass: string): string {
  const root = path.dirname(require.resolve("pulumi-garm/package.json"));
  return path.join(root, "docs", "resources", `${sdkClass.toLowerCase()}.md`);
}

/**
 * The first paragraph after the page's `# <Class>` title, joined into one line. Throws when the page does not open with
 * that title or the paragraph holds a Markdown link, which would not resolve inside an SDK's docstring.
 */
export function openingParagraph(markdown: string, sdkClass: string, source: string): string {
  const lines = markdown.split(/\r?\n/);
  if (lines[0]?.trim() !== `# ${sdkClass}`) throw new Error(`${source} must open with "# ${sdkClass}": its first paragraph is the schema's description`);
  const paragraph: string[] = [];
  for (const line of lines.slice(1)) {
    if (line.trim() === "") {
      if (paragraph.length) break;
      continue;
    }
    if (line.startsWith("#")) break;
    paragraph.push(line.trim());
  }
  const text = paragraph.join(" ");
  if (!text) throw new Error(`${source} has no paragraph after its title: it is the schema's description of ${sdkClass}`);
  if (/\]\(/.test(text)) throw new Error(`${source}'s first paragraph holds a link; keep it plain prose, since it becomes ${sdkClass}'s SDK docstring`);
  return text;
}

/** The schema's description of the resource `sdkClass`. */
export function resourceDescription(sdkClass: string): string {
  const file = resourcePagePath(sdkClass);
  return openingParagraph(fs.readFileSync(file, "utf8"), sdkClass, `docs/resources/${path.basename(file)}`);
}
