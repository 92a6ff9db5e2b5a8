// GarmPool: one GARM classic pool, managed from a Pulumi program.
import * as pulumi from "@pulumi/pulumi";
import type { RunnerSettingsArgs } from "./runner-args";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { poolProvider } from "./shim";

/** Inputs of a GarmPool. Checked at `pulumi preview`. */
export interface GarmPoolArgs extends RunnerSettingsArgs {
  /** Labels (GARM's tags) workflows target in runs-on; at least one. Changes in place. */
  readonly labels: pulumi.Input<pulumi.Input<string>[]>;
  /** When several pools match a job, the higher priority gets it. Defaults to 0. */
  readonly priority?: pulumi.Input<number>;
  /** GARM id of an existing pool to manage from now on instead of creating one. */
  readonly adoptPoolId?: pulumi.Input<string>;
}

// Every input comes back as an output of the same name (the registry lists them all; each is passed as a placeholder).
export interface GarmPool extends InputsAsOutputs<GarmPoolArgs> {}

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
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;

  constructor(name: string, args: GarmPoolArgs, opts?: pulumi.CustomResourceOptions) {
    super(poolProvider, name, resourceInputs("pool", args, opts), resourceOptions("pool", opts, args), "garm", "GarmPool");
  }
}
