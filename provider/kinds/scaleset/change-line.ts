// The one line per resource that says what an update or replacement changes. Pulumi 3.248's dynamic provider cannot
// hand the engine a detailed diff, so after a refresh picked up drift `preview --diff` shows `~ update` with no field
// marked, and a label change shows as positional list changes; this line names the fields, old → new, and labels as a
// set (added and removed).
import type { Replacement } from "../../common/replace-line";
import { containsUnknown } from "../../common/unknown";
import { parseExtraSpecs } from "../../runners/extra-specs";
import { type UpdatableField, OMITTED_MEANS } from "./diff";
import { canonicalLabels } from "../../runners/naming";
import type { ScaleSetOutputs } from "./state";

const show = (value: unknown): string => {
  if (containsUnknown(value)) return "(known at up)";
  if (value === undefined || value === null || value === "") return "(unset)";
  return typeof value === "string" ? value : JSON.stringify(value);
};

/**
 * Extra specs go to the external provider and may hold anything, a secret included: only the changed keys are named,
 * never their values.
 */
function extraSpecsChange(held: unknown, wanted: unknown): string {
  if (containsUnknown(wanted)) return "extraSpecs (known at up)";
  const a = parseExtraSpecs(held) ?? {};
  const b = parseExtraSpecs(wanted) ?? {};
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
  return `extraSpecs keys ${keys.join(", ") || "(order)"} changed (values not shown)`;
}

/** "maxRunners 3 → 10", one per changed updatable field. */
export function updateChanges(olds: ScaleSetOutputs, news: Record<string, unknown>, fields: readonly UpdatableField[]): string[] {
  return fields.map((field) => {
    const wanted = news[field] ?? (OMITTED_MEANS as Partial<Record<UpdatableField, unknown>>)[field];
    if (field === "extraSpecs") return extraSpecsChange(olds.extraSpecs, wanted);
    if (field === "templateId" && wanted === undefined) return `templateId ${show(olds.templateId)} → GARM's system template for ${show(news.osType)}`;
    return `${field} ${show(olds[field])} → ${show(wanted)}`;
  });
}

/** "+gpu -small": the labels added and removed, compared as GARM does (ignoring case and spaces, §3.7). */
export function labelChange(held: readonly string[], wanted: unknown): string | undefined {
  if (containsUnknown(wanted)) return "known at up";
  if (!Array.isArray(wanted)) return undefined;
  const before = new Set(canonicalLabels(held));
  const after = new Set(canonicalLabels(wanted as string[]));
  const added = [...after].filter((l) => !before.has(l)).map((l) => `+${l}`);
  const removed = [...before].filter((l) => !after.has(l)).map((l) => `-${l}`);
  return added.length + removed.length > 0 ? [...added, ...removed].join(" ") : undefined;
}

/**
 * What each replaced input changes, which for a scale set is why it replaces: labels `+gpu -small`, providerName
 * `a → b`. An entity field whose shown value is unchanged (the entity named another way) is left out.
 */
export function replaceReasons(olds: ScaleSetOutputs, news: Record<string, unknown>, replaces: readonly string[]): Replacement[] {
  const reasons: Replacement[] = [];
  for (const field of replaces) {
    if (field === "labels") {
      const change = labelChange(olds.labels, news.labels);
      if (change) reasons.push({ field, why: change });
    } else if (field === "naming") {
      reasons.push({ field, why: `${show(olds.naming ?? "hashed")} → ${show(news.naming ?? "hashed")}` });
    } else if (["organization", "repository", "enterprise", "entityId", "endpoint"].includes(field)) {
      const was = field === "entityId" ? olds.entityId : field === "endpoint" ? olds.endpointName : olds.entityKind === field ? olds.entityName : undefined;
      if (show(was) !== show(news[field])) reasons.push({ field, why: `${show(was)} → ${show(news[field])}` });
    } else {
      reasons.push({ field, why: `${show((olds as unknown as Record<string, unknown>)[field])} → ${show(news[field])}` });
    }
  }
  return reasons;
}
