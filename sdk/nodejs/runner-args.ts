// The inputs a scale set and a pool share: where their runners come from and how GARM runs them. GARM keeps the same
// runner settings for both (params/requests.go CreateScaleSetParams and CreatePoolParams), so the SDK states them once.
import type * as pulumi from "@pulumi/pulumi";
import type { InGarmArgs } from "./garm-connection";

export interface RunnerSettingsArgs extends InGarmArgs {
  /** GitHub organization (a GARM entity). Set exactly one of organization, repository, enterprise, entityId. */
  readonly organization?: pulumi.Input<string>;
  /** GitHub repository as "owner/name" (a GARM entity). */
  readonly repository?: pulumi.Input<string>;
  /** GitHub enterprise (a GARM entity). */
  readonly enterprise?: pulumi.Input<string>;
  /** GARM id (UUID) of the organization, repository or enterprise, e.g. a GarmOrganization's entityId output. */
  readonly entityId?: pulumi.Input<string>;
  /** GARM endpoint name of the entity, e.g. "github.com"; needed only when a name exists under several endpoints. */
  readonly endpoint?: pulumi.Input<string>;
  /** GARM provider creating the runners. Pass a GarmProvider's `name` output so Pulumi deletes the runners' owner first. */
  readonly providerName: pulumi.Input<string>;
  /** Provider image for the runners. */
  readonly image: pulumi.Input<string>;
  /** Provider flavor (size) for the runners. */
  readonly flavor: pulumi.Input<string>;
  /** "linux" or "windows". Defaults to "linux". */
  readonly osType?: pulumi.Input<"linux" | "windows">;
  /** "amd64", "arm64", "arm" or "386". Defaults to "amd64". */
  readonly osArch?: pulumi.Input<"amd64" | "arm64" | "arm" | "386">;
  /** Most runners at once; at least 1 for a GarmPool, while 0 parks a GarmScaleSet (created at 1, disabled, then set to 0). */
  readonly maxRunners: pulumi.Input<number>;
  /** Idle runners kept ready; at most maxRunners. Defaults to 0. */
  readonly minIdleRunners?: pulumi.Input<number>;
  /** Whether GARM runs them. Defaults to true. */
  readonly enabled?: pulumi.Input<boolean>;
  /** Prefix of runner names. Defaults to GARM's "garm". */
  readonly runnerPrefix?: pulumi.Input<string>;
  /** GitHub runner group. Defaults to GitHub's default group. */
  readonly runnerGroup?: pulumi.Input<string>;
  /** Minutes a runner may take to come up. Defaults to GARM's 20. */
  readonly runnerBootstrapTimeout?: pulumi.Input<number>;
  /** Provider-specific extra specs: an object, or a JSON string holding one. */
  readonly extraSpecs?: pulumi.Input<Record<string, unknown> | string>;
  /** GARM runner install template id (a GarmTemplate's templateId). Defaults to GARM's system template for osType. */
  readonly templateId?: pulumi.Input<number>;
  /** Allow GARM's agent shell on the runners. Defaults to false. */
  readonly enableShell?: pulumi.Input<boolean>;
  /** How a delete drains runners. */
  readonly drain?: pulumi.Input<{
    /** Seconds a delete waits for busy runners before failing; Pulumi retries on the next run. Defaults to 600. */
    timeoutSeconds?: pulumi.Input<number>;
    /** Seconds between drain checks. Defaults to 5. */
    pollSeconds?: pulumi.Input<number>;
    /** A job older than this no longer holds its runner. Defaults to 120 (GitHub's 5-day job limit). */
    jobStaleAfterHours?: pulumi.Input<number>;
  }>;
}
