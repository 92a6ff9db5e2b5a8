// GarmScaleSet input rules, run by `check` during preview before anything is touched: the rules scale sets and pools
// share (../../runners/check.ts), and the scale set's own (its name, labels with hashed naming).
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
  runnerCountsRuleWith,
  show,
} from "../../runners/check";
import { MAX_LIVE_NAME } from "../../runners/naming";
import { type ScaleSetInputs, scaleSetInputSchema, withDefaults } from "./inputs";

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;


const nameRule: Rule<ScaleSetInputs> = ({ name, naming }, known) => {
  if (!known("name") || name === undefined) return [];
  if (name.trim() === "") return [fail("name", "name must not be empty")];
  // GARM checks only that a name is not empty (garm-behaviour.md §8): an exact name is GARM's, as a team made it; a
  // hashed one is pulumi-garm's to build, from a base that stays plain.
  if (naming !== "exact" && !NAME_PATTERN.test(name)) {
    return [fail("name", `name ${show(name)} may hold only letters, digits, ".", "_" and "-", starting with a letter or digit`)];
  }
  if (naming === "exact" && name.length > MAX_LIVE_NAME) {
    return [fail("name", `name ${show(name)} is ${name.length} characters; with naming "exact" it must be at most ${MAX_LIVE_NAME}`)];
  }
  return [];
};

const labelsRule: Rule<ScaleSetInputs> = (inputs, known) => {
  const { labels, naming } = inputs;
  if (!known("labels") || labels === undefined) return [];
  if (labels.length === 0) {
    // Without labels, runs-on can name the scale set only by its live name, and a hashed one changes every generation.
    if (!known("naming") || naming === "exact") return [];
    return [
      fail(
        "labels",
        'labels is empty; with naming "hashed" (the default) a scale set needs at least one label, because workflows could ' +
          "target it in runs-on only by its live name, which changes with every generation: add labels, or set " +
          'naming: "exact" to keep the name fixed',
      ),
    ];
  }
  return labelValuesRule(inputs, known);
};

const RULES: Rule<ScaleSetInputs>[] = [
  nameRule,
  entityRule,
  requiredTextRule("providerName"),
  requiredTextRule("image"),
  requiredTextRule("flavor"),
  requiredTextRule("runnerPrefix"),
  requiredTextRule("runnerGroup"),
  requiredTextRule("endpoint"),
  labelsRule,
  // 0 parks a scale set: GARM's update accepts it, and its create is made at 1 and then set to 0 (resource.ts, §4.1).
  runnerCountsRuleWith({ leastMax: 0 }),
  positiveRule("runnerBootstrapTimeout"),
  positiveRule("templateId"),
  extraSpecsRule,
];

/** Validates raw inputs. With no failures, returns them with defaults filled in; unknown values pass through as is. */
export function checkScaleSetInputs(news: Record<string, unknown>): CheckOutcome {
  return checkInputs(
    { schema: scaleSetInputSchema, resource: "GarmScaleSet", expected: RUNNER_EXPECTED, rules: RULES as readonly InputRule<ScaleSetInputs>[], withDefaults: (parsed) => ({ ...withDefaults(parsed as ScaleSetInputs) }) },
    news,
  );
}
