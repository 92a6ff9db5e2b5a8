// GarmPool: one GARM classic pool, managed from a Pulumi program.
import * as pulumi from "@pulumi/pulumi";
import { poolProvider } from "./shim";

/** Inputs of a GarmPool. Checked at `pulumi preview`. */
export interface GarmPoolArgs {
  /** GitHub organization (a GARM entity) that owns the pool; set one of organization, repository, enterprise or entityId. */
  readonly organization?: pulumi.Input<string>;
  /** GitHub repository as owner/name. */
  readonly repository?: pulumi.Input<string>;
  /** GitHub enterprise. */
  readonly enterprise?: pulumi.Input<string>;
  /** GARM id (UUID) of the organization, repository or enterprise. */
  readonly entityId?: pulumi.Input<string>;
  /** GARM endpoint name the entity lives under; needed only when a name is ambiguous. */
  readonly endpoint?: pulumi.Input<string>;
  /** GARM provider that creates the runners; pass a GarmProvider's name output. Changing it replaces the pool. */
  readonly providerName: pulumi.Input<string>;
  readonly image: pulumi.Input<string>;
  readonly flavor: pulumi.Input<string>;
  /** "linux" (default) or "windows". */
  readonly osType?: pulumi.Input<string>;
  /** "amd64" (default), "arm64", "arm" or "386". */
  readonly osArch?: pulumi.Input<string>;
  /** Labels (GARM's tags) workflows target in runs-on; at least one. Changes in place. */
  readonly labels: pulumi.Input<pulumi.Input<string>[]>;
  /** Most runners at once; at least 1. */
  readonly maxRunners: pulumi.Input<number>;
  /** Idle runners kept ready; at most maxRunners. Defaults to 0. */
  readonly minIdleRunners?: pulumi.Input<number>;
  /** Defaults to true. */
  readonly enabled?: pulumi.Input<boolean>;
  /** Prefix of runner names. Defaults to "garm". */
  readonly runnerPrefix?: pulumi.Input<string>;
  /** GitHub runner group. Defaults to none. */
  readonly runnerGroup?: pulumi.Input<string>;
  /** Minutes a runner may take to come up. Defaults to 20. */
  readonly runnerBootstrapTimeout?: pulumi.Input<number>;
  /** Provider-specific extra specs: an object, or a JSON string holding one. */
  readonly extraSpecs?: pulumi.Input<Record<string, unknown> | string>;
  /** GARM runner install template id (a GarmTemplate's templateId). Defaults to GARM's system template for osType. */
  readonly templateId?: pulumi.Input<number>;
  /** When several pools match a job, the higher priority gets it. Defaults to 0. */
  readonly priority?: pulumi.Input<number>;
  /** Allow GARM's agent shell on the runners. Defaults to false. */
  readonly enableShell?: pulumi.Input<boolean>;
  /** How a delete drains runners: { timeoutSeconds, pollSeconds, jobStaleAfterHours }. */
  readonly drain?: pulumi.Input<{ timeoutSeconds?: pulumi.Input<number>; pollSeconds?: pulumi.Input<number>; jobStaleAfterHours?: pulumi.Input<number> }>;
  /** GARM id of an existing pool to manage from now on instead of creating one. */
  readonly adoptPoolId?: pulumi.Input<string>;
}

export class GarmPool extends pulumi.dynamic.Resource {
  /** GARM's id of the pool; also the resource id. */
  declare readonly poolId: pulumi.Output<string>;
  /** Labels as GARM holds them: trimmed, lower-cased, sorted. */
  declare readonly labels: pulumi.Output<string[]>;
  declare readonly enabled: pulumi.Output<boolean>;
  declare readonly entityKind: pulumi.Output<string>;
  declare readonly entityId: pulumi.Output<string>;
  declare readonly entityName: pulumi.Output<string>;
  declare readonly templateId: pulumi.Output<number>;
  /** Version of the state shape this resource wrote. */
  declare readonly stateVersion: pulumi.Output<number>;

  constructor(name: string, args: GarmPoolArgs, opts?: pulumi.CustomResourceOptions) {
    super(poolProvider, name, { poolId: undefined, entityKind: undefined, entityName: undefined, stateVersion: undefined, ...args }, opts, "garm", "GarmPool");
  }
}
