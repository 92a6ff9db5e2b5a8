// One seed of the fault campaign: generate, run, and on a violation shorten the sequence by dropping steps while the
// same invariant still fails, so the report carries the seed and a shortest replay found.
import { type Step, generate } from "./plan";
import { type RunResult, runSteps } from "./run";

export interface SeedOutcome {
  readonly seed: number;
  readonly steps: Step[];
  readonly result: RunResult;
  /** The shortened failing sequence, when the seed failed and shortening was asked for. */
  readonly shortest?: { readonly steps: Step[]; readonly result: RunResult; readonly runs: number };
}

/** Drops one step at a time, last first, keeping each drop after which the same invariant still fails. */
export async function shorten(steps: Step[], failing: RunResult, maxRuns: number): Promise<{ steps: Step[]; result: RunResult; runs: number }> {
  let best = { steps, result: failing };
  let runs = 0;
  for (let i = best.steps.length - 1; i >= 0 && runs < maxRuns; i--) {
    const candidate = best.steps.filter((_, j) => j !== i);
    if (candidate.length === 0) continue;
    runs++;
    const result = await runSteps(candidate);
    if (result.violation?.invariant === failing.violation?.invariant) best = { steps: candidate, result };
  }
  return { ...best, runs };
}

export async function runSeed(seed: number, length: number, opts: { shortenRuns?: number } = {}): Promise<SeedOutcome> {
  const steps = generate(seed, length);
  const result = await runSteps(steps);
  if (!result.violation || !opts.shortenRuns) return { seed, steps, result };
  return { seed, steps, result, shortest: await shorten(steps, result, opts.shortenRuns) };
}

/** What a failing seed prints: the seed, the violation, and a replay of the shortest sequence found. */
export function failureReport(outcome: SeedOutcome): string {
  const { steps, result } = outcome.shortest ?? outcome;
  const v = result.violation;
  return [
    `chaos seed ${outcome.seed} failed at step ${v?.step}: ${v?.invariant}: ${v?.detail}`,
    `shortest replay (${steps.length} of ${outcome.steps.length} steps): REPLAY='${JSON.stringify(steps)}' make chaos`,
    ...result.trace.map((l) => `  ${l}`),
  ].join("\n");
}
