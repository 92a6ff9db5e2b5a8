// What an entity resource keeps in Pulumi state. The webhook secret is kept only as a slow salted digest
// (common/secret-digest.ts): GARM never sends it back (params/params.go L784, json:"-"), and the digest is enough to
// tell a rotated secret from an unchanged one.
import type { EntityKind, EntityView } from "../../garm/client";
import { type SecretDigest, digestOfVersion1 } from "../../common/secret-digest";
import { type StateStamp, readableStateVersion, stateStamp } from "../../common/state-version";
import type { CheckedEntityInputs, PoolBalancer } from "./inputs";
import { KIND_SPECS } from "./kinds";
import { recordedName, sameCredentialsName, sameEntityName } from "../../garm/names";

/** 2: webhookSecretHash is scrypt ("scrypt:…"); 1 held a bare salted sha256, read as "sha256:…". */
export const STATE_VERSION = 2;

export interface EntityOutputs extends Omit<CheckedEntityInputs, "webhookSecret">, StateStamp {
  /** GARM's id of the entity (a UUID); also the Pulumi id. */
  entityId: string;
  entityKind: EntityKind;
  /** The GARM endpoint the entity lives under, taken from its credentials at create. */
  endpointName: string;
  /** The secret's digest under webhookSecretSalt (common/secret-digest.ts); never the secret. */
  webhookSecretHash: string;
  webhookSecretSalt: string;
  /** Whether GARM reports its webhook installed in GitHub; false when installWebhook is off. */
  webhookInstalled: boolean;
}

/** The stored digest of the webhook secret. */
export const storedSecret = (olds: EntityOutputs): SecretDigest => ({ salt: olds.webhookSecretSalt ?? "", digest: olds.webhookSecretHash ?? "" });

export function toOutputs(
  kind: EntityKind,
  inputs: CheckedEntityInputs,
  view: EntityView,
  secret: SecretDigest,
  webhookInstalled: boolean,
): EntityOutputs {
  const { webhookSecret: _never, ...kept } = inputs;
  return {
    ...kept,
    ...stateStamp(STATE_VERSION),
    entityId: view.id,
    entityKind: kind,
    name: recordedName(sameEntityName, inputs.name, view.name),
    credentials: recordedName(sameCredentialsName, inputs.credentials, view.credentials),
    endpointName: view.endpoint,
    poolBalancerType: view.poolBalancerType as PoolBalancer,
    agentMode: view.agentMode,
    webhookSecretHash: secret.digest,
    webhookSecretSalt: secret.salt,
    webhookInstalled,
  };
}

/** Reads stored outputs of any version this package wrote. Throws for state written by a newer pulumi-garm. */
export function readOutputs(kind: EntityKind, props: Record<string, unknown>): EntityOutputs {
  const version = readableStateVersion(KIND_SPECS[kind].resource, props, STATE_VERSION);
  const { __provider: _p, webhookSecret: _s, ...rest } = props;
  const outputs = rest as unknown as EntityOutputs;
  if (version >= STATE_VERSION) return outputs;
  return { ...outputs, ...stateStamp(STATE_VERSION), webhookSecretHash: digestOfVersion1(outputs.webhookSecretHash ?? "") };
}

/** The outputs with GARM's view of the entity laid over them, as refresh stores them. */
export function withObserved(olds: EntityOutputs, view: EntityView): EntityOutputs {
  return {
    ...olds,
    name: recordedName(sameEntityName, olds.name, view.name),
    credentials: recordedName(sameCredentialsName, olds.credentials, view.credentials),
    endpointName: view.endpoint,
    poolBalancerType: view.poolBalancerType as PoolBalancer,
    agentMode: view.agentMode,
  };
}
