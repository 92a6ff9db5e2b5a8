// GarmPool input rules, run by `check` during preview before anything is touched: the rules scale sets and pools share
// (../../runners/check.ts), and GARM's pool create rules (params/requests.go L227-253) said before GARM says them.
import { type InputRule, checkInputs } from "../../common/input-check";
import {
  type CheckOutcome,
  RUNNER_EXPECTED,
  type Rule,
  entityRule,
  extraSpecsRule,
  fail,
  labelValuesRule,
  positiveRule,
  requiredTextRule,
  runnerCountsRule,
} from "../../runners/check";
import { type PoolInputs, poolDefaults, poolInputSchema } from "./inputs";


/** A pool needs a tag: GARM refuses one without ("missing tags", params/requests.go L240-242). */
const poolLabelsRule: Rule<PoolInputs> = (inputs, known) => {
  if (!known("labels") || inputs.labels === undefined) return [];
  if (inputs.labels.length === 0) return [fail("labels", "labels is empty; a pool needs at least one label, which workflows name in runs-on")];
  return labelValuesRule(inputs, known);
};

const RULES: Rule<PoolInputs>[] = [
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
  return checkInputs(
    { schema: poolInputSchema, resource: "GarmPool", expected: RUNNER_EXPECTED, rules: RULES as readonly InputRule<PoolInputs>[], withDefaults: (parsed) => ({ ...poolDefaults(parsed as PoolInputs) }) },
    news,
  );
}
