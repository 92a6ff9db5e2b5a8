// Engine harness: drives the real @pulumi/pulumi dynamic-provider gRPC server with the Pulumi engine's call
// sequences (pulumi-behaviour.md §2, pulumi-behaviour.md §6.3). See engine.ts for the modelled semantics.
export { UNKNOWN } from "./types";
export type {
  CheckFailure,
  DestroyResult,
  DiffSummary,
  Engine,
  LogEntry,
  OperationKind,
  OperationResult,
  PreviewResult,
  RefMarker,
  RefreshResult,
  ResourceDecl,
  ResourceState,
  ResourceStep,
  RpcOp,
  StartEngineOptions,
  StateSnapshot,
  StepKind,
  StepRecord,
  UpResult,
} from "./types";
export { ref, isRef, startEngine } from "./engine";
export { ProviderProcess, ProviderCallError } from "./provider-process";
