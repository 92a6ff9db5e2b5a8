// Check failures in the user's words for an input schema's zod issues: the field, the value given (only its kind when
// the field is secret) and what is expected, never the validation library's own wording. The one translator.
import { z } from "zod";
import { isSecretSchema } from "./secret-inputs";

export interface Failure {
  property: string;
  reason: string;
}

export const fail = (property: string, reason: string): Failure => ({ property, reason });

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

/** Translates one issue, whose path runs from the top of `inputs`. */
export type IssueWords = (issue: z.core.$ZodIssue, inputs: Record<string, unknown>) => Failure;

/**
 * A translator of `schema`'s issues into failures. `argsName` names the args type an unknown input is checked against,
 * e.g. "GarmScaleSetArgs"; `expected` words the expectation for fields better described than derived.
 */
export function issueWords(schema: z.ZodObject, argsName: string, expected: Readonly<Record<string, string>> = {}): IssueWords {
  // The input schema as JSON Schema, to tell whole-number fields from other numbers.
  const jsonShape = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonShape;
  const isWholeNumberField = (path: readonly PropertyKey[]) =>
    path.reduce<JsonShape | undefined>((shape, key) => shape?.properties?.[String(key)], jsonShape)?.type === "integer";
  /** The schemas along `path` from the top, each field's as declared (secret marks sit on the declared field). */
  const schemasAlong = (path: readonly PropertyKey[]): z.ZodType[] => {
    const found: z.ZodType[] = [];
    let at: z.ZodType | undefined = schema;
    for (const key of path) {
      const inner: z.ZodType | undefined = at ? unwrapped(at) : undefined;
      at =
        inner instanceof z.ZodObject
          ? (inner.shape[String(key)] as z.ZodType | undefined)
          : inner instanceof z.ZodArray && typeof key === "number"
            ? (inner.element as z.ZodType)
            : undefined;
      if (!at) break;
      found.push(at);
    }
    return found;
  };
  // A field is secret when it, or an object it is inside, was declared secret.
  const isSecretField = (path: readonly PropertyKey[]) => schemasAlong(path).some((s) => isSecretSchema(s));

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

  const nestedShape = (path: readonly PropertyKey[]): Record<string, unknown> => {
    const field = schemasAlong(path)[path.length - 1];
    const inner = field ? unwrapped(field) : undefined;
    return inner instanceof z.ZodObject ? inner.shape : {};
  };

  return (issue, inputs) => {
    const path = pathText(issue.path);
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k));
      const fields = Object.keys(nestedShape(issue.path));
      const known = !path ? `see ${argsName} for the inputs` : fields.length > 0 ? `the inputs of ${path} are ${fields.join(", ")}` : `${path} takes no inputs`;
      return fail(keys[0] ?? path, `unknown input ${keys.map(show).join(", ")}; ${known}`);
    }
    const value = issue.path.reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined), inputs);
    const given = isSecretField(issue.path) ? kindOf(value) : showValue(value);
    return fail(path, `${path} is ${given}; it must be ${expected[path] ?? expectedOf(issue)}`);
  };
}

/** The schema an optional, nullable or defaulted field wraps. */
function unwrapped(s: z.ZodType): z.ZodType {
  let at = s;
  while (at instanceof z.ZodOptional || at instanceof z.ZodNullable || at instanceof z.ZodDefault) at = at.unwrap() as z.ZodType;
  return at;
}

/** `a.b[0].c`, as the failures name nested fields. */
export function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

export const show = (value: unknown) => JSON.stringify(value);

function showValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** What a secret value is, without any of the value itself. */
function kindOf(value: unknown): string {
  const kind =
    value === undefined ? "missing" : value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : typeof value === "boolean" ? "true or false" : `a ${typeof value}`;
  return value === undefined || value === null ? kind : `${kind} (the value is secret, so it is not shown)`;
}
