// The runner fields a pool's and a scale set's PUT share. GARM's UpdatePoolParams and UpdateScaleSetParams declare the
// same fields with the same JSON keys, except the runner group (params/requests.go L163-183, L675-697), and both
// runners check the same two limits before anything else (runner/pools.go L84-100, runner/scalesets.go L121-137).
import { type Body, optBool, optString, optUint } from "../body";
import { badRequest } from "../errors";
import { rawTopLevelValue } from "../json";

/** `extra_specs` as the raw bytes the client sent, or undefined when the key is absent (§3.7). */
export function rawExtraSpecs(raw: string, b: Body): string | undefined {
  if (!("extra_specs" in b)) return undefined;
  return rawTopLevelValue(raw, "extra_specs");
}

/** Decoded as Go decodes them: an absent pointer field is undefined, an absent string field is "" (no change). */
export interface RunnerFieldUpdates {
  readonly runnerPrefix: string;
  readonly enabled: boolean | undefined;
  readonly maxRunners: number | undefined;
  readonly minIdle: number | undefined;
  readonly bootstrapTimeout: number | undefined;
  readonly image: string;
  readonly flavor: string;
  readonly osType: string;
  readonly osArch: string;
  readonly extraSpecs: string | undefined;
  readonly enableShell: boolean | undefined;
  readonly runnerGroup: string | undefined;
  readonly templateId: number | undefined;
}

/**
 * The shared fields of an update body. `runnerGroupKey` is the one key that differs: `github-runner-group` for a
 * pool, `runner_group` for a scale set.
 */
export function runnerFieldUpdates(rawBody: string, b: Body, runnerGroupKey: "github-runner-group" | "runner_group"): RunnerFieldUpdates {
  return {
    runnerPrefix: optString(b, "runner_prefix") ?? "",
    enabled: optBool(b, "enabled"),
    maxRunners: optUint(b, "max_runners"),
    minIdle: optUint(b, "min_idle_runners"),
    bootstrapTimeout: optUint(b, "runner_bootstrap_timeout"),
    image: optString(b, "image") ?? "",
    flavor: optString(b, "flavor") ?? "",
    osType: optString(b, "os_type") ?? "",
    osArch: optString(b, "os_arch") ?? "",
    extraSpecs: rawExtraSpecs(rawBody, b),
    enableShell: optBool(b, "enable_shell"),
    runnerGroup: optString(b, runnerGroupKey),
    templateId: optUint(b, "template_id"),
  };
}

/** Refuses a 0 bootstrap timeout, and more idle runners than runners once the update is applied to `held`. */
export function checkRunnerLimits(u: RunnerFieldUpdates, held: { readonly minIdleRunners: number; readonly maxRunners: number }): void {
  if (u.bootstrapTimeout === 0) throw badRequest("runner_bootstrap_timeout cannot be 0");
  if ((u.minIdle ?? held.minIdleRunners) > (u.maxRunners ?? held.maxRunners)) throw badRequest("min_idle_runners cannot be larger than max_runners");
}
