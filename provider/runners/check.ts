// The input rules scale sets and pools share, run by `check` during preview before anything is touched, and the one
// pipeline both kinds check with: types, required fields, rules, then defaults. GARM enforces most of these late, after
// it has already called GitHub, and answers 500 with no details (§4.4), or not at all.
import type { CheckOutcome, Failure } from "../common/input-check";
import { canonicalLabels } from "./naming";
import type { RunnerSettings } from "./inputs";
/** One rule over the parsed inputs; `known` is false for a field whose value is not known yet (preview). */
export type Rule<I extends RunnerSettings = RunnerSettings> = (inputs: Partial<I>, known: (field: keyof I & string) => boolean) => Failure[];

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** GARM stores tags in a varchar(64) column (§8). */
const MAX_LABEL = 64;

export const fail = (property: string, reason: string): Failure => ({ property, reason });
export const show = (value: unknown) => JSON.stringify(value);

const ENTITY_FIELDS = ["organization", "repository", "enterprise", "entityId"] as const;

export const entityRule: Rule = (inputs, known) => {
  if (!ENTITY_FIELDS.every((f) => known(f))) return [];
  const given = ENTITY_FIELDS.filter((f) => inputs[f] !== undefined);
  if (given.length !== 1) {
    const what = given.length === 0 ? "none is set" : `${given.join(" and ")} are all set`;
    return [fail(given[1] ?? "organization", `set exactly one of organization, repository, enterprise or entityId; ${what}`)];
  }
  const field = given[0];
  const value = inputs[field] as string;
  if (value.trim() === "") return [fail(field, `${field} must not be empty`)];
  if (field === "repository" && !/^[^/\s]+\/[^/\s]+$/.test(value)) {
    return [fail("repository", `repository ${show(value)} must be "owner/name"`)];
  }
  if (field === "entityId" && !UUID_PATTERN.test(value)) {
    return [fail("entityId", `entityId ${show(value)} must be a GARM entity UUID`)];
  }
  return [];
};

export const requiredTextRule =
  (field: "providerName" | "image" | "flavor" | "runnerPrefix" | "runnerGroup" | "endpoint"): Rule =>
  (inputs, known) => {
    const value = inputs[field];
    if (!known(field) || value === undefined) return [];
    return value.trim() === "" ? [fail(field, `${field} must not be empty`)] : [];
  };

/** Each label GARM can store and match, and no label twice; an empty list is each kind's own rule. */
export const labelValuesRule: Rule = ({ labels }, known) => {
  if (!known("labels") || labels === undefined) return [];
  const failures: Failure[] = [];
  labels.forEach((label, i) => {
    const trimmed = label.trim();
    if (trimmed === "") failures.push(fail(`labels[${i}]`, `labels[${i}] must not be empty`));
    else if (trimmed.length > MAX_LABEL) failures.push(fail(`labels[${i}]`, `labels[${i}] ${show(label)} is longer than ${MAX_LABEL} characters`));
    else if (/[,\s]/.test(trimmed)) failures.push(fail(`labels[${i}]`, `labels[${i}] ${show(label)} must not contain commas or spaces`));
  });
  if (canonicalLabels(labels).length !== labels.length && failures.length === 0) {
    const seen = new Map<string, string>();
    const duplicates = labels.filter((l) => {
      const key = l.trim().toLowerCase();
      const again = seen.has(key);
      seen.set(key, l);
      return again;
    });
    // GARM matches labels case-insensitively (§3.7), so "Linux" and "linux" are the same label.
    failures.push(fail("labels", `labels repeat ${duplicates.map(show).join(", ")} (labels are compared ignoring case and spaces)`));
  }
  return failures;
};

/**
 * maxRunners at least `leastMax`, minIdleRunners not negative and at most maxRunners. GARM's create refuses
 * max_runners 0 and its update accepts it (garm-behaviour.md §4.1), so a kind that can park at 0 passes `leastMax: 0`.
 */
export const runnerCountsRuleWith =
  ({ leastMax }: { readonly leastMax: 0 | 1 }): Rule =>
  ({ maxRunners, minIdleRunners }, known) => {
    const failures: Failure[] = [];
    if (known("maxRunners") && maxRunners !== undefined && maxRunners < leastMax) {
      const why = leastMax === 0 ? "it must not be negative" : "it must be at least 1";
      failures.push(fail("maxRunners", `maxRunners is ${maxRunners}; ${why}`));
    }
    if (known("minIdleRunners") && minIdleRunners !== undefined && minIdleRunners < 0) {
      failures.push(fail("minIdleRunners", `minIdleRunners is ${minIdleRunners}; it must not be negative`));
    }
    if (known("maxRunners") && known("minIdleRunners") && maxRunners !== undefined && (minIdleRunners ?? 0) > maxRunners) {
      failures.push(fail("minIdleRunners", `minIdleRunners (${minIdleRunners}) must be at most maxRunners (${maxRunners})`));
    }
    return failures;
  };

/** The counts rule for a kind whose maxRunners is at least 1 (a pool). */
export const runnerCountsRule: Rule = runnerCountsRuleWith({ leastMax: 1 });

export const positiveRule =
  (field: "runnerBootstrapTimeout" | "templateId"): Rule =>
  (inputs, known) => {
    const value = inputs[field];
    if (!known(field) || value === undefined) return [];
    return value < 1 ? [fail(field, `${field} is ${value}; it must be at least 1`)] : [];
  };

export const extraSpecsRule: Rule = ({ extraSpecs }, known) => {
  if (!known("extraSpecs") || typeof extraSpecs !== "string") return [];
  try {
    const parsed: unknown = JSON.parse(extraSpecs);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return [];
  } catch {
    return [fail("extraSpecs", `extraSpecs is ${show(extraSpecs.slice(0, 80))}, which is not valid JSON; it must be a JSON object, e.g. {"disk_size": 50}`)];
  }
  return [fail("extraSpecs", `extraSpecs is ${show(extraSpecs.slice(0, 80))}; it must be a JSON object, e.g. {"disk_size": 50}`)];
};

export type { CheckOutcome };

/** Fields whose expected value is better said in words than derived from the schema. */
export const RUNNER_EXPECTED: Readonly<Record<string, string>> = {
  labels: "a list of strings",
  extraSpecs: "an object, or a JSON string holding an object",
  drain: "an object such as { timeoutSeconds: 600 }",
};
