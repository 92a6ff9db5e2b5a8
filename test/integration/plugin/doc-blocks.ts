// The code blocks of a documentation page, so tests run what the docs tell users to write rather than a copy of it.
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../../harness/pulumi-cli/project";

/** The bodies of the fenced blocks of `page` (a path from the repository root) whose info string is `info`. */
export function fencedBlocks(page: string, info: string): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, page), "utf8");
  return [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```\s*$/gm)].filter((m) => m[1]!.trim() === info).map((m) => m[2]!);
}

/** The one block of `page` with info string `info` that contains `marker`; fails naming the page when there is none or several. */
export function fencedBlock(page: string, info: string, marker: string): string {
  const found = fencedBlocks(page, info).filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${page} has ${found.length} \`\`\`${info} blocks containing ${JSON.stringify(marker)}; the test runs exactly one`);
  return found[0]!;
}
