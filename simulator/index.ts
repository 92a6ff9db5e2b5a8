// Entry point of the GARM simulator used by integration tests and `make demo` (follows docs/garm-behaviour.md).
export { startSimulator } from "./server";
export type { Simulator, SimulatorOptions, RequestLogEntry } from "./simulator";
export type { GitHubOp } from "./github";
export type {
  Behaviour,
  InstanceRecord,
  InstanceStatus,
  JobRecord,
  JobStatus,
  ProviderRecord,
  RunnerStatus,
  ScaleSetRecord,
} from "./types";
