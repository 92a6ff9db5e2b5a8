// Extra specs as GARM compares them: raw bytes (garm-behaviour.md §3.7), so they are always sent as compact JSON with sorted
// keys, and compared as parsed values.
import { isDeepStrictEqual } from "node:util";

/** The object form of an extraSpecs input (an object, or a JSON string holding one). */
export function parseExtraSpecs(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  return parsed as Record<string, unknown>;
}

/** Sorts object keys recursively so equal specs serialise to the same bytes. */
export function canonicalJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalJson);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonicalJson((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** An absent value on GARM's side equals an empty object on ours: GARM omits NULL extra specs (§3.1). */
export function sameExtraSpecs(ours: unknown, garms: unknown): boolean {
  const a = parseExtraSpecs(ours) ?? {};
  const b = (garms as Record<string, unknown> | undefined) ?? {};
  return isDeepStrictEqual(canonicalJson(a), canonicalJson(b));
}
