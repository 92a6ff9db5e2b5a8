// diff(): which GarmProvider changes need a new block (replacement) and which rewrite it in place. Reads nothing but
// the GARM host's idea of which file a path names.
import { isDeepStrictEqual } from "node:util";
import type { GarmHost } from "../../machine/host";
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
  // How the GARM host is reached: another login to the same machine is an update, another machine a replacement.
  "connection",
] as const;

/** The machine a connection reaches ("" for this one); unknown while any of host or port is. */
function machineOf(connection: unknown): unknown {
  if (connection === undefined || connection === null) return "";
  if (containsUnknown(connection)) return connection;
  const c = connection as { host?: unknown; port?: unknown };
  return `${String(c.host)}:${String(c.port ?? 22)}`;
}

/**
 * Compares stored outputs (any state version) with checked inputs; an unknown input counts as changed. `sameConfigFile`
 * says whether the old and new garmConfigPath name one file on the GARM host (sameFileOn).
 */
export function diffGarmProvider(olds: Record<string, unknown>, news: Record<string, unknown>, sameConfigFile = olds.garmConfigPath === news.garmConfigPath): PlannedDiff {
  const before = migrateState(olds) as unknown as Record<string, unknown>;
  const after = withDefaults(news);
  const changed = COMPARED_FIELDS.filter((f) => containsUnknown(after[f]) || !isDeepStrictEqual(before[f], after[f]));
  // Another spelling of the same file (a symlink, a relative hop) is an update: a replacement would write the block
  // and then delete it again from the very same file.
  const moved = (f: string) => f !== "garmConfigPath" || containsUnknown(after[f]) || !sameConfigFile;
  // On another machine the block is a new one: written there, then removed from the old machine's file.
  const otherMachine = changed.includes("connection") && (containsUnknown(machineOf(after.connection)) || machineOf(before.connection) !== machineOf(after.connection));
  const replaces = [
    ...changed.filter((f) => (REPLACE_FIELDS as readonly string[]).includes(f) && moved(f)),
    ...(otherMachine ? ["connection"] : []),
  ];
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
 * Whether two garmConfigPath values name one file on `host`; paths that do not resolve are compared as written. diff
 * and update both decide with this, so an update diff planned is never refused as a replacement.
 */
export async function sameFileOn(host: GarmHost, a: unknown, b: unknown): Promise<boolean> {
  if (a === b) return true;
  if (typeof a !== "string" || typeof b !== "string" || containsUnknown(a) || containsUnknown(b)) return false;
  try {
    return (await host.realpath(a)) === (await host.realpath(b));
  } catch {
    return false;
  }
}
