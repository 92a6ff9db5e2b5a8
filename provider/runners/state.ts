// What scale sets and pools alike keep in Pulumi state: the entity create resolved, the runner settings GARM holds,
// and how stored outputs of a resource that drains are read back.
import type { EntityKind, ScaleSetView } from "../garm/client";
import { readableStateVersion } from "../common/state-version";
import { DRAIN_DEFAULTS, type DrainOptions } from "./drain/options";
import type { CheckedRunnerSettings } from "./inputs";
import { forgeOf } from "./templates";

export interface ResolvedEntity {
  readonly kind: EntityKind;
  readonly id: string;
  readonly name: string;
  /** GARM endpoint name, e.g. github.com. */
  readonly endpoint: string;
}

/** The runner settings view fields a scale set and a pool have alike. */
export type RunnerSettingsView = Omit<ScaleSetView, "id" | "name" | "githubScaleSetId" | "labels" | "instances" | "entity" | "endpoint" | "desiredRunnerCount">;

/** What GARM holds for a scale set or a pool alike: how its runners are made. OS and arch fall back to the inputs. */
export function heldRunnerSettings(view: RunnerSettingsView, inputs: Pick<CheckedRunnerSettings, "osType" | "osArch">) {
  return {
    providerName: view.providerName,
    image: view.image,
    flavor: view.flavor,
    osType: (view.osType || inputs.osType) as CheckedRunnerSettings["osType"],
    osArch: (view.osArch || inputs.osArch) as CheckedRunnerSettings["osArch"],
    maxRunners: view.maxRunners,
    minIdleRunners: view.minIdleRunners,
    enabled: view.enabled,
    runnerPrefix: view.runnerPrefix,
    runnerGroup: view.runnerGroup,
    runnerBootstrapTimeout: view.runnerBootstrapTimeout,
    enableShell: view.enableShell,
    extraSpecs: isObject(view.extraSpecs) ? view.extraSpecs : undefined,
    templateId: view.templateId,
    templateName: view.templateName,
    // GARM gives the system template of this forge when templateId is omitted; entity lists do not say (forgeOf).
    forgeType: view.forgeType ? forgeOf(view.forgeType) : undefined,
  };
}

/** Stored outputs of a resource that drains (a scale set, a pool), with the drain defaults filled in. */
export function readDrainingOutputs<T extends { drain: DrainOptions }>(resource: string, props: Record<string, unknown>, newest: number): T {
  readableStateVersion(resource, props, newest);
  const outputs = props as unknown as T;
  return { ...outputs, drain: { ...DRAIN_DEFAULTS, ...outputs.drain } };
}

/** The stored fields that say which entity a scale set or pool belongs to. */
export interface StoredEntityFields {
  entityKind: EntityKind;
  entityId: string;
  entityName: string;
  endpointName: string;
}

/** The entity a stored scale set or pool belongs to, as create resolved it. */
export function storedEntity(outputs: StoredEntityFields): ResolvedEntity {
  return { kind: outputs.entityKind, id: outputs.entityId, name: outputs.entityName, endpoint: outputs.endpointName };
}

/** The stored fields of `entity`. */
export function entityFields(entity: ResolvedEntity): StoredEntityFields {
  return { entityKind: entity.kind, entityId: entity.id, entityName: entity.name, endpointName: entity.endpoint };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Pulumi's Struct marshalling rejects undefined values; leave the keys out instead. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
