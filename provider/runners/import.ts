// What `pulumi import` states for a scale set or a pool GARM already holds: the runner settings as a user would write
// them, GARM's defaults left out, so the program Pulumi writes previews with no change.
import type { EntityKind } from "../garm/client";
import { type RunnerSettingsView, isObject } from "./state";
import { forgeOf, systemTemplateName } from "./templates";

type Props = Record<string, unknown>;

/** What an omitted input means for the kind (its diff's OMITTED_MEANS): the values import leaves out. */
export interface RunnerDefaultsHeld {
  readonly runnerPrefix: string;
  readonly runnerGroup: string;
  readonly runnerBootstrapTimeout: number;
}

/** The inputs behind `view`'s runner settings and entity; the kind adds its name, labels and own fields. */
export function importedRunnerSettings(
  view: RunnerSettingsView & { readonly entity?: { readonly kind: EntityKind; readonly name: string } },
  omitted: RunnerDefaultsHeld,
  what: string,
): Props {
  if (!view.entity) throw new Error(`${what} has no organization, repository or enterprise in GARM's answer, so it cannot be imported`);
  const osType = view.osType || "linux";
  return {
    [view.entity.kind]: view.entity.name,
    providerName: view.providerName,
    image: view.image,
    flavor: view.flavor,
    osType,
    osArch: view.osArch || "amd64",
    maxRunners: view.maxRunners,
    minIdleRunners: view.minIdleRunners,
    enabled: view.enabled,
    ...(view.runnerPrefix && view.runnerPrefix !== omitted.runnerPrefix ? { runnerPrefix: view.runnerPrefix } : {}),
    ...(view.runnerGroup && view.runnerGroup.toLowerCase() !== omitted.runnerGroup.toLowerCase() ? { runnerGroup: view.runnerGroup } : {}),
    ...(view.runnerBootstrapTimeout && view.runnerBootstrapTimeout !== omitted.runnerBootstrapTimeout ? { runnerBootstrapTimeout: view.runnerBootstrapTimeout } : {}),
    ...(isObject(view.extraSpecs) && Object.keys(view.extraSpecs).length > 0 ? { extraSpecs: view.extraSpecs } : {}),
    ...(view.enableShell ? { enableShell: true } : {}),
    // The system template is what an omitted templateId means; any other is named by id.
    ...(view.templateId !== undefined && view.templateName !== undefined && view.templateName !== systemTemplateName(forgeOf(view.forgeType), osType)
      ? { templateId: view.templateId }
      : {}),
  };
}
