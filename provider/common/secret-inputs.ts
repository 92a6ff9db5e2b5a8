// Which inputs hold secrets, declared next to the field in its kind's zod schema, so every consumer (the check
// pipeline, the package schema) reads one declaration and a new secret field cannot be forgotten by one of them.
import { z } from "zod";

const secretInputs = z.registry<{ secret: true }>();

/** Marks `schema` (a field of an input schema) as holding a secret. Apply it outermost: `secretInput(z.string()...)`. */
export function secretInput<T extends z.ZodType>(schema: T): T {
  // The mark also reaches the JSON Schema (as "x-secret"), so a secret field of a nested object is marked in schema.json.
  const marked = schema.meta({ ...schema.meta(), [SECRET_JSON_KEY]: true }) as T;
  secretInputs.add(marked, { secret: true });
  return marked;
}

/** The JSON Schema key z.toJSONSchema writes for a field declared with secretInput. */
export const SECRET_JSON_KEY = "x-secret";

/** True when `schema`, or what it wraps (optional, nullable, default), was declared with secretInput. */
export function isSecretSchema(schema: z.ZodType | undefined): boolean {
  for (let s: unknown = schema; s instanceof z.ZodType; ) {
    if (secretInputs.has(s)) return true;
    s = s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault ? s.unwrap() : undefined;
  }
  return false;
}

/** The top-level fields of `schema` that hold secrets. */
export function secretFieldsOf(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape).filter(([, field]) => isSecretSchema(field as z.ZodType)).map(([key]) => key);
}

/**
 * Dotted paths of the secret fields inside `schema`'s nested objects (`connection.privateKey`, `connection.proxy.password`),
 * for the error guard, which must find a nested secret's value to keep it out of a message.
 */
export function nestedSecretPathsOf(schema: z.ZodObject, prefix = "", depth = 3): string[] {
  if (depth === 0) return [];
  return Object.entries(schema.shape).flatMap(([key, field]) => {
    let inner = field as z.ZodType;
    while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
    const here = prefix ? `${prefix}.${key}` : key;
    const own = prefix && isSecretSchema(field as z.ZodType) ? [here] : [];
    return inner instanceof z.ZodObject ? [...own, ...nestedSecretPathsOf(inner, here, depth - 1)] : own;
  });
}
