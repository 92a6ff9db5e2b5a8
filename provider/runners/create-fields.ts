// The create fields scale sets and pools share, in GARM's keys.
import { canonicalJson, parseExtraSpecs } from "./extra-specs";
import type { CheckedRunnerSettings } from "./inputs";

/**
 * The shared create fields, undefined ones left out. Both creates take the runner group as `github-runner-group`
 * (§3.5); the labels go under `tags`, the pool's name for them (a scale set's create renames them).
 */
export function runnerCreateFields(inputs: CheckedRunnerSettings): Record<string, unknown> {
  const body: Record<string, unknown> = {
    provider_name: inputs.providerName,
    image: inputs.image,
    flavor: inputs.flavor,
    os_type: inputs.osType,
    os_arch: inputs.osArch,
    tags: [...new Set(inputs.labels.map((l) => l.trim()))],
    max_runners: inputs.maxRunners,
    min_idle_runners: inputs.minIdleRunners,
    enabled: inputs.enabled,
    enable_shell: inputs.enableShell ?? false,
    runner_prefix: inputs.runnerPrefix,
    "github-runner-group": inputs.runnerGroup,
    runner_bootstrap_timeout: inputs.runnerBootstrapTimeout,
    template_id: inputs.templateId,
  };
  const specs = parseExtraSpecs(inputs.extraSpecs);
  if (specs) body.extra_specs = canonicalJson(specs);
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}
