// The marks a kind's diff makes, as the plugin hands them to the engine (update, addReplace, ...), for short assertions.
import type { PlannedDiff } from "../../provider/common/planned-diff";
import { detailedDiffOf } from "../../provider-plugin/protocol";

export function marks(planned: PlannedDiff): Record<string, string> {
  return Object.fromEntries(Object.entries(detailedDiffOf(planned.fields)).map(([field, d]) => [field, d.kind]));
}

/** The diff with its fields given as {@link marks}. */
export function withMarks(planned: PlannedDiff): Omit<PlannedDiff, "fields"> & { fields: Record<string, string> } {
  return { ...planned, fields: marks(planned) };
}
