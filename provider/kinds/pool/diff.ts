// Decides what an input change does to a GarmPool. GARM's pool update takes every field but the provider and the
// entity (params/requests.go L163-183, database/sql/util.go L580-689), tags included, so only those two replace; a
// replacement brings the new pool up before the old one is drained (pools have no unique name to collide on). An
// image, flavor, OS, extra specs, shell or runner group change bumps the pool's generation in place, and GARM's pool
// manager then replaces idle runners of the older generation itself.
import { isDeepStrictEqual } from "node:util";
import type { UpdatePoolParams } from "../../garm/client";
import { canonicalJson, parseExtraSpecs, sameExtraSpecs } from "../../runners/extra-specs";
import { canonicalLabels } from "../../runners/naming";
import { entityReplacements, templateChanged } from "../../runners/diff";
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { type PlannedDiff, plannedDiff } from "../../common/planned-diff";
import type { CheckedPoolInputs } from "./inputs";
import type { PoolOutputs } from "./state";

/** Inputs GARM changes in place, with the key its update takes (`github-runner-group` on update too, unlike scale sets). */
export const POOL_UPDATABLE = {
  enabled: "enabled",
  maxRunners: "max_runners",
  minIdleRunners: "min_idle_runners",
  image: "image",
  flavor: "flavor",
  osType: "os_type",
  osArch: "os_arch",
  labels: "tags",
  runnerPrefix: "runner_prefix",
  runnerGroup: "github-runner-group",
  runnerBootstrapTimeout: "runner_bootstrap_timeout",
  extraSpecs: "extra_specs",
  templateId: "template_id",
  enableShell: "enable_shell",
  priority: "priority",
} as const satisfies Record<string, keyof UpdatePoolParams>;
export type PoolUpdatableField = keyof typeof POOL_UPDATABLE;

/** What an omitted optional input means: GARM's default, so removing an input puts the default back. */
export const OMITTED_MEANS = {
  runnerPrefix: "garm",
  runnerGroup: "",
  runnerBootstrapTimeout: 20,
  extraSpecs: {},
  enableShell: false,
  priority: 0,
} as const satisfies Partial<Record<PoolUpdatableField, unknown>>;

/** Updatable fields whose new input, or the default it stands for when omitted, differs from what GARM holds. */
export function changedPoolFields(olds: PoolOutputs, news: Record<string, unknown>): PoolUpdatableField[] {
  return (Object.keys(POOL_UPDATABLE) as PoolUpdatableField[]).filter((field) => {
    if (field === "templateId") return templateChanged(olds, news);
    const wanted = news[field] ?? (OMITTED_MEANS as Partial<Record<PoolUpdatableField, unknown>>)[field];
    if (wanted === undefined) return false;
    if (containsUnknown(wanted)) return true;
    const held = olds[field];
    if (field === "extraSpecs") return !sameExtraSpecs(wanted, held);
    if (field === "labels") return canonicalLabels(wanted as string[]).join("\n") !== canonicalLabels((held as string[]) ?? []).join("\n");
    return wanted !== held;
  });
}

/** The diff: what GARM's update gets, what replaces (the entity, the provider), and the provider-side options stored. */
export function diffPool(olds: PoolOutputs, newProps: Record<string, unknown>): PlannedDiff {
  const news = withoutProviderKey(newProps);
  const replaces = [...entityReplacements(olds, news), ...(news.providerName !== olds.providerName ? ["providerName"] : [])];
  const options = (["drain", "adoptPoolId"] as const).filter((f) => !isDeepStrictEqual(news[f], olds[f]));
  const updates = [...changedPoolFields(olds, news), ...options];
  return plannedDiff({ olds, news, replaces, updates, stables: replaces.length ? [] : ["poolId"] });
}

/** The PUT body for the changed fields only; an omitted templateId sends `systemTemplate`. */
export function poolUpdateBody(news: CheckedPoolInputs, fields: readonly PoolUpdatableField[], systemTemplate?: number): UpdatePoolParams {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const value = (news as unknown as Record<string, unknown>)[field] ?? (OMITTED_MEANS as Partial<Record<PoolUpdatableField, unknown>>)[field];
    if (field === "extraSpecs") body.extra_specs = canonicalJson(parseExtraSpecs(value) ?? {});
    else if (field === "labels") body.tags = [...new Set((value as string[]).map((l) => l.trim()))];
    else if (field === "templateId") body.template_id = value ?? systemTemplate;
    else body[POOL_UPDATABLE[field]] = value;
  }
  return body as UpdatePoolParams;
}
