// Pulumi's marker for values not known yet during preview (pulumi-behaviour.md §2.2).

export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True when the value is, or holds somewhere inside it, a preview unknown. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** Drops the runtime's `__provider` key (the serialized shim) from a property bag. */
export function withoutProviderKey(props: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _ignored, ...rest } = props;
  return rest;
}
