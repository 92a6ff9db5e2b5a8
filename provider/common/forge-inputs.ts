// Input checking shared by GarmEndpoint and GarmCredentials: zod type failures in words (never echoing a secret),
// the name and URL rules GARM applies, and a check outcome that keeps preview unknowns in place.
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { containsUnknown, withoutProviderKey } from "./unknown";

export type Failure = pulumi.dynamic.CheckFailure;

export const fail = (property: string, reason: string): Failure => ({ property, reason });
export const show = (value: unknown) => JSON.stringify(value);

/**
 * Endpoint and credentials names: a path segment of GARM's routes (routers.go L514-521) stored in a varchar(64) column
 * (database/sql/models.go L464, L483).
 */
export const FORGE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function nameFailures(field: string, value: string | undefined): Failure[] {
  if (value === undefined) return [];
  if (value.trim() === "") return [fail(field, `${field} must not be empty`)];
  if (!FORGE_NAME_PATTERN.test(value)) {
    return [fail(field, `${field} ${show(value)} may hold only letters, digits, ".", "_" and "-", start with a letter or digit, and be at most 64 characters`)];
  }
  return [];
}

/** GARM accepts a URL with an http or https scheme and a host (params/requests.go L324-357, Validate). */
export function urlFailures(field: string, value: string | undefined): Failure[] {
  if (value === undefined) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [fail(field, `${field} ${show(value)} is not a URL; it must be an http:// or https:// URL with a host`)];
  }
  // WHATWG URL finds a host in "https:///x"; Go's url.Parse, which GARM uses, does not.
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.host === "" || !/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]/.test(value)) {
    return [fail(field, `${field} ${show(value)} must be an http:// or https:// URL with a host`)];
  }
  return [];
}

const TYPE_WORDS: Record<string, string> = {
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "an object",
};

/** A type failure in words; the value is shown only for fields that are not secret. */
export function issueToFailure(issue: z.core.$ZodIssue, raw: Record<string, unknown>, secret: ReadonlySet<string>, resource: string): Failure {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return fail(issue.keys[0] ?? path, `unknown input ${issue.keys.map(show).join(", ")}; see ${resource}Args for the inputs`);
  }
  const value = raw[String(issue.path[0])];
  const given = secret.has(path) ? "not valid" : `${value === undefined ? "missing" : JSON.stringify(value)}`;
  let expected = "a valid value";
  if (issue.code === "invalid_type") expected = TYPE_WORDS[issue.expected] ?? issue.expected;
  else if (issue.code === "invalid_value") expected = `one of ${issue.values.map(show).join(", ")}`;
  else if (issue.code === "too_small") expected = `at least ${issue.minimum}`;
  else if (issue.code === "too_big") expected = `at most ${issue.maximum}`;
  else if (issue.code === "invalid_format" || issue.code === "custom") expected = issue.message;
  return fail(path, `${path} is ${given}; it must be ${expected}`);
}

export interface Parsed<T> {
  /** Known fields, parsed; unknown ones are absent here. */
  readonly data: Partial<T>;
  readonly known: (field: string) => boolean;
  readonly unknowns: Record<string, unknown>;
}

/** Type-checks the known fields of `news` against `schema` (made partial); required fields are listed by the caller. */
export function parseKnown<T>(
  news: Record<string, unknown>,
  schema: z.ZodObject,
  required: readonly string[],
  secret: ReadonlySet<string>,
  resource: string,
): { ok: true; parsed: Parsed<T> } | { ok: false; failures: Failure[] } {
  const raw = withoutProviderKey(news);
  const unknownFields = new Set(Object.keys(raw).filter((k) => containsUnknown(raw[k])));
  const known = (field: string) => !unknownFields.has(field);
  const knownOnly = Object.fromEntries(Object.entries(raw).filter(([k]) => known(k)));
  const result = schema.partial().strict().safeParse(knownOnly);
  const missing = required.filter((f) => known(f) && raw[f] === undefined).map((f) => fail(f, `${f} is required`));
  const typeFailures = result.success ? [] : result.error.issues.map((i) => issueToFailure(i, knownOnly, secret, resource));
  if (!result.success || missing.length > 0) return { ok: false, failures: [...missing, ...typeFailures] };
  const unknowns = Object.fromEntries([...unknownFields].map((k) => [k, raw[k]]));
  return { ok: true, parsed: { data: result.data as Partial<T>, known, unknowns } };
}
