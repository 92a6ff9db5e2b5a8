// diff(): which GarmProvider changes need a new block (replacement) and which rewrite it in place. Reads nothing but
// the file system's idea of which file a path names.
import { realpathSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { containsUnknown } from "../../common/unknown";
import { type PlannedDiff, plannedDiff } from "../../common/planned-diff";
import { migrateState, withDefaults } from "./inputs";

/** Fields whose change moves the block to another identity: the GARM provider name or the file that holds it. */
export const REPLACE_FIELDS = ["name", "garmConfigPath"] as const;

/** Fields compared for changes; stateVersion is bookkeeping, not desired state. */
export const COMPARED_FIELDS = [
  "name",
  "garmConfigPath",
  "description",
  "executable",
  "configFile",
  "environmentVariables",
  "interfaceVersion",
  "restartCommand",
  "restartTimeoutSeconds",
  // Recorded in the block's marker: a renamed stack or resource rewrites it (without restarting GARM).
  "owner",
] as const;

/** Compares stored outputs (any state version) with checked inputs; an unknown input counts as changed. */
export function diffGarmProvider(olds: Record<string, unknown>, news: Record<string, unknown>): PlannedDiff {
  const before = migrateState(olds) as unknown as Record<string, unknown>;
  const after = withDefaults(news);
  const changed = COMPARED_FIELDS.filter((f) => containsUnknown(after[f]) || !isDeepStrictEqual(before[f], after[f]));
  // Another spelling of the same file (a symlink, a relative hop) is an update: a replacement would write the block
  // and then delete it again from the very same file.
  const moved = (f: string) => f !== "garmConfigPath" || containsUnknown(after[f]) || !sameFile(before[f], after[f]);
  const replaces = changed.filter((f) => (REPLACE_FIELDS as readonly string[]).includes(f) && moved(f));
  return plannedDiff({
    olds: before,
    news: after,
    updates: changed.filter((f) => !replaces.includes(f)),
    replaces,
    // A block GARM never confirmed needs an update that restarts GARM, even when nothing else changed.
    unmarked: before.confirmed === false,
    // The new block goes in (and GARM restarts with both) before the old one is removed, so scale sets moving to the
    // new provider are never without one.
    deleteBeforeReplace: false,
  });
}

/**
 * Whether two garmConfigPath values name one file; paths that do not resolve are compared as written. diff and update
 * both decide with this, so an update diff planned is never refused as a replacement.
 */
export function sameFile(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "string" || typeof b !== "string") return false;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
