// GarmPool input rules, run by `check` during preview before anything is touched: the scale set's rules for the fields
// both share (../scaleset/check.ts), and GARM's pool create rules (params/requests.go L227-253) said before GARM says them.
import { inputIssueWords } from "../../common/input-words";
import {
  type CheckOutcome,
  type Rule,
  checkRunnerInputs,
  entityRule,
  extraSpecsRule,
  labelsRule,
  positiveRule,
  requiredTextRule,
  runnerCountsRule,
} from "../scaleset/check";
import { type PoolInputs, poolDefaults, poolInputSchema } from "./inputs";

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

/** Validates raw inputs. With no failures, returns them with defaults filled in; unknown values pass through as is. */
export function checkPoolInputs(news: Record<string, unknown>): CheckOutcome {
  return checkRunnerInputs(news, {
    knownFieldsSchema,
    issueToFailure,
    required: ["providerName", "image", "flavor", "labels", "maxRunners"],
    rules: RULES,
    withDefaults: (parsed) => poolDefaults(parsed as PoolInputs),
  });
}
