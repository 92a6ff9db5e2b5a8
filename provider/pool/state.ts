// What a GarmPool keeps in Pulumi state, and how stored outputs are read back.
import type { EntityKind, PoolView } from "../garm/client";
import { DRAIN_DEFAULTS } from "../drain/options";
import { canonicalLabels } from "../scaleset/naming";
import { type ResolvedEntity, dropUndefined, isObject } from "../scaleset/state";
import { type StateStamp, readableStateVersion, stateStamp } from "../state-version";
import type { CheckedPoolInputs } from "./inputs";

export const POOL_STATE_VERSION = 1;

/** Outputs: the inputs, overlaid with the pool as GARM holds it. */
export interface PoolOutputs extends CheckedPoolInputs, StateStamp {
  /** GARM's id (a UUID); also the Pulumi id. */
  poolId: string;
  /** Canonical labels (lower-cased, sorted). */
  labels: string[];
  entityKind: EntityKind;
  entityId: string;
  entityName: string;
  endpointName: string;
  runnerPrefix: string;
  runnerGroup: string;
  runnerBootstrapTimeout: number;
  enableShell: boolean;
  priority: number;
  extraSpecs?: Record<string, unknown>;
  templateId?: number;
  templateName?: string;
}

export function toPoolOutputs(inputs: CheckedPoolInputs, view: PoolView, entity: ResolvedEntity): PoolOutputs {
  return dropUndefined({
    ...inputs,
    ...stateStamp(POOL_STATE_VERSION),
    poolId: view.id,
    labels: canonicalLabels(view.labels),
    entityKind: entity.kind,
    entityId: entity.id,
    entityName: entity.name,
    endpointName: entity.endpoint,
    providerName: view.providerName,
    image: view.image,
    flavor: view.flavor,
    osType: (view.osType || inputs.osType) as CheckedPoolInputs["osType"],
    osArch: (view.osArch || inputs.osArch) as CheckedPoolInputs["osArch"],
    maxRunners: view.maxRunners,
    minIdleRunners: view.minIdleRunners,
    enabled: view.enabled,
    runnerPrefix: view.runnerPrefix,
    runnerGroup: view.runnerGroup,
    runnerBootstrapTimeout: view.runnerBootstrapTimeout,
    enableShell: view.enableShell,
    priority: view.priority,
    extraSpecs: isObject(view.extraSpecs) ? view.extraSpecs : undefined,
    templateId: view.templateId,
    templateName: view.templateName,
  });
}

export function readPoolOutputs(props: Record<string, unknown>): PoolOutputs {
  readableStateVersion("GarmPool", props, POOL_STATE_VERSION);
  const outputs = props as unknown as PoolOutputs;
  return { ...outputs, drain: { ...DRAIN_DEFAULTS, ...outputs.drain } };
}

export function storedPoolEntity(outputs: PoolOutputs): ResolvedEntity {
  return { kind: outputs.entityKind, id: outputs.entityId, name: outputs.entityName, endpoint: outputs.endpointName };
}

/** Whether GARM's pool is the one these outputs describe: the same entity and provider, which no update changes. */
export function isSamePool(outputs: PoolOutputs, view: PoolView): boolean {
  const sameEntity = !outputs.entityId || view.entity?.id.toLowerCase() === outputs.entityId.toLowerCase();
  return sameEntity && view.providerName === outputs.providerName;
}
