// What a GarmPool keeps in Pulumi state, and how stored outputs are read back.
import type { EntityKind, PoolView } from "../../garm/client";
import { canonicalLabels } from "../../runners/naming";
import { type ResolvedEntity, dropUndefined, entityFields, heldRunnerSettings, readDrainingOutputs } from "../../runners/state";
import { type StateStamp, stateStamp } from "../../common/state-version";
import { type Identity, isOurHolder } from "../../common/holder";
import type { CheckedPoolInputs } from "./inputs";
import type { TemplateForge } from "../../runners/templates";

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
  /** The forge of the entity's endpoint, whose system templates GARM picks from; absent in state written before it was kept. */
  forgeType?: TemplateForge;
}

export function toPoolOutputs(inputs: CheckedPoolInputs, view: PoolView, entity: ResolvedEntity): PoolOutputs {
  return dropUndefined({
    ...inputs,
    ...stateStamp(POOL_STATE_VERSION),
    poolId: view.id,
    labels: canonicalLabels(view.labels),
    ...entityFields(entity),
    ...heldRunnerSettings(view, inputs),
    priority: view.priority,
  });
}

export function readPoolOutputs(props: Record<string, unknown>): PoolOutputs {
  return readDrainingOutputs<PoolOutputs>("GarmPool", props, POOL_STATE_VERSION);
}

/** Whether GARM's pool is the one these outputs describe: the same entity and provider, which no update changes. */
export function isSamePool(outputs: PoolOutputs, view: PoolView): boolean {
  return isOurHolder(poolIdentity(outputs), poolIdentity({ entityId: view.entity?.id, providerName: view.providerName }));
}

function poolIdentity(o: { entityId?: string; providerName?: string }): Identity {
  return { entity: o.entityId?.toLowerCase(), provider: o.providerName };
}

/** "GARM's pool 4f… is under acme with provider lxd": how messages name the pool that holds an id now. */
export function describePoolHolder(view: PoolView): string {
  return `GARM's pool ${view.id} is under ${view.entityName || "another entity"} with provider ${view.providerName}`;
}

/** How messages name a stored pool: by GARM's id, or by its entity while its create is unconfirmed. */
export function poolLabel(outputs: Partial<PoolOutputs>): string {
  return outputs.poolId ? `GarmPool ${outputs.poolId}` : `GarmPool (under ${outputs.entityKind} ${outputs.entityName})`;
}

/** The properties recorded for an unconfirmed create: enough for diff (canonical labels, entity) and for settling it. */
export function unconfirmedPoolOutputs(inputs: CheckedPoolInputs, entity: ResolvedEntity): Record<string, unknown> {
  return dropUndefined({
    ...inputs,
    ...stateStamp(POOL_STATE_VERSION),
    labels: canonicalLabels(inputs.labels),
    entityKind: entity.kind,
    entityId: entity.id,
    entityName: entity.name,
    endpointName: entity.endpoint,
  });
}
