// diff(): which GarmProvider changes need a new block (replacement) and which rewrite it in place. Pure.
import { isDeepStrictEqual } from "node:util";
import { isUnknown } from "./checks";
import { migrateState, withDefaults } from "./schema";

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
] as const;

export interface GarmProviderDiff {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/** Compares stored outputs (any state version) with checked inputs; an unknown input counts as changed. */
export function diffGarmProvider(olds: Record<string, unknown>, news: Record<string, unknown>): GarmProviderDiff {
  const before = migrateState(olds) as unknown as Record<string, unknown>;
  const after = withDefaults(news);
  const changed = COMPARED_FIELDS.filter((f) => isUnknown(after[f]) || !isDeepStrictEqual(before[f], after[f]));
  return {
    changes: changed.length > 0,
    replaces: changed.filter((f) => (REPLACE_FIELDS as readonly string[]).includes(f)),
    // The new block goes in (and GARM restarts with both) before the old one is removed, so scale sets moving to the
    // new provider are never without one.
    deleteBeforeReplace: false,
  };
}
