// What an entity resource keeps in Pulumi state. The webhook secret is kept only as a salted hash: GARM never sends it
// back (params/params.go L784, json:"-"), and the hash is enough to tell a rotated secret from an unchanged one.
import { createHash, randomBytes } from "node:crypto";
import type { EntityKind, EntityView } from "../../garm/client";
import { type StateStamp, readableStateVersion, stateStamp } from "../../common/state-version";
import type { CheckedEntityInputs, PoolBalancer } from "./inputs";
import { KIND_SPECS } from "./kinds";

export const STATE_VERSION = 1;

export interface EntityOutputs extends Omit<CheckedEntityInputs, "webhookSecret">, StateStamp {
  /** GARM's id of the entity (a UUID); also the Pulumi id. */
  entityId: string;
  entityKind: EntityKind;
  /** The GARM endpoint the entity lives under, taken from its credentials at create. */
  endpointName: string;
  /** hex sha256 of salt and secret; never the secret. */
  webhookSecretHash: string;
  webhookSecretSalt: string;
  /** Whether GARM reports its webhook installed in GitHub; false when installWebhook is off. */
  webhookInstalled: boolean;
}

export function secretHash(salt: string, secret: string): string {
  return createHash("sha256").update(`${salt}\n${secret}`).digest("hex");
}

export function newSalt(): string {
  return randomBytes(16).toString("hex");
}

export function toOutputs(
  kind: EntityKind,
  inputs: CheckedEntityInputs,
  view: EntityView,
  secret: { hash: string; salt: string },
  webhookInstalled: boolean,
): EntityOutputs {
  const { webhookSecret: _never, ...kept } = inputs;
  return {
    ...kept,
    ...stateStamp(STATE_VERSION),
    entityId: view.id,
    entityKind: kind,
    name: view.name,
    credentials: view.credentials,
    endpointName: view.endpoint,
    poolBalancerType: view.poolBalancerType as PoolBalancer,
    agentMode: view.agentMode,
    webhookSecretHash: secret.hash,
    webhookSecretSalt: secret.salt,
    webhookInstalled,
  };
}

/** Reads stored outputs of any version this package wrote. Throws for state written by a newer pulumi-garm. */
export function readOutputs(kind: EntityKind, props: Record<string, unknown>): EntityOutputs {
  readableStateVersion(KIND_SPECS[kind].resource, props, STATE_VERSION);
  const { __provider: _p, webhookSecret: _s, ...rest } = props;
  return rest as unknown as EntityOutputs;
}

/** The outputs with GARM's view of the entity laid over them, as refresh stores them. */
export function withObserved(olds: EntityOutputs, view: EntityView): EntityOutputs {
  return {
    ...olds,
    name: view.name,
    credentials: view.credentials,
    endpointName: view.endpoint,
    poolBalancerType: view.poolBalancerType as PoolBalancer,
    agentMode: view.agentMode,
  };
}
