// The one line a diff prints when a change replaces a resource, in the same shape for every resource kind:
// `<label>: will replace: <field> (<why>)[, <field> (<why>)][; <then>]`.
import type { Logger } from "./log";

/** One replaced input and why it replaces (or, where that is the whole story, what changed). */
export interface Replacement {
  readonly field: string;
  readonly why: string;
}

/**
 * `GarmEndpoint ghe: will replace: name (the name is the endpoint's key in GARM)`. `then` says what the replacement
 * does beyond the fields, e.g. the order the two generations run in.
 */
export function replaceLine(label: string, replacements: readonly Replacement[], then?: string): string {
  const fields = replacements.map((r) => `${r.field} (${r.why})`).join(", ");
  return `${label}: will replace: ${fields}${then ? `; ${then}` : ""}`;
}

/** Logs {@link replaceLine}; nothing when there is no replacement to name. */
export function logReplacements(log: Logger, label: string, replacements: readonly Replacement[], then?: string): void {
  if (replacements.length > 0) log.info(replaceLine(label, replacements, then));
}

/** The replacements of `fields`, each with its reason from a fixed table; a field the table lacks gets a generic one. */
export function replacementsFrom(fields: readonly string[], reasons: Readonly<Record<string, string>>): Replacement[] {
  return fields.map((field) => ({ field, why: reasons[field] ?? "cannot change in place" }));
}
