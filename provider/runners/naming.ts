// The live scale-set name. GitHub scale-set labels are fixed at creation and GARM ignores them on update (garm-behaviour.md
// §4.2), so the live name carries a hash of what cannot change in place: a label or provider change yields a new name,
// and the replacement can come up beside the old generation instead of after it (GitHub names are unique per runner
// group, §8).
import { createHash } from "node:crypto";

export const MAX_LIVE_NAME = 64;
const HASH_LENGTH = 8;

export type Naming = "hashed" | "exact";

/** Trimmed, lower-cased, de-duplicated and sorted: ["X64", "linux ", "x64"] → ["linux", "x64"]. */
export function canonicalLabels(labels: readonly string[]): string[] {
  return [...new Set(labels.map((l) => l.trim().toLowerCase()))].sort();
}

/**
 * First 8 hex digits of sha256 over the canonical labels and the provider name:
 * `sha256("labels=" + canonical.join(",") + "\nprovider=" + providerName)`.
 */
export function generationHash(labels: readonly string[], providerName: string): string {
  const text = `labels=${canonicalLabels(labels).join(",")}\nprovider=${providerName}`;
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, HASH_LENGTH);
}

/**
 * The name GARM and GitHub see. `hashed`: `<name>-<hash>`, the name cut so the whole fits in 64 characters
 * (liveName("ci-small", ["linux","x64"], "openstack", "hashed") is "ci-small-" plus 8 hex digits). `exact`: the name.
 */
export function liveName(name: string, labels: readonly string[], providerName: string, naming: Naming): string {
  if (naming === "exact") return name;
  const room = MAX_LIVE_NAME - HASH_LENGTH - 1;
  const base = name.length > room ? name.slice(0, room).replace(/[-_.]+$/, "") : name;
  return `${base}-${generationHash(labels, providerName)}`;
}

const HASHED = /^(.*)-[0-9a-f]{8}$/;

/** The name a hashed live name was made from ("ci-small-1a2b3c4d" → "ci-small"), or undefined for a name of another shape. */
export function hashedBase(live: string): string | undefined {
  return HASHED.exec(live)?.[1];
}

/** Whether `other` is another generation of the hashed live name `ours`: the same base, another hash. */
export function isOtherGeneration(other: string, ours: string): boolean {
  const a = hashedBase(other);
  return a !== undefined && a === hashedBase(ours) && other !== ours;
}
