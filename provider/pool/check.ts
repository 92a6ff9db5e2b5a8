// GarmPool input rules, run by `check` during preview before anything is touched: the scale set's rules for the fields
// both share (../scaleset/check.ts), and GARM's pool create rules (params/requests.go L227-253) said before GARM says them.
import type * as pulumi from "@pulumi/pulumi";
import { inputIssueWords } from "../input-words";
import { type Rule, entityRule, extraSpecsRule, labelsRule, positiveRule, requiredTextRule, runnerCountsRule } from "../scaleset/check";
import type { ScaleSetInputs } from "../scaleset/inputs";
import { containsUnknown, withoutProviderKey } from "../unknown";
import { type PoolInputs, poolDefaults, poolInputSchema } from "./inputs";

type Failure = pulumi.dynamic.CheckFailure;

const EXPECTED: Record<string, string> = {
  labels: "a list of strings",
  extraSpecs: "an object, or a JSON string holding an object",
  drain: "an object such as { timeoutSeconds: 600 }",
};
const issueToFailure = inputIssueWords(poolInputSchema, "GarmPoolArgs", EXPECTED);
const knownFieldsSchema = poolInputSchema.partial();

/** A pool needs a tag: GARM refuses one without ("missing tags", params/requests.go L240-242). */
const poolLabelsRule: Rule = (inputs, known) => {
  if (!known("labels") || inputs.labels === undefined) return [];
  if (inputs.labels.length === 0) return [{ property: "labels", reason: "labels is empty; a pool needs at least one label, which workflows name in runs-on" }];
  return labelsRule(inputs, known);
};

const RULES: Rule[] = [
  entityRule,
  requiredTextRule("providerName"),
  requiredTextRule("image"),
  requiredTextRule("flavor"),
  requiredTextRule("runnerPrefix"),
  requiredTextRule("endpoint"),
  poolLabelsRule,
  runnerCountsRule,
  positiveRule("runnerBootstrapTimeout"),
  positiveRule("templateId"),
  extraSpecsRule,
];

export interface PoolCheckOutcome {
  readonly inputs: Record<string, unknown>;
  readonly failures: Failure[];
}

/** Validates raw inputs. With no failures, returns them with defaults filled in; unknown values pass through as is. */
export function checkPoolInputs(news: Record<string, unknown>): PoolCheckOutcome {
  const raw = withoutProviderKey(news);
  const unknownFields = new Set(Object.keys(raw).filter((k) => containsUnknown(raw[k])));
  const known = (field: string) => !unknownFields.has(field);
  const knownOnly = Object.fromEntries(Object.entries(raw).filter(([k]) => known(k)));
  const parsed = knownFieldsSchema.safeParse(knownOnly);
  const typeFailures = parsed.success ? [] : parsed.error.issues.map((issue) => issueToFailure(issue, knownOnly));
  const required = (["providerName", "image", "flavor", "labels", "maxRunners"] as const)
    .filter((f) => known(f) && raw[f] === undefined)
    .map((f) => ({ property: f, reason: `${f} is required` }));
  if (!parsed.success || required.length > 0) return { inputs: news, failures: [...required, ...typeFailures] };
  const failures = RULES.flatMap((rule) => rule(parsed.data as Partial<ScaleSetInputs>, known));
  if (failures.length > 0) return { inputs: news, failures };
  const defaults = poolDefaults(parsed.data as PoolInputs);
  return { inputs: { ...defaults, ...Object.fromEntries([...unknownFields].map((k) => [k, raw[k]])) }, failures: [] };
}
