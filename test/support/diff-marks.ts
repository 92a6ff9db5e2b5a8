// The marks a kind's diff makes, in the engine's words (update, addReplace, ...), for compact assertions.
import type { PlannedDiff } from "../../provider/common/planned-diff";

export function marks(planned: PlannedDiff): Record<string, string> {
  return Object.fromEntries(Object.entries(planned.fields).map(([field, c]) => [field, c.replaces ? `${c.kind}Replace` : c.kind]));
}

/** The diff with its fields given as {@link marks}. */
export function withMarks(planned: PlannedDiff): Omit<PlannedDiff, "fields"> & { fields: Record<string, string> } {
  return { ...planned, fields: marks(planned) };
}
