// What `pulumi import` states for a scale set or a pool GARM already holds: the runner settings as a user would write
// them, GARM's defaults left out, so the program Pulumi writes previews with no change.
import type { EntityKind } from "../garm/client";
import { type RunnerSettingsView, isObject } from "./state";
import { forgeOf, systemTemplateName } from "./templates";
import { type LookupSource, lookupsFor } from "../garm/lookups";

type Props = Record<string, unknown>;

/** What an omitted input means for the kind (its diff's OMITTED_MEANS): the values import leaves out. */
export interface RunnerDefaultsHeld {
  readonly runnerPrefix: string;
  readonly runnerGroup: string;
  readonly runnerBootstrapTimeout: number;
}

/** Whether `value` holds a JSON null anywhere. */
function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(holdsNull);
  return isObject(value) && Object.values(value).some(holdsNull);
}

/**
 * Extra specs as the inputs state them: the object, or, where it holds a null (`{"a": null}`), the JSON string of it.
 * Pulumi's YAML codegen leaves a null out of the program `pulumi import` writes (`{a: null}` becomes `{}`), which would
 * then preview a change; a string keeps it, and the diff compares extra specs parsed. (GARM's whole `extra_specs: null`
 * is no extra specs, left out.)
 */
function importedExtraSpecs(specs: Record<string, unknown>): Record<string, unknown> | string {
  return holdsNull(specs) ? JSON.stringify(specs) : specs;
}

/** The inputs behind `view`'s runner settings and entity; the kind adds its name, labels and own fields. */
export function importedRunnerSettings(
  view: RunnerSettingsView & { readonly entity?: { readonly kind: EntityKind; readonly name: string } },
  omitted: RunnerDefaultsHeld,
  what: string,
  /** The entity's endpoint, given where another endpoint holds an entity of that kind and name: the inputs name it. */
  ambiguousUnder?: string,
): Props {
  if (!view.entity) throw new Error(`${what} has no organization, repository or enterprise in GARM's answer, so it cannot be imported`);
  const osType = view.osType || "linux";
  return {
    [view.entity.kind]: view.entity.name,
    ...(ambiguousUnder !== undefined ? { endpoint: ambiguousUnder } : {}),
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
    ...(isObject(view.extraSpecs) && Object.keys(view.extraSpecs).length > 0 ? { extraSpecs: importedExtraSpecs(view.extraSpecs) } : {}),
    ...(view.enableShell ? { enableShell: true } : {}),
    // The system template is what an omitted templateId means; any other is named by id.
    ...(view.templateId !== undefined && view.templateName !== undefined && view.templateName !== systemTemplateName(forgeOf(view.forgeType), osType)
      ? { templateId: view.templateId }
      : {}),
  };
}

/**
 * The entity's endpoint where the inputs must name it: another endpoint holds an entity of the same kind and name, so
 * the name alone would be refused as ambiguous. One list of the kind's entities of that name.
 */
export async function endpointIfAmbiguous(client: Pick<LookupSource, "findEntities">, entity: { readonly kind: EntityKind; readonly name: string }, endpoint: string): Promise<string | undefined> {
  const found = await lookupsFor(client as LookupSource).findEntities(entity.kind, entity.name);
  return found.length > 1 ? endpoint : undefined;
}
