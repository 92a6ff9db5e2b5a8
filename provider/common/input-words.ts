// Check failures in the user's words for a resource's zod input schema: the field, the value given and what is
// expected, never the validation library's own wording. Every resource's check uses it.
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";

type Failure = pulumi.dynamic.CheckFailure;

const TYPE_WORDS: Record<string, string> = {
  int: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
};

interface JsonShape {
  type?: string;
  properties?: Record<string, JsonShape>;
}

/**
 * A translator of `schema`'s issues into failures. `argsName` names the args type an unknown input is checked against,
 * e.g. "GarmScaleSetArgs"; `expected` words the expectation for fields better described than derived.
 */
export function inputIssueWords(
  schema: z.ZodObject,
  argsName: string,
  expected: Readonly<Record<string, string>> = {},
): (issue: z.core.$ZodIssue, raw: Record<string, unknown>) => Failure {
  // The input schema as JSON Schema, to tell whole-number fields from other numbers.
  const jsonShape = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonShape;
  const isWholeNumberField = (path: readonly PropertyKey[]) =>
    path.reduce<JsonShape | undefined>((shape, key) => shape?.properties?.[String(key)], jsonShape)?.type === "integer";

  const expectedOf = (issue: z.core.$ZodIssue): string => {
    switch (issue.code) {
      case "invalid_type":
        if (issue.expected === "number" && isWholeNumberField(issue.path)) return TYPE_WORDS.int;
        return TYPE_WORDS[issue.expected] ?? issue.expected;
      case "too_small":
        return issue.inclusive ? `at least ${issue.minimum}` : `greater than ${issue.minimum}`;
      case "too_big":
        return issue.inclusive ? `at most ${issue.maximum}` : `less than ${issue.maximum}`;
      case "invalid_value":
        return `one of ${issue.values.map(show).join(", ")}`;
      default:
        return "a valid value";
    }
  };

  const nestedShape = (path: string): Record<string, unknown> => {
    const field = schema.shape[path];
    const inner = field instanceof z.ZodOptional ? field.unwrap() : field;
    return inner instanceof z.ZodObject ? inner.shape : {};
  };

  return (issue, raw) => {
    const path = issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k));
      const known = path ? `the inputs of ${path} are ${Object.keys(nestedShape(path)).join(", ")}` : `see ${argsName} for the inputs`;
      return { property: keys[0] ?? path, reason: `unknown input ${keys.map(show).join(", ")}; ${known}` };
    }
    const value = issue.path.reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined), raw);
    return { property: path, reason: `${path} is ${showValue(value)}; it must be ${expected[path] ?? expectedOf(issue)}` };
  };
}

const show = (value: unknown) => JSON.stringify(value);

function showValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}
