// GarmScaleSet: a GARM scale set managed from a Pulumi program.
import * as pulumi from "@pulumi/pulumi";
import type { RunnerSettingsArgs } from "./runner-args";
import { kindRow } from "../../provider/registry/kinds";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { providerFor } from "./shim";

/** Inputs of a GarmScaleSet. Field rules and defaults are checked at `pulumi preview`. */
export interface GarmScaleSetArgs extends RunnerSettingsArgs {
  /** Scale-set name; the live name adds a hash of labels and provider unless naming is "exact". */
  readonly name: pulumi.Input<string>;
  /** Labels workflows target in `runs-on`. Changing them replaces the scale set, new generation first. */
  readonly labels: pulumi.Input<pulumi.Input<string>[]>;
  /** "hashed" (default) appends the generation hash to the name; "exact" uses the name as is. */
  readonly naming?: pulumi.Input<"hashed" | "exact">;
  /** Manage an existing scale set with the same live name instead of failing. Defaults to false. */
  readonly adoptExisting?: pulumi.Input<boolean>;
}

/** The outputs a program may read, each passed as a placeholder; the whole-CLI bench gives its same-shape no-op the same keys. */
export const SCALE_SET_OUTPUT_PLACEHOLDERS = kindRow("scaleSet").outputs;

// Every input comes back as an output of the same name (the registry lists them all; each is passed as a placeholder).
export interface GarmScaleSet extends InputsAsOutputs<GarmScaleSetArgs> {}

export class GarmScaleSet extends pulumi.dynamic.Resource {
  /** GARM's id of the scale set (also the Pulumi id). */
  declare readonly scaleSetId: pulumi.Output<number>;
  /** The name GARM and GitHub see, e.g. "ci-small-1a2b3c4d". */
  declare readonly liveName: pulumi.Output<string>;
  /** Labels as GARM holds them: trimmed, lower-cased, sorted. */
  declare readonly labels: pulumi.Output<string[]>;
  /** Whether GARM runs the scale set. */
  declare readonly enabled: pulumi.Output<boolean>;
  /** GitHub's id of the scale set; GARM may change it when it re-creates the GitHub side. */
  declare readonly githubScaleSetId: pulumi.Output<number>;
  /** Version of the state shape this resource wrote. */
  declare readonly stateVersion: pulumi.Output<number>;
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;
  declare readonly providerName: pulumi.Output<string>;
  declare readonly entityKind: pulumi.Output<"organization" | "repository" | "enterprise">;
  declare readonly entityId: pulumi.Output<string>;
  declare readonly entityName: pulumi.Output<string>;
  declare readonly maxRunners: pulumi.Output<number>;
  declare readonly minIdleRunners: pulumi.Output<number>;
  declare readonly runnerPrefix: pulumi.Output<string>;
  declare readonly runnerGroup: pulumi.Output<string>;
  /** The GARM endpoint of the owning entity. */
  declare readonly endpointName: pulumi.Output<string>;

  constructor(name: string, args: GarmScaleSetArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerFor("scaleSet"), name, resourceInputs("scaleSet", args, opts), resourceOptions("scaleSet", opts, args), "garm", "GarmScaleSet");
  }
}
