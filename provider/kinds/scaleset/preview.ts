// What a scale set's outputs will be, known before GARM is asked: the live name and the labels are pure functions of
// the inputs, so `pulumi preview` can show them (and what depends on them) instead of [unknown].
import { canonicalLabels, liveName } from "../../runners/naming";
import { containsUnknown } from "../../common/unknown";
import type { CheckedInputs } from "./inputs";

/** The deterministic outputs; one whose inputs are not known yet during preview is left out (so stays unknown). */
export function scaleSetPreview(props: Record<string, unknown>): Record<string, unknown> {
  const inputs = props as unknown as CheckedInputs;
  const known: Record<string, unknown> = {};
  if (!containsUnknown([inputs.labels])) known.labels = canonicalLabels(inputs.labels);
  if (!containsUnknown([inputs.name, inputs.labels, inputs.providerName, inputs.naming])) {
    known.liveName = liveName(inputs.name, inputs.labels, inputs.providerName, inputs.naming);
  }
  return known;
}
