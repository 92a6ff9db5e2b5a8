// GarmOrganization, GarmRepository and GarmEnterprise: GARM's entities, managed from a Pulumi program. One base class;
// the three differ in their provider object and in what `name` holds.
import * as pulumi from "@pulumi/pulumi";
import type { KindKey } from "../../provider/registry/kinds";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { enterpriseProvider, organizationProvider, repositoryProvider } from "./shim";
import type { InGarmArgs } from "./garm-connection";

/** Inputs shared by the three entity kinds. Checked at `pulumi preview`. */
interface EntityArgsBase extends InGarmArgs {
  /** Name of the GARM credentials to use; pass a GarmCredentials' name output so Pulumi orders them. */
  readonly credentials: pulumi.Input<string>;
  /** Secret GitHub signs webhook deliveries with; kept as a Pulumi secret. A change updates in place. */
  readonly webhookSecret: pulumi.Input<string>;
  /** Through the garm plugin only (what `pulumi import` writes): the `garm:` stack config key holding webhookSecret. */
  readonly webhookSecretFromConfig?: pulumi.Input<string>;
  /** "roundrobin" (default) or "pack". */
  readonly poolBalancerType?: pulumi.Input<"roundrobin" | "pack">;
  /** GARM's agent mode. Defaults to false. */
  readonly agentMode?: pulumi.Input<boolean>;
  /** Manage an entity of the same name that already exists in GARM instead of failing. Defaults to false. */
  readonly adoptExisting?: pulumi.Input<boolean>;
}

interface WebhookArgs {
  /** Install GARM's webhook in GitHub (needs enable_webhook_management in GARM's config); removed on delete. Defaults to false. */
  readonly installWebhook?: pulumi.Input<boolean>;
  /** Leave the installed webhook in GitHub when the entity is deleted. Defaults to false. */
  readonly keepWebhookOnDelete?: pulumi.Input<boolean>;
  /**
   * GARM's controller webhook URL the installed webhook follows: pass a GarmController's webhookUrl output. When it
   * changes, preview shows an update of this entity, and the update makes sure GitHub's hook points at GARM's new URL.
   */
  readonly webhookUrl?: pulumi.Input<string>;
}

export interface GarmOrganizationArgs extends EntityArgsBase, WebhookArgs {
  /** GitHub organization name. Changing it replaces the organization; a change of case only updates in place. */
  readonly name: pulumi.Input<string>;
}

export interface GarmRepositoryArgs extends EntityArgsBase, WebhookArgs {
  /** GitHub repository as "owner/name". Changing it replaces the repository; a change of case only updates in place. */
  readonly name: pulumi.Input<string>;
}

export interface GarmEnterpriseArgs extends EntityArgsBase {
  /** GitHub enterprise slug. Changing it replaces the enterprise; a change of case only updates in place. */
  readonly name: pulumi.Input<string>;
}

abstract class GarmEntity extends pulumi.dynamic.Resource {
  /** GARM's id of the entity (also the Pulumi id); a GarmScaleSet takes it as entityId. */
  declare readonly entityId: pulumi.Output<string>;
  /** The name as GARM holds it; a GarmScaleSet takes it as organization, repository or enterprise. */
  declare readonly name: pulumi.Output<string>;
  declare readonly entityKind: pulumi.Output<"organization" | "repository" | "enterprise">;
  /** The GARM endpoint the entity lives under (its credentials' endpoint). */
  declare readonly endpointName: pulumi.Output<string>;
  declare readonly credentials: pulumi.Output<string>;
  declare readonly poolBalancerType: pulumi.Output<string>;
  declare readonly agentMode: pulumi.Output<boolean>;
  /** Slow salted digest (scrypt) of the webhook secret and its salt, so a rotation is seen as a change; Pulumi secrets. */
  declare readonly webhookSecretHash: pulumi.Output<string>;
  declare readonly webhookSecretSalt: pulumi.Output<string>;
  /** Whether GARM's webhook is installed in GitHub (false unless installWebhook). */
  declare readonly webhookInstalled: pulumi.Output<boolean>;
  /** Version of the state shape this resource wrote. */
  declare readonly stateVersion: pulumi.Output<number>;
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;

  protected constructor(
    provider: pulumi.dynamic.ResourceProvider,
    kind: Extract<KindKey, "organization" | "repository" | "enterprise">,
    type: string,
    name: string,
    args: EntityArgsBase & { name: pulumi.Input<string> },
    opts?: pulumi.CustomResourceOptions,
  ) {
    // The secret stays a secret in state; the provider returns only a slow salted digest of it, a secret output too.
    super(provider, name, resourceInputs(kind, args, opts), resourceOptions(kind, opts, args), "garm", type);
  }
}

export interface GarmOrganization extends InputsAsOutputs<Omit<GarmOrganizationArgs, keyof GarmEntity>> {}

export class GarmOrganization extends GarmEntity {
  constructor(name: string, args: GarmOrganizationArgs, opts?: pulumi.CustomResourceOptions) {
    super(organizationProvider, "organization", "GarmOrganization", name, args, opts);
  }
}

export interface GarmRepository extends InputsAsOutputs<Omit<GarmRepositoryArgs, keyof GarmEntity>> {}

export class GarmRepository extends GarmEntity {
  constructor(name: string, args: GarmRepositoryArgs, opts?: pulumi.CustomResourceOptions) {
    super(repositoryProvider, "repository", "GarmRepository", name, args, opts);
  }
}

export interface GarmEnterprise extends InputsAsOutputs<Omit<GarmEnterpriseArgs, keyof GarmEntity>> {}

export class GarmEnterprise extends GarmEntity {
  constructor(name: string, args: GarmEnterpriseArgs, opts?: pulumi.CustomResourceOptions) {
    super(enterpriseProvider, "enterprise", "GarmEnterprise", name, args, opts);
  }
}
