// Pure text editing of pulumi-garm's managed [[provider]] blocks inside GARM's config file; every byte outside the
// blocks is kept as it was.
import * as toml from "smol-toml";
import { INTERFACE_VERSIONS, ownerOf, type GarmProviderOwner, type InterfaceVersion, type ProviderBlockSpec } from "./inputs";

const BEGIN_RE = /^# BEGIN pulumi-garm provider "([^"]*)"[ \t]*\r?$/;
const END_RE = /^# END pulumi-garm provider "([^"]*)"[ \t]*\r?$/;
const OWNER_PREFIX = "# pulumi-garm owner: ";
const OWNER_RE = /^# pulumi-garm owner: (.*?)[ \t]*\r?$/m;

export function beginMarker(name: string): string {
  return `# BEGIN pulumi-garm provider "${name}"`;
}

export function endMarker(name: string): string {
  return `# END pulumi-garm provider "${name}"`;
}

/** A malformed arrangement of markers: the file must be fixed by hand before pulumi-garm edits it. */
export class ManagedBlockError extends Error {
  override readonly name = "ManagedBlockError";
}

/** One managed block: `start` is the offset of its BEGIN line, `end` the offset just past its END line. */
export interface BlockLocation {
  name: string;
  start: number;
  end: number;
  /** 1-based line number of the BEGIN marker, for messages. */
  line: number;
}

/**
 * Finds every managed block in `text`.
 * @throws ManagedBlockError on an unterminated, nested, mismatched or duplicated block.
 */
export function findBlocks(text: string, file = "the GARM config file"): BlockLocation[] {
  const blocks: BlockLocation[] = [];
  let open: { name: string; start: number; line: number } | undefined;
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const nl = text.indexOf("\n", offset);
    const lineEnd = nl === -1 ? text.length : nl + 1;
    const line = text.slice(offset, nl === -1 ? text.length : nl);
    lineNo++;
    const begin = BEGIN_RE.exec(line);
    const end = END_RE.exec(line);
    if (begin) {
      if (open) {
        throw new ManagedBlockError(
          `${file} line ${lineNo}: a BEGIN marker for provider "${begin[1]}" sits inside the managed block of "${open.name}" (opened at line ${open.line}); fix the markers by hand`,
        );
      }
      open = { name: begin[1], start: offset, line: lineNo };
    } else if (end) {
      if (!open) {
        throw new ManagedBlockError(
          `${file} line ${lineNo}: END marker for provider "${end[1]}" has no BEGIN marker; fix the markers by hand`,
        );
      }
      if (end[1] !== open.name) {
        throw new ManagedBlockError(
          `${file} line ${lineNo}: END marker names provider "${end[1]}" but the open block (line ${open.line}) is "${open.name}"; fix the markers by hand`,
        );
      }
      if (blocks.some((b) => b.name === open!.name)) {
        throw new ManagedBlockError(
          `${file} has two managed blocks for provider "${open.name}" (lines ${blocks.find((b) => b.name === open!.name)!.line} and ${open.line}); remove one by hand`,
        );
      }
      blocks.push({ name: open.name, start: open.start, end: lineEnd, line: open.line });
      open = undefined;
    }
    offset = lineEnd;
  }
  if (open) {
    throw new ManagedBlockError(
      `${file} line ${open.line}: managed block of provider "${open.name}" has no END marker; fix the markers by hand`,
    );
  }
  return blocks;
}

/** The line ending the file already uses, so inserted lines match it. */
export function lineEnding(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/**
 * Who wrote a block: its owner (absent in blocks written before owners were recorded, or by a resource without one)
 * and its generation, the random token of the resource that wrote it (absent in blocks written before generations).
 * A replacement of a resource has the same owner but writes a new generation, so the original's delete can tell the
 * block is no longer its own.
 */
export interface BlockClaim {
  owner?: GarmProviderOwner;
  generation?: string;
}

/** The owner line: the owner's JSON, with the generation as one more key (readers before generations ignore it). */
function ownerLine(owner: GarmProviderOwner | undefined, generation: string | undefined): string | undefined {
  if (!owner && !generation) return undefined;
  const who = owner ? { project: owner.project, stack: owner.stack, resource: owner.resource } : {};
  return OWNER_PREFIX + JSON.stringify(generation ? { ...who, generation } : who);
}

/** The lines a managed block opens with, before its `[[provider]]`: the BEGIN marker, the owner, what the block is. */
function openingLines(name: string, owner: GarmProviderOwner | undefined, generation?: string): string[] {
  const claim = ownerLine(owner, generation);
  return [beginMarker(name), ...(claim ? [claim] : []), "# Managed by pulumi-garm (GarmProvider); edits inside this block are overwritten."];
}

/** A TOML value literal produced by the TOML library, so escaping is the parser's own. */
function tomlValue(value: string | string[]): string {
  const line = toml.stringify({ v: value });
  return line.slice("v = ".length).replace(/\n$/, "");
}

/**
 * Renders the managed block for `spec`, markers included, each line ended with `eol`. The owner and generation, when
 * given, go on a comment line of their own (JSON, so any resource name stays on one line).
 */
export function renderBlock(spec: ProviderBlockSpec, eol = "\n", owner?: GarmProviderOwner, generation?: string): string {
  const lines = [
    ...openingLines(spec.name, owner, generation),
    "[[provider]]",
    `name = ${tomlValue(spec.name)}`,
    'provider_type = "external"',
    `description = ${tomlValue(spec.description)}`,
    "  [provider.external]",
    `  provider_executable = ${tomlValue(spec.executable)}`,
  ];
  if (spec.configFile) lines.push(`  config_file = ${tomlValue(spec.configFile)}`);
  lines.push(`  environment_variables = ${tomlValue(spec.environmentVariables)}`);
  lines.push(`  interface_version = ${tomlValue(spec.interfaceVersion)}`);
  lines.push(endMarker(spec.name));
  return lines.map((l) => l + eol).join("");
}

/**
 * Returns `text` with the block for `spec.name` replaced in place, or appended at the end of the file when absent.
 * Appending at the end keeps a new `[[provider]]` from being read as part of whatever table precedes it.
 */
export function upsertBlock(text: string, spec: ProviderBlockSpec, file?: string, owner?: GarmProviderOwner, generation?: string): string {
  const eol = lineEnding(text);
  const block = renderBlock(spec, eol, owner, generation);
  const existing = findBlocks(text, file).find((b) => b.name === spec.name);
  // A block closing a file without a final newline keeps it so (its END line unterminated), so removing it still knows.
  if (existing) return text.slice(0, existing.start) + (unterminated(text, existing) ? block.slice(0, -eol.length) : block) + text.slice(existing.end);
  if (text === "" || text.endsWith("\n")) return text + block;
  // The file has no final newline: the block goes on a line of its own and ends the file without one, as it did.
  return text + eol + block.slice(0, -eol.length);
}

/** Whether `loc` ends the file on an END line without a line ending: appended to a file that had no final newline. */
function unterminated(text: string, loc: BlockLocation): boolean {
  return loc.end === text.length && !text.endsWith("\n");
}

/** The line ending of the block's BEGIN line: the one upsertBlock wrote it with. */
function blockEol(text: string, loc: BlockLocation): string {
  const nl = text.indexOf("\n", loc.start);
  return nl > 0 && text[nl - 1] === "\r" ? "\r\n" : "\n";
}

/**
 * Returns `text` without the block for `name` (unchanged when there is none). A block that ends the file without a
 * final newline also takes the line ending before it, the one upsertBlock added: insert then remove is the identity.
 */
export function removeBlock(text: string, name: string, file?: string): string {
  const existing = findBlocks(text, file).find((b) => b.name === name);
  if (!existing) return text;
  let start = existing.start;
  if (unterminated(text, existing)) {
    const eol = blockEol(text, existing);
    if (text.slice(0, start).endsWith(eol)) start -= eol.length;
  }
  return text.slice(0, start) + text.slice(existing.end);
}

/** `text` with every managed block cut out, as removeBlock cuts each: what the operator wrote by hand. */
export function withoutManagedBlocks(text: string, file?: string): string {
  let out = text;
  // From the last block back, so a block before one that ended the file is then the one that ends it.
  for (const b of findBlocks(text, file).reverse()) out = removeBlock(out, b.name, file);
  return out;
}

/**
 * Reads the block for `name` back into a spec, or undefined when the file has no such block.
 * @throws ManagedBlockError when the block was edited into something that is not one external provider.
 */
export function readBlock(text: string, name: string, file = "the GARM config file"): ProviderBlockSpec | undefined {
  const loc = findBlocks(text, file).find((b) => b.name === name);
  if (!loc) return undefined;
  let doc: Record<string, unknown>;
  try {
    doc = toml.parse(text.slice(loc.start, loc.end)) as Record<string, unknown>;
  } catch (e) {
    throw new ManagedBlockError(
      `${file} line ${loc.line}: the managed block of provider "${name}" is not valid TOML on its own (${firstLine(e)}); run pulumi up to rewrite it`,
    );
  }
  const providers = doc.provider;
  const p = Array.isArray(providers) && providers.length === 1 ? (providers[0] as Record<string, unknown>) : undefined;
  const ext = p && typeof p.external === "object" && p.external !== null ? (p.external as Record<string, unknown>) : undefined;
  if (!p || !ext || Object.keys(doc).length !== 1) {
    throw new ManagedBlockError(
      `${file} line ${loc.line}: the managed block of provider "${name}" does not hold exactly one [[provider]] with [provider.external]; run pulumi up to rewrite it`,
    );
  }
  return specOfEntry(p, ext);
}

/** The block spec a parsed `[[provider]]` entry and its `[provider.external]` table describe, GARM's defaults filled in. */
export function specOfEntry(p: Record<string, unknown>, ext: Record<string, unknown>): ProviderBlockSpec {
  const spec: ProviderBlockSpec = {
    name: String(p.name ?? ""),
    description: typeof p.description === "string" ? p.description : "",
    executable: typeof ext.provider_executable === "string" ? ext.provider_executable : "",
    environmentVariables: Array.isArray(ext.environment_variables) ? ext.environment_variables.map(String) : [],
    interfaceVersion: (INTERFACE_VERSIONS as readonly string[]).includes(String(ext.interface_version))
      ? (ext.interface_version as InterfaceVersion)
      : "v0.1.0",
  };
  if (typeof ext.config_file === "string" && ext.config_file) spec.configFile = ext.config_file;
  return spec;
}

/**
 * The owner recorded in the block for `name`; undefined when there is no such block or it records none (written
 * before owners were recorded).
 * @throws ManagedBlockError when the owner line was edited into something unreadable.
 */
export function readBlockOwner(text: string, name: string, file = "the GARM config file"): GarmProviderOwner | undefined {
  return readBlockClaim(text, name, file)?.owner;
}

/**
 * The owner and generation recorded in the block for `name` (each absent when the block records none); undefined
 * when there is no such block.
 * @throws ManagedBlockError when the owner line was edited into something unreadable.
 */
export function readBlockClaim(text: string, name: string, file = "the GARM config file"): BlockClaim | undefined {
  const loc = findBlocks(text, file).find((b) => b.name === name);
  if (!loc) return undefined;
  const m = OWNER_RE.exec(text.slice(loc.start, loc.end));
  if (!m) return {};
  let claim: BlockClaim | undefined;
  try {
    const parsed: unknown = JSON.parse(m[1]);
    const obj = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    const generation = obj?.generation;
    const owner = ownerOf(obj);
    // An owner line records an owner, or (written by a resource without one) only a generation.
    const ownerless = obj !== undefined && !("project" in obj) && !("stack" in obj) && !("resource" in obj);
    if (obj && (generation === undefined || (typeof generation === "string" && generation !== "")) && (owner || (ownerless && generation))) {
      claim = { ...(owner ? { owner } : {}), ...(typeof generation === "string" ? { generation } : {}) };
    }
  } catch {
    claim = undefined;
  }
  if (!claim) {
    throw new ManagedBlockError(
      `${file} line ${loc.line}: the owner line of provider "${name}"'s managed block is not readable; restore it as {"project":…,"stack":…,"resource":…}, or delete the line to let the next GarmProvider of that name take the block over`,
    );
  }
  return claim;
}

/**
 * `text` with the owner line of the block for `name` saying `owner` and `generation` (added after the BEGIN line
 * when the block has none, removed when both are absent), every other byte as it was: a takeover that leaves what
 * GARM reads, and a hand-marked block's own lines, untouched. `text` unchanged when there is no such block.
 */
export function setBlockClaim(text: string, name: string, owner: GarmProviderOwner | undefined, generation: string | undefined, file?: string): string {
  const loc = findBlocks(text, file).find((b) => b.name === name);
  if (!loc) return text;
  const eol = blockEol(text, loc);
  const line = ownerLine(owner, generation);
  const block = text.slice(loc.start, loc.end);
  const m = OWNER_RE.exec(block);
  let edited: string;
  if (m) {
    // The line as it stands, up to (not including) its line ending.
    const lineEnd = block.indexOf("\n", m.index);
    const end = lineEnd === -1 ? block.length : lineEnd + 1;
    edited = block.slice(0, m.index) + (line === undefined ? "" : line + block.slice(m.index, end).replace(/^[^\r\n]*/, "")) + block.slice(end);
  } else {
    if (line === undefined) return text;
    const afterBegin = block.indexOf("\n") + 1;
    edited = block.slice(0, afterBegin) + line + eol + block.slice(afterBegin);
  }
  return text.slice(0, loc.start) + edited + text.slice(loc.end);
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0];
}

const ARRAY_OF_PROVIDERS = /^[ \t]*\[\[[ \t]*provider[ \t]*\]\][ \t]*(#.*)?\r?$/;
const TABLE_HEADER = /^[ \t]*\[/;
/** A sub-table of the current `[[provider]]` element, such as `[provider.external]`: still part of the entry. */
const PROVIDER_SUB_TABLE = /^[ \t]*\[\[?[ \t]*provider[ \t]*\./;
const BLANK_OR_COMMENT = /^[ \t]*(#.*)?\r?$/;

/**
 * Where the hand-written (outside managed blocks) `[[provider]]` entry named `name` is: from its header line to the
 * end of its last line that is not blank or a comment, before the next table. Each candidate is proven by TOML
 * parsing it alone; undefined when no span parses as exactly that one entry.
 */
export function handWrittenEntrySpan(text: string, name: string, file?: string): { start: number; end: number } | undefined {
  const managed = findBlocks(text, file);
  const lines: { start: number; end: number; text: string; managed: boolean }[] = [];
  for (let at = 0; at < text.length; ) {
    const nl = text.indexOf("\n", at);
    const end = nl === -1 ? text.length : nl + 1;
    lines.push({ start: at, end, text: text.slice(at, nl === -1 ? text.length : nl), managed: managed.some((b) => at >= b.start && at < b.end) });
    at = end;
  }
  const found: { start: number; end: number }[] = [];
  lines.forEach((line, i) => {
    if (line.managed || !ARRAY_OF_PROVIDERS.test(line.text)) return;
    let last = i;
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j];
      if (next.managed || (TABLE_HEADER.test(next.text) && !PROVIDER_SUB_TABLE.test(next.text))) break;
      if (!BLANK_OR_COMMENT.test(next.text)) last = j;
    }
    const span = { start: line.start, end: lines[last].end };
    try {
      const entries = (toml.parse(text.slice(span.start, span.end)) as Record<string, unknown>).provider;
      if (Array.isArray(entries) && entries.length === 1 && (entries[0] as Record<string, unknown>).name === name) found.push(span);
    } catch {
      // Not this entry on its own (a header inside a multi-line value?): the caller says the markers go on by hand.
    }
  });
  return found.length === 1 ? found[0] : undefined;
}

/**
 * `text` with pulumi-garm's markers (and `owner` with `generation`) put around the hand-written entry named `name`, every other byte as
 * it was: the entry becomes the managed block of `name` as it stands.
 * @throws ManagedBlockError when the entry's extent cannot be told for certain.
 */
export function markHandWritten(text: string, name: string, owner: GarmProviderOwner | undefined, file = "the GARM config file", generation?: string): string {
  const span = handWrittenEntrySpan(text, name, file);
  if (!span) {
    throw new ManagedBlockError(
      `${file}: cannot tell where the hand-written entry of provider "${name}" ends; put the lines ${JSON.stringify(beginMarker(name))} before its [[provider]] and ${JSON.stringify(endMarker(name))} after it by hand, then run again`,
    );
  }
  const eol = lineEnding(text);
  const entry = text.slice(span.start, span.end);
  const closed = entry.endsWith("\n") ? entry : entry + eol;
  // An entry ending the file without a final newline: so does its END marker.
  const last = span.end === text.length && !entry.endsWith("\n");
  return text.slice(0, span.start) + openingLines(name, owner, generation).map((l) => l + eol).join("") + closed + endMarker(name) + (last ? "" : eol) + text.slice(span.end);
}
