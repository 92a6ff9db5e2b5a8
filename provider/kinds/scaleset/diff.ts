// Decides what an input change does to a GarmScaleSet: nothing, an in-place update of GARM's updatable fields, or a
// replacement (labels, provider and entity cannot change in GARM, §4.1, §4.2). Compares against the outputs, which hold
// the normalised view GARM returned, so a no-op never shows as a change.
import { isDeepStrictEqual } from "node:util";
import type { UpdateScaleSetParams } from "../../garm/client";
import { UNKNOWN, containsUnknown, withoutProviderKey } from "../../common/unknown";
import { type PlannedDiff, plannedDiff } from "../../common/planned-diff";
import { canonicalJson, parseExtraSpecs, sameExtraSpecs } from "../../runners/extra-specs";
import type { CheckedInputs } from "./inputs";
import { canonicalLabels, liveName } from "../../runners/naming";
import type { ScaleSetOutputs } from "./state";
import { ENTITY_INPUTS, entityReplacements, sameEntity, templateChanged } from "../../runners/diff";

/** Inputs GARM can change in place, with the key its update takes (`runner_group`, not `github-runner-group`, §3.6). */
export const UPDATABLE = {
  enabled: "enabled",
  maxRunners: "max_runners",
  minIdleRunners: "min_idle_runners",
  image: "image",
  flavor: "flavor",
  osType: "os_type",
  osArch: "os_arch",
  runnerPrefix: "runner_prefix",
  runnerGroup: "runner_group",
  runnerBootstrapTimeout: "runner_bootstrap_timeout",
  extraSpecs: "extra_specs",
  templateId: "template_id",
  enableShell: "enable_shell",
} as const satisfies Record<string, keyof UpdateScaleSetParams>;
export type UpdatableField = keyof typeof UPDATABLE;

/** Inputs that only this provider reads (how to drain, whether to adopt): stored, never sent to GARM. */
const PROVIDER_OPTIONS = ["drain", "adoptExisting"] as const;

/**
 * What an omitted optional input means: GARM's default (§3.1, §4.4), so removing an input puts the default back.
 * Inputs check fills in (osType, enabled, ...) never arrive omitted; templateId's default depends on osType.
 */
export const OMITTED_MEANS = {
  runnerPrefix: "garm",
  runnerGroup: "Default",
  runnerBootstrapTimeout: 20,
  extraSpecs: {},
  enableShell: false,
} as const satisfies Partial<Record<UpdatableField, unknown>>;

function wantedValue(news: Record<string, unknown>, field: UpdatableField): unknown {
  return news[field] ?? (OMITTED_MEANS as Partial<Record<UpdatableField, unknown>>)[field];
}

/** Updatable fields whose new input, or the default it stands for when omitted, differs from what GARM holds. */
export function changedFields(olds: ScaleSetOutputs, news: object): UpdatableField[] {
  const given = news as Record<string, unknown>;
  return (Object.keys(UPDATABLE) as UpdatableField[]).filter((field) => {
    if (field === "templateId") return templateChanged(olds, given);
    const wanted = wantedValue(given, field);
    if (wanted === undefined) return false;
    if (containsUnknown(wanted)) return true;
    const held = olds[field];
    if (field === "extraSpecs") return !sameExtraSpecs(wanted, held);
    if (field === "runnerGroup" && typeof wanted === "string") {
      return wanted.toLowerCase() !== (typeof held === "string" && held !== "" ? held : "Default").toLowerCase();
    }
    return !isDeepStrictEqual(wanted, held);
  });
}

/**
 * The PUT body for the changed fields only; an omitted input sends its default; extra specs as canonical JSON (§3.7).
 * `systemTemplateId` is GARM's system template for the new osType, needed when templateId changes but is omitted.
 */
export function updateBody(news: CheckedInputs, fields: readonly UpdatableField[], systemTemplateId?: number): UpdateScaleSetParams {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    if (field === "templateId" && news.templateId === undefined) {
      if (systemTemplateId === undefined) throw new Error("updateBody: templateId is omitted and no system template id was given");
      body[UPDATABLE[field]] = systemTemplateId;
      continue;
    }
    const value = wantedValue(news as unknown as Record<string, unknown>, field);
    body[UPDATABLE[field]] = field === "extraSpecs" ? canonicalJson(parseExtraSpecs(value) ?? {}) : value;
  }
  return body as UpdateScaleSetParams;
}

function replacedFields(olds: ScaleSetOutputs, news: Record<string, unknown>): string[] {
  const replaces: string[] = [];
  const changed = (field: string, differs: () => boolean) => {
    if (containsUnknown(news[field]) || differs()) replaces.push(field);
  };
  changed("name", () => news.name !== olds.name);
  changed("naming", () => (news.naming ?? "hashed") !== (olds.naming ?? "hashed"));
  changed("providerName", () => news.providerName !== olds.providerName);
  changed("labels", () => !isDeepStrictEqual(canonicalLabels(news.labels as string[]), olds.labels));
  replaces.push(...entityReplacements(olds, news));
  return replaces;
}

/**
 * The diff: what GARM's update gets, what replaces, and the provider-side options stored. A replacement deletes the
 * old scale set first only when the new one would take the same live name under the same entity (naming "exact"),
 * because GitHub refuses two scale sets with one name in a runner group (§8).
 */
export function diffScaleSet(oldOutputs: ScaleSetOutputs, newInputs: Record<string, unknown>): PlannedDiff {
  const news = withoutProviderKey(newInputs);
  const replaces = replacedFields(oldOutputs, news);
  const updates = changedFields(oldOutputs, news);
  const optionChanges = PROVIDER_OPTIONS.filter((f) => !isDeepStrictEqual(news[f], oldOutputs[f]));
  const deleteBeforeReplace = replaces.length > 0 && replacementCollides(oldOutputs, news);
  const rename = replaces.length === 0 && renameBack(oldOutputs, news) !== undefined ? ["name"] : [];
  return plannedDiff({ olds: oldOutputs, news, replaces, updates: [...rename, ...updates, ...optionChanges], deleteBeforeReplace });
}

/**
 * The live name to rename the scale set back to when the outputs hold another one: a refresh read it renamed in GARM
 * behind Pulumi's back (state.ts isRenamedBehindPulumi). Undefined when the name the inputs give is the one held, or
 * not known yet.
 */
export function renameBack(olds: Pick<ScaleSetOutputs, "liveName">, news: Record<string, unknown>): string | undefined {
  if (typeof olds.liveName !== "string" || olds.liveName === "") return undefined;
  if ([news.name, news.labels, news.providerName, news.naming].some(containsUnknown)) return undefined;
  if (typeof news.name !== "string" || !Array.isArray(news.labels) || typeof news.providerName !== "string") return undefined;
  const wanted = liveName(news.name, news.labels as string[], news.providerName, news.naming === "exact" ? "exact" : "hashed");
  return wanted !== olds.liveName ? wanted : undefined;
}

function replacementCollides(olds: ScaleSetOutputs, news: Record<string, unknown>): boolean {
  if (!sameEntity(olds, news) && !ENTITY_INPUTS.some((f) => news[f] === UNKNOWN)) return false;
  const naming = news.naming === "exact" ? "exact" : "hashed";
  if ([news.name, news.labels, news.providerName].some(containsUnknown)) return naming === "exact";
  const next = liveName(news.name as string, news.labels as string[], news.providerName as string, naming);
  return next === olds.liveName;
}
