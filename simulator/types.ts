// Closed vocabularies and in-memory record shapes of the GARM simulator (garm-behaviour.md §3, §7).

/** Instance (runner) status, garm-behaviour.md §7.1. */
export type InstanceStatus =
  | "running"
  | "stopped"
  | "error"
  | "pending_delete"
  | "pending_force_delete"
  | "deleting"
  | "deleted"
  | "pending_create"
  | "creating"
  | "unknown";

/** Runner status as GARM records it, garm-behaviour.md §7.2. */
export type RunnerStatus =
  | "idle"
  | "pending"
  | "terminated"
  | "installing"
  | "failed"
  | "active"
  | "offline"
  | "online"
  | "unknown";

/** Job status, garm-behaviour.md §7.3. */
export type JobStatus = "queued" | "in_progress" | "completed";

/** Which GARM the simulator imitates (garm-behaviour.md Appendix A). */
export type Behaviour = "v0.2.1" | "head";

export type EntityKind = "organization" | "repository" | "enterprise";

export interface EndpointRecord {
  name: string;
  description: string;
  apiBaseUrl: string;
  uploadBaseUrl: string;
  baseUrl: string;
  createdAt: string;
  updatedAt: string;
  /** "github" when absent */
  endpointType?: "github" | "gitea";
  /** base64 of the sanitized PEM bundle, as GARM sends []byte; absent when none */
  caCertBundle?: string;
  /** Gitea only: where runner tools are listed, as sent; GARM's default when absent (database/sql/gitea.go L32-34). */
  toolsMetadataUrl?: string;
  useInternalToolsMetadata?: boolean;
}

export interface CredentialsRecord {
  id: number;
  name: string;
  description: string;
  endpoint: string;
  authType: "pat" | "app";
  createdAt: string;
  updatedAt: string;
  /** "github" when absent */
  forge?: "github" | "gitea";
  /** sha256 of the sealed payload (token or app), so tests can tell a rotation reached GARM */
  secretDigest?: string;
}

export interface EntityRecord {
  id: string; // UUID
  kind: EntityKind;
  /** org / enterprise name, or repository name */
  name: string;
  /** repository owner; "" for orgs and enterprises */
  owner: string;
  credentialsName: string;
  endpoint: string;
  webhookSecret: string;
  /** "" when none was asked for; GARM reads it back as roundrobin (database/sql/util.go L215). */
  poolBalancerType: string;
  /** agent_mode (params/requests.go L50); absent means false. */
  agentMode?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface TagRecord {
  id: string; // UUID
  name: string;
}

export interface TemplateRecord {
  id: number;
  name: string;
  osType: "linux" | "windows";
  forgeType: "github" | "gitea";
  description?: string;
  /** The body as base64, as Go marshals its `[]byte` (params/params.go L1492). */
  data?: string;
  /** The owning user's name; absent for GARM's system templates (user_id NULL, database/sql/util.go L1126-1129). */
  owner?: string;
  /** When it was made (params/params.go L1485); absent for the system templates, made at the database's first start. */
  createdAt?: string;
}

export interface ScaleSetRecord {
  id: number;
  /** GitHub's scale set id (garm-behaviour.md §3.1 `scale_set_id`); changes when the worker re-creates it (§4.5). */
  githubScaleSetId: number;
  name: string;
  entityId: string;
  runnerPrefix: string;
  disableUpdate: boolean;
  state: string;
  extendedState: string;
  providerName: string;
  maxRunners: number;
  minIdleRunners: number;
  image: string;
  flavor: string;
  osType: string;
  osArch: string;
  enabled: boolean;
  desiredRunnerCount: number;
  enableShell: boolean;
  generation: number;
  runnerBootstrapTimeout: number;
  /** Raw bytes as sent by the client (garm-behaviour.md §3.7), or undefined when NULL. */
  extraSpecs: string | undefined;
  runnerGroup: string;
  tagIds: string[];
  templateId: number;
  createdAt: string;
  updatedAt: string;
}

export interface InstanceRecord {
  id: string; // UUID
  name: string;
  providerId: string;
  agentId: number;
  scaleSetId: number;
  /** The pool a pool runner belongs to (scaleSetId is then 0). */
  poolId?: string;
  osType: string;
  osArch: string;
  osName: string;
  osVersion: string;
  status: InstanceStatus;
  runnerStatus: RunnerStatus | "";
  /** Plain text; the wire form is base64 (garm-behaviour.md §3.2). */
  providerFault: string;
  runnerGroup: string;
  createdAt: string;
  updatedAt: string;
}

export interface JobRecord {
  id: number;
  scalesetJobId: string;
  runId: number;
  action: string;
  conclusion: string;
  status: JobStatus;
  name: string;
  /** The runner's instance id; the job row goes when the runner row goes (garm-behaviour.md §7.7). */
  instanceId: string;
  repositoryName: string;
  repositoryOwner: string;
  labels: string[];
  entityId: string;
  /** A pool runner was made for this queued job (the job's lock, pool.go consumeQueuedJobs). */
  lockedForRunner?: boolean;
  startedAt: string;
  completedAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface PoolRecord {
  id: string; // UUID
  providerName: string;
  entityId: string;
  image: string;
  flavor: string;
  osType: string;
  osArch: string;
  maxRunners: number;
  minIdleRunners: number;
  enabled: boolean;
  /** The runner install template (database/sql/models.go Pool.TemplateID). */
  templateId?: number;
  runnerPrefix?: string;
  tagIds?: string[];
  runnerBootstrapTimeout?: number;
  /** Raw bytes as sent, or undefined when NULL. */
  extraSpecs?: string;
  enableShell?: boolean;
  runnerGroup?: string;
  priority?: number;
  /** Bumped by updates that change how runners are made (database/sql/util.go L580-649). */
  generation?: number;
  createdAt: string;
  updatedAt: string;
}

export interface ProviderRecord {
  name: string;
  description: string;
}

export interface ControllerRecord {
  controllerId: string;
  hostname: string;
  metadataUrl: string;
  callbackUrl: string;
  webhookUrl: string;
  agentUrl: string;
  minimumJobAgeBackoff: number;
}

export interface UserRecord {
  id: string;
  username: string;
  email: string;
  fullName: string;
  password: string;
  /** Bumping it invalidates older JWTs (garm-behaviour.md §1.3). */
  generation: number;
  createdAt: string;
  updatedAt: string;
}
