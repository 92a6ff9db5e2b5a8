// Request body decoding with Go's json.Decoder outcomes: bad JSON or a wrong type is 400 "invalid request" (garm-behaviour.md §1.7).
import { invalidRequest } from "./errors";

export type Body = Record<string, unknown>;

/** Parses a JSON object body; unknown keys are kept (and ignored by callers) as Go does. */
export function parseBody(raw: string): Body {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw invalidRequest();
  }
  if (v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw invalidRequest();
  return v as Body;
}

/** A string field; null or absent is undefined. */
export function optString(b: Body, key: string): string | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalidRequest();
  return v;
}

/** An unsigned integer field (Go uint): negatives, fractions and non-numbers fail decoding. */
export function optUint(b: Body, key: string): number | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 0xffffffff) throw invalidRequest();
  return v;
}

export function optBool(b: Body, key: string): boolean | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw invalidRequest();
  return v;
}

export function optStringArray(b: Body, key: string): string[] | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw invalidRequest();
  return v as string[];
}

/** strconv.ParseBool: 1,t,T,TRUE,true,True are true; anything else is false here (§2.2). */
export function parseBool(v: string | null): boolean {
  return v !== null && ["1", "t", "T", "TRUE", "true", "True"].includes(v);
}

/** strconv.ParseUint(id, 10, 32) or 400 invalid request (§2.1). */
export function parseUintId(v: string): number {
  if (!/^[0-9]+$/.test(v)) throw invalidRequest();
  const n = Number(v);
  if (n > 0xffffffff) throw invalidRequest();
  return n;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: string) => UUID_RE.test(v);
