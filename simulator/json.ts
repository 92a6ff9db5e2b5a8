// Go encoding/json details the simulator must reproduce: raw JSON fields kept byte for byte (garm-behaviour.md §3.7).

/** A value that is written into a response verbatim (Go json.RawMessage, compacted on output). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Go's json.Compact: drops whitespace outside strings, keeps everything else as is. */
export function compactJson(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === "\\") {
        out += text[++i] ?? "";
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") {
      out += c;
    }
  }
  return out;
}

/** Serialises like JSON.stringify, writing RawJson values compacted and verbatim. */
export function encodeJson(value: unknown): string {
  if (value instanceof RawJson) return compactJson(value.text);
  if (Array.isArray(value)) return `[${value.map((v) => encodeJson(v)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      parts.push(`${JSON.stringify(k)}:${encodeJson(v)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

function skipWs(text: string, i: number): number {
  while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  return i;
}

function endOfString(text: string, i: number): number {
  // text[i] is the opening quote; returns the index just past the closing quote.
  i++;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\") i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return i;
}

function endOfValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return endOfString(text, i);
  if (c === "{" || c === "[") {
    let depth = 0;
    while (i < text.length) {
      const d = text[i]!;
      if (d === '"') {
        i = endOfString(text, i);
        continue;
      }
      if (d === "{" || d === "[") depth++;
      if (d === "}" || d === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  while (i < text.length && !",}] \t\n\r".includes(text[i]!)) i++;
  return i;
}

/**
 * The raw text of a top-level key of a JSON object (the last one wins, as in Go), or undefined.
 * `text` must already be known to parse as a JSON object.
 */
export function rawTopLevelValue(text: string, key: string): string | undefined {
  let i = skipWs(text, 0);
  if (text[i] !== "{") return undefined;
  i++;
  let found: string | undefined;
  for (;;) {
    i = skipWs(text, i);
    if (text[i] !== '"') return found;
    const keyEnd = endOfString(text, i);
    const k = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWs(text, keyEnd);
    i = skipWs(text, i + 1); // past ':'
    const valueEnd = endOfValue(text, i);
    if (k === key) found = text.slice(i, valueEnd);
    i = skipWs(text, valueEnd);
    if (text[i] === ",") i++;
    else return found;
  }
}
