// Pulumi's dynamic-provider server prints every thrown error with its stack before the engine shows the message
// (pulumi-behaviour.md §5). For the errors this package throws on purpose (a drain timeout, a refused delete,
// a GARM answer) the stack, and a second copy of the message, are noise in `pulumi up` output; programming errors keep
// their stacks.
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

/** The same provider, whose deliberate errors reach Pulumi without a stack trace. */
export function userFacing(provider: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(provider)) {
    wrapped[name] =
      typeof method === "function"
        ? async (...args: unknown[]) => {
            try {
              return await (method as (...a: unknown[]) => unknown).apply(provider, args);
            } catch (err) {
              throw quiet(err);
            }
          }
        : method;
  }
  return wrapped as unknown as pulumi.dynamic.ResourceProvider;
}
