// Check's common first step for the entity and controller resources: type-check the known inputs against their zod
// schema and say each problem as "<field> is <value>; it must be <expected>". Unknown (preview) values are skipped.
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { containsUnknown, withoutProviderKey } from "./unknown";

type Failure = pulumi.dynamic.CheckFailure;

export interface KnownInputs<T> {
  /** The raw inputs without `__provider`. */
  readonly raw: Record<string, unknown>;
  readonly known: (field: string) => boolean;
  /** The parsed known fields, when they type-check. */
  readonly parsed?: Partial<T>;
  readonly failures: Failure[];
}

const show = (value: unknown) => (value === undefined ? "missing" : JSON.stringify(value));

/** Parses the known fields with `schema` (made partial); `required` fields must be present unless unknown. */
export function parseKnown<S extends z.ZodObject>(schema: S, news: Record<string, unknown>, required: readonly string[], typeName: string): KnownInputs<z.output<S>> {
  const raw = withoutProviderKey(news);
  const unknownFields = new Set(Object.keys(raw).filter((k) => containsUnknown(raw[k])));
  const known = (field: string) => !unknownFields.has(field);
  const knownOnly = Object.fromEntries(Object.entries(raw).filter(([k]) => known(k) && raw[k] !== null));
  const missing = required.filter((f) => known(f) && knownOnly[f] === undefined).map((f) => ({ property: f, reason: `${f} is required` }));
  const parsed = schema.partial().safeParse(knownOnly);
  const failures = parsed.success ? [] : parsed.error.issues.map((issue) => failureOf(issue, knownOnly, typeName));
  return { raw, known, parsed: parsed.success ? (parsed.data as Partial<z.output<S>>) : undefined, failures: [...missing, ...failures] };
}

function failureOf(issue: z.core.$ZodIssue, raw: Record<string, unknown>, typeName: string): Failure {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return { property: issue.keys[0] ?? path, reason: `unknown input ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}; see ${typeName}Args for the inputs` };
  }
  const value = issue.path.reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined), raw);
  return { property: path, reason: `${path} is ${show(value)}; it must be ${expected(issue)}` };
}

function expected(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return { string: "a string", boolean: "true or false", number: "a number", int: "a whole number" }[issue.expected as string] ?? issue.expected;
    case "invalid_value":
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      return `at least ${issue.minimum}`;
    default:
      return "a valid value";
  }
}
