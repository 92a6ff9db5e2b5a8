// The one input-checking pipeline every kind's check runs: a zod input schema in, `{inputs, failures}` out. Each field
// is type-checked on its own and the kind's rules run on every field that type-checked, so one run reports every
// failure of an input set at once; unknown (preview) values are skipped and kept in place; a secret field's value
// (declared with secretInput in the schema) is never written into a failure.
import type { z } from "zod";
import { type Failure, type IssueWords, fail, issueWords, show } from "./input-words";
import { secretFieldsOf } from "./secret-inputs";
import { containsUnknown, withoutProviderKey } from "./unknown";

export { type Failure, fail, show };

/** False for a field whose value is not known yet (preview) or did not type-check: rules leave such fields alone. */
export type Known<T> = (field: keyof T & string) => boolean;

/** One rule of a kind beyond types; it sees only fields that type-checked and says nothing of the others. */
export type InputRule<T> = (inputs: Partial<T>, known: Known<T>) => Failure[];

export interface InputCheck<T> {
  /** The kind's input schema. A field that does not accept `undefined` is required. */
  readonly schema: z.ZodObject;
  /** The resource type, e.g. "GarmScaleSet": an unknown input is pointed at its Args. */
  readonly resource: string;
  /** Fields whose expected value is better said in words than derived from the schema. */
  readonly expected?: Readonly<Record<string, string>>;
  /** Inputs this kind does not take, with the reason said instead of "unknown input". */
  readonly notTaken?: Readonly<Record<string, string>>;
  readonly rules?: readonly InputRule<T>[];
  /** The checked inputs from the type-checked fields, defaults filled in; called only when nothing failed. */
  readonly withDefaults?: (inputs: Partial<T>, known: Known<T>) => Record<string, unknown>;
}

export interface CheckOutcome {
  readonly inputs: Record<string, unknown>;
  readonly failures: Failure[];
}

const translators = new WeakMap<z.ZodObject, IssueWords>();

function wordsFor(spec: InputCheck<unknown>): IssueWords {
  let words = translators.get(spec.schema);
  if (!words) translators.set(spec.schema, (words = issueWords(spec.schema, `${spec.resource}Args`, spec.expected)));
  return words;
}

/** Checks `news` (raw inputs, `__provider` allowed) against `spec`; with no failures, returns them with defaults. */
export function checkInputs<T>(spec: InputCheck<T>, news: Record<string, unknown>): CheckOutcome {
  const raw = withoutProviderKey(news);
  const shape = spec.schema.shape as Record<string, z.ZodType>;
  const words = wordsFor(spec as InputCheck<unknown>);
  const unknownFields = new Set(Object.keys(raw).filter((k) => containsUnknown(raw[k])));
  const invalid = new Set<string>();
  const data: Record<string, unknown> = {};
  const failures: Failure[] = [];

  for (const [key, value] of Object.entries(raw)) {
    if (unknownFields.has(key) || value === undefined) continue;
    const field = shape[key];
    if (!field) {
      const issue = { code: "unrecognized_keys", keys: [key], path: [], message: "", input: raw } as unknown as z.core.$ZodIssue;
      failures.push(spec.notTaken?.[key] !== undefined ? fail(key, spec.notTaken[key]) : words(issue, raw));
      continue;
    }
    // Pulumi's null is an optional input left unset.
    if (value === null && field.safeParse(undefined).success) continue;
    const parsed = field.safeParse(value);
    if (parsed.success) {
      if (parsed.data !== undefined) data[key] = parsed.data;
    } else {
      invalid.add(key);
      failures.push(...parsed.error.issues.map((issue) => words({ ...issue, path: [key, ...issue.path] } as z.core.$ZodIssue, raw)));
    }
  }
  const missing = Object.entries(shape)
    .filter(([key, field]) => !unknownFields.has(key) && raw[key] === undefined && !field.safeParse(undefined).success)
    .map(([key]) => fail(key, `${key} is required`));

  const known: Known<T> = (f) => !unknownFields.has(f) && !invalid.has(f);
  const ruled = (spec.rules ?? []).flatMap((rule) => rule(data as Partial<T>, known));
  const all = [...missing, ...failures, ...withoutSecretValues(ruled, raw, secretFieldsOf(spec.schema))];
  if (all.length > 0) return { inputs: news, failures: all };
  const checked = spec.withDefaults ? spec.withDefaults(data as Partial<T>, known) : data;
  // Keep the unknowns where they were, so Pulumi shows them as "computed" in the preview.
  return { inputs: { ...checked, ...Object.fromEntries([...unknownFields].map((k) => [k, raw[k]])) }, failures: [] };
}

/** A second guard behind the rules, which never quote a secret: any secret value a reason holds is replaced. */
function withoutSecretValues(failures: Failure[], raw: Record<string, unknown>, secretFields: readonly string[]): Failure[] {
  const values = secretFields
    .map((f) => raw[f])
    .filter((v): v is string | number | boolean | bigint => ["string", "number", "boolean", "bigint"].includes(typeof v))
    .map(String)
    // Shorter values would mangle ordinary words; no rule quotes a secret, this only catches a mistake.
    .filter((v) => v.length >= 4);
  if (values.length === 0) return failures;
  return failures.map((f) => ({ ...f, reason: values.reduce((reason, v) => reason.split(v).join("[secret]"), f.reason) }));
}
