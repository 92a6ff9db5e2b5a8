// Public types of the engine harness. The shapes mirror what the Pulumi engine keeps in a checkpoint and what it
// reports per step, reduced to what dynamic resources can express (pulumi-behaviour.md §1.2, pulumi-behaviour.md §2).
import type * as pulumi from "@pulumi/pulumi";

/** rpc.unknownValue: how an unknown (preview-time) value reaches check/diff (pulumi-behaviour.md §2.2, pulumi-behaviour.md §6.3). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Marker for "the output `output` of resource `resource`". Creates a dependency like an Output does in a program. */
export interface RefMarker {
  readonly __engineHarnessRef: true;
  readonly resource: string;
  /** An output key, or "id" for the resource's ID (like `resource.id` in a program). */
  readonly output: string;
}

/** One `new SomeDynamicResource(name, inputs, opts)` of a program. */
export interface ResourceDecl {
  /** Logical name; must be unique within one program. */
  name: string;
  /** Type part of the token `pulumi-nodejs:dynamic/<module>:<type>`. */
  type: string;
  /** Module part of the token; omitted gives `pulumi-nodejs:dynamic:<type>` (pulumi-behaviour.md §1.2). */
  module?: string;
  /** Serialized into `__provider` exactly as `pulumi.dynamic.Resource` does (pulumi-behaviour.md §3.1). */
  provider: pulumi.dynamic.ResourceProvider;
  /** Values may contain `ref()` markers, at any depth. */
  inputs: Record<string, unknown>;
  /** Explicit dependencies (names); refs add their own. */
  dependsOn?: string[];
  /** The `deleteBeforeReplace` resource option; when set it overrides the Diff result (pulumi-behaviour.md §2.3). */
  deleteBeforeReplace?: boolean;
  /** The `retainOnDelete` resource option: the engine drops the resource from state without calling Delete. */
  retainOnDelete?: boolean;
}

export interface StartEngineOptions {
  /** Working directory of the provider process = the project directory (pulumi-behaviour.md §2.1). Bare `require()`s resolve here. */
  cwd: string;
  project?: string;
  stack?: string;
  /** Stack config, keys `<namespace>:<key>` (pulumi-behaviour.md §2.1: Configure receives all of it). */
  config?: Record<string, string>;
  /** Secret stack config; sent to Configure wrapped as secrets, which the server unwraps (pulumi-behaviour.md §4). */
  secretConfig?: Record<string, string>;
  /** Extra environment for the provider process. */
  env?: Record<string, string>;
  /**
   * Maximum concurrent resource steps, like `pulumi up --parallel` (pulumi-behaviour.md §2.3: one process serves concurrent calls).
   * Default 16. Use 1 for a fully deterministic order.
   */
  parallel?: number;
  /**
   * `--continue-on-error`. Default false, like the CLI: after a failure, steps already running finish but no new
   * step starts and the end-of-run deletes are skipped (pulumi/docs blog "continue-on-error", 2024-05).
   * With true, independent resources keep going and the deletes still run.
   */
  continueOnError?: boolean;
  /** Milliseconds to wait for the provider's port line before failing. Default 30000. */
  startTimeoutMs?: number;
  /** Called with each provider process once it has printed its port, before Configure: lets a test kill it there. */
  onLaunch?: (pid: number) => void;
}

/** What the Pulumi engine records for one custom resource in a checkpoint. */
export interface ResourceState {
  urn: string;
  name: string;
  /** Full type token, e.g. `pulumi-nodejs:dynamic/garm:GarmScaleSet`. */
  type: string;
  id: string;
  /** Checked inputs, including `__provider`. */
  inputs: Record<string, unknown>;
  /** Outputs, including `__provider` (Delete and Read use this one, pulumi-behaviour.md §3.4). */
  outputs: Record<string, unknown>;
  /** Old half of a create-before-delete replacement whose Delete has not succeeded yet (pulumi-behaviour.md §2.3). */
  pendingDelete: boolean;
  /** Names of the resources this one depended on when it was last written. */
  dependencies: string[];
  /** Reasons from an ErrorResourceInitFailed (pulumi-behaviour.md §2.8). */
  initErrors?: string[];
  /** The `retainOnDelete` option it was created with. */
  retainOnDelete?: boolean;
}

export interface StateSnapshot {
  project: string;
  stack: string;
  resources: ResourceState[];
}

export type RpcOp = "check" | "diff" | "create" | "update" | "delete" | "read";
export type OperationKind = "preview" | "up" | "destroy" | "refresh";

/** One RPC the harness sent, in the order sent (a concurrent run interleaves them as the engine would). */
export interface StepRecord {
  seq: number;
  operation: OperationKind;
  op: RpcOp;
  name: string;
  urn: string;
  id?: string;
  ok: boolean;
  error?: string;
  /** Request payload with `__provider` removed (olds/news/properties/inputs, whichever the RPC has). */
  request: Record<string, unknown>;
  /** Decoded response with `__provider` removed, when ok. */
  response?: Record<string, unknown>;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

export interface DiffSummary {
  /** DIFF_UNKNOWN / DIFF_NONE / DIFF_SOME as returned by the server (pulumi-behaviour.md §1.2). */
  changes: "unknown" | "none" | "some";
  replaces: string[];
  deleteBeforeReplace: boolean;
}

export type StepKind = "create" | "update" | "replace" | "same" | "delete" | "read";

/** A resource-level step of an operation (what `pulumi up` prints one row for). */
export interface ResourceStep {
  name: string;
  urn: string;
  op: StepKind;
  ok: boolean;
  error?: string;
  /** Not attempted: a dependency failed, or the run stopped after an error. */
  skipped?: boolean;
  /** Replace: the old resource was deleted first. Delete: this was the delete half of such a replacement. */
  deleteBeforeReplace?: boolean;
  /** Delete: the resource was the old half of a replacement (pending delete), not a removed resource. */
  replaced?: boolean;
  /** Read: the provider returned an empty id and the resource was dropped from state (pulumi-behaviour.md §2.5). */
  gone?: boolean;
  /** Read: outputs differ from the stored ones. */
  changed?: boolean;
  /** Create/update/replace: init errors returned via ErrorResourceInitFailed (pulumi-behaviour.md §2.8). */
  initErrors?: string[];
}

export interface OperationResult {
  /** False when any step failed or any check failure was reported (the CLI would exit non-zero). */
  ok: boolean;
  /** In completion order (preview: in planning order). */
  steps: ResourceStep[];
  /** Names by step kind, in completion order; failed and skipped steps are excluded. */
  created: string[];
  updated: string[];
  replaced: string[];
  same: string[];
  deleted: string[];
  /** Diff results per resource name. */
  diffs: Record<string, DiffSummary>;
  /** Check failures per resource name. */
  checkFailures: Record<string, CheckFailure[]>;
  /** Error message per resource name (last one wins when a name has two steps). */
  errors: Record<string, string>;
  /** Provider process stdout/stderr lines of this operation. */
  logs: string[];
}

export interface PreviewResult extends OperationResult {
  /** Preview outputs per resource: old outputs for "same", checked inputs otherwise (pulumi-behaviour.md §2.2), unknowns as UNKNOWN. */
  outputs: Record<string, Record<string, unknown>>;
}

export interface UpResult extends OperationResult {
  /** Outputs of every program resource after the run (without `__provider`). */
  outputs: Record<string, Record<string, unknown>>;
}

export type DestroyResult = OperationResult;

export interface RefreshResult extends OperationResult {
  /** Names dropped from state because Read returned an empty id. */
  dropped: string[];
}

export interface LogEntry {
  operation: OperationKind;
  stream: "stdout" | "stderr";
  line: string;
}

export interface Engine {
  preview(program: ResourceDecl[]): Promise<PreviewResult>;
  up(program: ResourceDecl[]): Promise<UpResult>;
  destroy(): Promise<DestroyResult>;
  refresh(opts?: { diff?: boolean }): Promise<RefreshResult>;
  state(): StateSnapshot;
  saveState(path: string): void;
  loadState(path: string): void;
  /** Every resource RPC sent, across operations. */
  readonly steps: StepRecord[];
  /** Provider stdout/stderr lines (after the port line), across operations. */
  readonly logs: string[];
  readonly logEntries: LogEntry[];
  /** One entry per provider process started (one per operation, pulumi-behaviour.md §2.1). */
  readonly processes: { operation: OperationKind; pid: number; port: number }[];
}
