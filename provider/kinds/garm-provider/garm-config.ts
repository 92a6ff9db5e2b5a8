// What GARM's config file means as TOML: provider names, and the proof that an edit changed only one provider entry.
import { isDeepStrictEqual } from "node:util";
import * as toml from "smol-toml";
import { withoutManagedBlocks } from "./managed-block";
import type { ProviderBlockSpec } from "./inputs";

/** A config file content pulumi-garm refuses to write (or to edit from). */
export class GarmConfigError extends Error {
  override readonly name = "GarmConfigError";
}

type Doc = Record<string, unknown>;

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0];
}

/** Parses TOML. @throws GarmConfigError naming `what` and the parser's first message line. */
export function parseToml(text: string, what: string): Doc {
  try {
    return toml.parse(text) as Doc;
  } catch (e) {
    throw new GarmConfigError(`${what} is not valid TOML: ${firstLine(e)}`);
  }
}

/** The `[[provider]]` entries of a parsed config (empty when there are none). */
export function providerEntries(doc: Doc): Doc[] {
  const p = doc.provider;
  return Array.isArray(p) ? (p.filter((e) => typeof e === "object" && e !== null) as Doc[]) : [];
}

export function providerNames(doc: Doc): string[] {
  return providerEntries(doc).map((e) => String(e.name ?? ""));
}

/** Names that occur more than once; GARM refuses to start with any (garm-behaviour.md §9.1). */
export function duplicateNames(names: string[]): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const n of names) (seen.has(n) ? dups : seen).add(n);
  return [...dups];
}

/**
 * Provider names written by hand (outside managed blocks), or undefined when that part of the file cannot be parsed
 * on its own (then the caller cannot tell and should not guess).
 */
export function handWrittenProviderNames(text: string): string[] | undefined {
  try {
    return providerNames(toml.parse(withoutManagedBlocks(text)) as Doc);
  } catch {
    return undefined;
  }
}

function entryMatches(entry: Doc, spec: ProviderBlockSpec): boolean {
  const ext = (entry.external ?? {}) as Doc;
  return (
    entry.name === spec.name &&
    entry.provider_type === "external" &&
    (entry.description ?? "") === spec.description &&
    ext.provider_executable === spec.executable &&
    (ext.config_file ?? undefined) === (spec.configFile || undefined) &&
    isDeepStrictEqual([...((ext.environment_variables as string[] | undefined) ?? [])], spec.environmentVariables) &&
    (ext.interface_version ?? "v0.1.0") === spec.interfaceVersion
  );
}

/**
 * Checks that `after` is what editing provider `name` in `before` should give: valid TOML, no duplicate provider
 * names, every other provider and every other setting unchanged, and provider `name` equal to `expected` (or absent
 * when `expected` is undefined). This catches a block parsed into the wrong table as well as bad escaping.
 * @throws GarmConfigError saying what is wrong; the caller must then leave the file untouched.
 */
export function verifyEdit(before: string, after: string, name: string, expected: ProviderBlockSpec | undefined, file: string): void {
  const beforeDoc = parseToml(before, `${file} (as it is now)`);
  let afterDoc: Doc;
  try {
    afterDoc = toml.parse(after) as Doc;
  } catch (e) {
    throw new GarmConfigError(`refusing to write ${file}: the result would not be valid TOML (${firstLine(e)}); the file is unchanged`);
  }
  const dups = duplicateNames(providerNames(afterDoc));
  if (dups.length > 0) {
    throw new GarmConfigError(
      `refusing to write ${file}: it would define provider ${dups.map((d) => `"${d}"`).join(", ")} more than once and GARM would refuse to start; remove the hand-written entry or rename the GarmProvider; the file is unchanged`,
    );
  }
  const others = (doc: Doc) => providerEntries(doc).filter((e) => e.name !== name);
  const rest = (doc: Doc) => Object.fromEntries(Object.entries(doc).filter(([k]) => k !== "provider"));
  if (!isDeepStrictEqual(others(beforeDoc), others(afterDoc)) || !isDeepStrictEqual(rest(beforeDoc), rest(afterDoc))) {
    throw new GarmConfigError(
      `refusing to write ${file}: the edit of provider "${name}" would also change other settings as TOML reads them (a key after its END marker, or a "provider" key that is not an array of tables?); the file is unchanged`,
    );
  }
  const mine = providerEntries(afterDoc).filter((e) => e.name === name);
  if (expected ? mine.length !== 1 || !entryMatches(mine[0], expected) : mine.length !== 0) {
    throw new GarmConfigError(
      `refusing to write ${file}: after the edit, TOML would not read provider "${name}" as intended; the file is unchanged`,
    );
  }
}
