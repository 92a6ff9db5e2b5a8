// Pulumi's dynamic-provider server prints every thrown error with its stack before the engine shows the message
// (pulumi-behaviour.md §5). For the errors this package throws on purpose (a drain timeout, a refused delete,
// a GARM answer) the stack, and a second copy of the message, are noise in `pulumi up` output; programming errors keep
// their stacks. No error leaves with the value of a secret input in it, whatever put it there (a GARM or forge answer
// that quotes the request, a message written by mistake).
import type * as pulumi from "@pulumi/pulumi";

const PROGRAMMING_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError];

/** What the server's `${e}: ${e.stack}` line says instead of repeating the message the engine shows anyway. */
export const POINTER = "see the resource's error for what happened and what to do";

function quiet(err: unknown): unknown {
  if (err instanceof Error && !PROGRAMMING_ERRORS.some((type) => err instanceof type)) {
    err.stack = POINTER;
    // Only that log line uses toString; the engine takes `message`.
    Object.defineProperty(err, "toString", { value: () => "pulumi-garm", enumerable: false });
  }
  return err;
}

/** The values of `secretInputs` in the property bags a method was called with; short ones would mangle ordinary words. */
function secretValuesIn(args: unknown[], secretInputs: readonly string[]): string[] {
  const values = new Set<string>();
  for (const arg of args) {
    if (!arg || typeof arg !== "object") continue;
    for (const field of secretInputs) {
      // A dotted path names a secret inside an object input (connection.privateKey).
      const v = field.split(".").reduce<unknown>((at, key) => (at !== null && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined), arg);
      if (["string", "number", "bigint"].includes(typeof v) && String(v).length >= 4) values.add(String(v));
    }
  }
  return [...values];
}

function withoutSecrets(err: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0 || !(err instanceof Error)) return err;
  const scrub = (text: string) => secrets.reduce((t, secret) => t.split(secret).join("[secret]"), text);
  err.message = scrub(err.message);
  const partial = err as Error & { reasons?: unknown };
  if (Array.isArray(partial.reasons)) partial.reasons = partial.reasons.map((r) => (typeof r === "string" ? scrub(r) : r));
  return err;
}

/**
 * The same provider, whose deliberate errors reach Pulumi without a stack trace, and whose errors never hold the value
 * of one of `secretInputs` (the kind's secret input fields, dotted paths for those inside an object input).
 */
export function userFacing(provider: pulumi.dynamic.ResourceProvider, secretInputs: readonly string[] = []): pulumi.dynamic.ResourceProvider {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(provider)) {
    wrapped[name] =
      typeof method === "function"
        ? async (...args: unknown[]) => {
            try {
              return await (method as (...a: unknown[]) => unknown).apply(provider, args);
            } catch (err) {
              throw quiet(withoutSecrets(err, secretValuesIn(args, secretInputs)));
            }
          }
        : method;
  }
  return wrapped as unknown as pulumi.dynamic.ResourceProvider;
}
