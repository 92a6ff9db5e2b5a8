// GarmScaleSet: a GARM scale set managed from a Pulumi program.
import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "./shim";

/** Inputs of a GarmScaleSet. Field rules and defaults are checked at `pulumi preview`. */
export interface GarmScaleSetArgs {
  /** Scale-set name; the live name adds a hash of labels and provider unless naming is "exact". */
  readonly name: pulumi.Input<string>;
  /** GitHub organization (a GARM entity). Set exactly one of organization, repository, enterprise, entityId. */
  readonly organization?: pulumi.Input<string>;
  /** GitHub repository as "owner/name" (a GARM entity). */
  readonly repository?: pulumi.Input<string>;
  /** GitHub enterprise (a GARM entity). */
  readonly enterprise?: pulumi.Input<string>;
  /** GARM id (UUID) of the organization, repository or enterprise. */
  readonly entityId?: pulumi.Input<string>;
  /** GARM endpoint name of the entity, e.g. "github.com"; needed only when a name exists under several endpoints. */
  readonly endpoint?: pulumi.Input<string>;
  /** GARM provider creating the runners. Pass a GarmProvider's `name` output so Pulumi deletes scale sets first. */
  readonly providerName: pulumi.Input<string>;
  /** Provider image for the runners. */
  readonly image: pulumi.Input<string>;
  /** Provider flavor (size) for the runners. */
  readonly flavor: pulumi.Input<string>;
  /** "linux" or "windows". Defaults to "linux". */
  readonly osType?: pulumi.Input<"linux" | "windows">;
  /** "amd64", "arm64", "arm" or "386". Defaults to "amd64". */
  readonly osArch?: pulumi.Input<"amd64" | "arm64" | "arm" | "386">;
  /** Labels workflows target in `runs-on`. Changing them replaces the scale set, new generation first. */
  readonly labels: pulumi.Input<pulumi.Input<string>[]>;
  /** Most runners at once; at least 1. */
  readonly maxRunners: pulumi.Input<number>;
  /** Idle runners kept ready; at most maxRunners. Defaults to 0. */
  readonly minIdleRunners?: pulumi.Input<number>;
  /** Whether GARM runs the scale set. Defaults to true. */
  readonly enabled?: pulumi.Input<boolean>;
  /** Prefix of runner names. Defaults to GARM's "garm". */
  readonly runnerPrefix?: pulumi.Input<string>;
  /** GitHub runner group. Defaults to GARM's "Default". */
  readonly runnerGroup?: pulumi.Input<string>;
  /** Minutes a runner may take to come up. Defaults to GARM's 20. */
  readonly runnerBootstrapTimeout?: pulumi.Input<number>;
  /** Provider-specific extra specs: an object, or a JSON string holding one. */
  readonly extraSpecs?: pulumi.Input<Record<string, unknown> | string>;
  /** GARM runner install template id. Defaults to GARM's system template for osType. */
  readonly templateId?: pulumi.Input<number>;
  /** Allow GARM's agent shell on the runners. Defaults to false. */
  readonly enableShell?: pulumi.Input<boolean>;
  /** "hashed" (default) appends the generation hash to the name; "exact" uses the name as is. */
  readonly naming?: pulumi.Input<"hashed" | "exact">;
  /** How a delete drains runners. */
  readonly drain?: pulumi.Input<{
    /** Seconds a delete waits for busy runners before failing; Pulumi retries on the next run. Defaults to 600. */
    timeoutSeconds?: pulumi.Input<number>;
    /** Seconds between drain checks. Defaults to 5. */
    pollSeconds?: pulumi.Input<number>;
    /** A job older than this no longer holds its runner. Defaults to 120 (GitHub's 5-day job limit). */
    jobStaleAfterHours?: pulumi.Input<number>;
  }>;
  /** Manage an existing scale set with the same live name instead of failing. Defaults to false. */
  readonly adoptExisting?: pulumi.Input<boolean>;
}

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
  declare readonly providerName: pulumi.Output<string>;
  declare readonly entityKind: pulumi.Output<"organization" | "repository" | "enterprise">;
  declare readonly entityId: pulumi.Output<string>;
  declare readonly entityName: pulumi.Output<string>;
  declare readonly maxRunners: pulumi.Output<number>;
  declare readonly minIdleRunners: pulumi.Output<number>;
  declare readonly runnerPrefix: pulumi.Output<string>;
  declare readonly runnerGroup: pulumi.Output<string>;

  constructor(name: string, args: GarmScaleSetArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor("scaleSet"),
      name,
      {
        scaleSetId: undefined,
        liveName: undefined,
        githubScaleSetId: undefined,
        stateVersion: undefined,
        entityKind: undefined,
        entityId: undefined,
        entityName: undefined,
        runnerPrefix: undefined,
        runnerGroup: undefined,
        enabled: undefined,
        minIdleRunners: undefined,
        ...args,
      },
      opts,
      "garm",
      "GarmScaleSet",
    );
  }
}
