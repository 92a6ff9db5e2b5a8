// The GarmProvider input schema (documentation source for schema.json), its defaults and the state shape it writes.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { readableStateVersion, stateStamp } from "../../common/state-version";
import { secretInput } from "../../common/secret-inputs";

export { UNKNOWN } from "../../common/unknown";

/** External provider interface versions GARM accepts (garm-behaviour.md §9.1). */
export const INTERFACE_VERSIONS = ["v0.1.0", "v0.1.1"] as const;
export type InterfaceVersion = (typeof INTERFACE_VERSIONS)[number];

export const DEFAULT_INTERFACE_VERSION: InterfaceVersion = "v0.1.0";
export const DEFAULT_RESTART_TIMEOUT_SECONDS = 60;

/**
 * Version of the output shape; read() and diff() migrate older shapes to this one. 2 added `generation`: a reader of
 * version 1 would drop it when it rewrote the state, and this resource's delete would then leave its own block.
 */
export const STATE_VERSION = 2;

/** Provider names: also written into marker comments, so kept to a conservative identifier alphabet. */
export const PROVIDER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Who manages a block: the Pulumi project, stack and resource name, recorded in the block's marker comments. */
export const ownerSchema = z
  .object({
    project: z.string().describe("Pulumi project name."),
    stack: z.string().describe("Pulumi stack name."),
    resource: z.string().describe("Pulumi resource name of the GarmProvider."),
  })
  .describe("The Pulumi project, stack and resource that manage a GarmProvider's block.");

export type GarmProviderOwner = z.infer<typeof ownerSchema>;

/** The fields of an SSH login, shared by the GARM host and its bastion (`connection.proxy`). */
const sshLoginFields = {
  host: z.string().min(1).describe("Host name or address of the machine to log in to over SSH."),
  port: z.number().int().min(1).max(65535).optional().describe("SSH port. Defaults to 22."),
  user: z.string().min(1).optional().describe('User to log in as. Defaults to "root".'),
  privateKey: secretInput(z.string().min(1).optional().describe("Private key (OpenSSH or PEM text) to log in with. Secret.")),
  privateKeyPassword: secretInput(z.string().optional().describe("Passphrase of privateKey. Secret.")),
  password: secretInput(z.string().optional().describe("Password to log in with. Secret.")),
  agentSocketPath: z.string().optional().describe("Socket of the ssh-agent to log in with. Defaults to SSH_AUTH_SOCK."),
  hostKey: z
    .string()
    .min(1)
    .optional()
    .describe('The host\'s public key as ssh-keyscan prints it ("ssh-ed25519 AAAA..."), or its fingerprint ("SHA256:..."). An unknown host key is refused unless hostKey or knownHostsFile names it.'),
  knownHostsFile: z.string().min(1).optional().describe("An OpenSSH known_hosts file (plain or hashed entries) on the machine running Pulumi to look the host key up in."),
  insecureSkipHostKeyVerification: z
    .boolean()
    .optional()
    .describe("Connect without verifying the host key, logged as a warning: anyone on the network path could read and change what is sent. Defaults to false."),
  perDialTimeout: z.number().int().positive().optional().describe("Seconds one connection attempt may take. Defaults to 15."),
  dialErrorLimit: z.number().int().positive().optional().describe("Connection attempts before an unreachable host is given up on. Defaults to 10."),
};

/** A bastion host to connect through: the login fields, no bastion of its own. */
export const sshProxySchema = z.strictObject(sshLoginFields).describe("A bastion (jump) host the SSH connection to the GARM host goes through.");

/** Where GARM's config file lives when it is not this machine: an SSH login, in the shape of @pulumi/command's Connection. */
export const sshConnectionSchema = z
  .strictObject({
    ...sshLoginFields,
    proxy: sshProxySchema.optional().describe("A bastion host to connect through, with the same fields (one level: a proxy has no proxy)."),
    sudo: z
      .boolean()
      .optional()
      .describe("Edit the config file and run restartCommand through `sudo -n` on the host (docs/concepts/remote-garm.md gives the sudoers line). Defaults to false: the login user edits the file over SFTP."),
  })
  .describe("SSH login to the machine GARM runs on; without it, the config file and restart command are on the machine running Pulumi.");

export type GarmProviderConnection = z.infer<typeof sshConnectionSchema>;

/** Inputs of GarmProvider. Field docs here are the single source for schema.json and the SDK args. */
export const garmProviderInputSchema = z
  .object({
    name: z
      .string()
      .regex(PROVIDER_NAME_PATTERN)
      .describe(
        "GARM provider name, as scale sets reference it in `providerName`. Letters, digits, `_`, `.`, `-`; at most 64 characters. Changing it replaces the resource.",
      ),
    description: z.string().optional().describe('Description GARM shows in `GET /providers`. Defaults to "".'),
    executable: z
      .string()
      .describe("Absolute path of the external provider executable (`provider_executable`). GARM refuses to start if it is missing."),
    configFile: z
      .string()
      .optional()
      .describe("Absolute path of the provider's own config file, passed to it as GARM_PROVIDER_CONFIG_FILE (`config_file`)."),
    environmentVariables: z
      .array(z.string())
      .optional()
      .describe(
        'Prefixes of environment variable names GARM forwards to the provider, e.g. ["PATH", "OS_"]. Names starting with GARM are never forwarded. Defaults to [].',
      ),
    interfaceVersion: z
      .enum(INTERFACE_VERSIONS)
      .optional()
      .describe('External provider interface version: "v0.1.0" or "v0.1.1". Defaults to "v0.1.0".'),
    garmConfigPath: z
      .string()
      .describe("Absolute path of the GARM config file this resource edits, e.g. /etc/garm/config.toml. Changing it replaces the resource."),
    restartCommand: z
      .string()
      .describe(
        'Shell command that restarts GARM so it loads the changed providers, e.g. "systemctl restart garm". Several changes in one run share one restart.',
      ),
    restartTimeoutSeconds: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Seconds to wait for the restart command and for GARM to list the change in GET /providers. Defaults to 60."),
    connection: sshConnectionSchema
      .optional()
      .describe(
        "SSH login to the machine GARM runs on: garmConfigPath is edited and restartCommand run there. Kept in state as a Pulumi secret. Without it, both are on the machine running Pulumi.",
      ),
    owner: ownerSchema
      .optional()
      .describe(
        "Who manages the block, recorded in it: another owner's block of the same name is refused. Set by the SDK from the Pulumi project, stack and resource name.",
      ),
  })
  .describe(
    "A GARM external provider: owns one managed [[provider]] block in GARM's config file and restarts GARM to apply changes.",
  );

/** Inputs after check(): defaults applied. */
export interface GarmProviderInputs {
  name: string;
  description: string;
  executable: string;
  configFile?: string;
  environmentVariables: string[];
  interfaceVersion: InterfaceVersion;
  garmConfigPath: string;
  restartCommand: string;
  restartTimeoutSeconds: number;
  /** Absent for states and programs from before owners were recorded. */
  owner?: GarmProviderOwner;
  /** The SSH login to GARM's machine; absent when GARM's config is on this machine. */
  connection?: GarmProviderConnection;
}

/** Outputs stored in state: the inputs plus the state version. */
export interface GarmProviderOutputs extends GarmProviderInputs {
  stateVersion: number;
  /** The pulumi-garm version that wrote the state (absent in state read back by migrateState). */
  pulumiGarmVersion?: string;
  /**
   * The generation recorded in the block this resource wrote (its owner line); a delete removes the block only while
   * the block records the same one. Absent in state written before generations (and for an imported hand-written
   * entry until its first update), which deletes a block that records none.
   */
  generation?: string;
  /**
   * false when the block was written but GARM has not confirmed loading it (a partial create or update); the next
   * update then restarts GARM even if nothing else changed. Absent once confirmed.
   */
  confirmed?: false;
}

/** What the managed block in GARM's config file holds (the GARM-facing subset of the inputs). */
export type ProviderBlockSpec = Pick<
  GarmProviderInputs,
  "name" | "description" | "executable" | "configFile" | "environmentVariables" | "interfaceVersion"
>;

export function blockSpecOf(inputs: GarmProviderInputs): ProviderBlockSpec {
  const spec: ProviderBlockSpec = {
    name: inputs.name,
    description: inputs.description,
    executable: inputs.executable,
    environmentVariables: [...inputs.environmentVariables],
    interfaceVersion: inputs.interfaceVersion,
  };
  if (inputs.configFile) spec.configFile = inputs.configFile;
  return spec;
}

/** Applies defaults to raw (already validated) inputs. Unknown values are passed through untouched. */
export function withDefaults(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  if (out.description === undefined || out.description === null) out.description = "";
  if (out.environmentVariables === undefined || out.environmentVariables === null) out.environmentVariables = [];
  if (out.interfaceVersion === undefined || out.interfaceVersion === null || out.interfaceVersion === "") {
    out.interfaceVersion = DEFAULT_INTERFACE_VERSION;
  }
  if (out.restartTimeoutSeconds === undefined || out.restartTimeoutSeconds === null) {
    out.restartTimeoutSeconds = DEFAULT_RESTART_TIMEOUT_SECONDS;
  }
  if (out.configFile === null || out.configFile === "") delete out.configFile;
  return out;
}

/**
 * Reads any state shape this provider ever wrote as the current one: version 1 is version 2 without a generation; a
 * state without stateVersion is treated as version 1 with defaults filled in.
 */
export function migrateState(props: Record<string, unknown>): GarmProviderOutputs {
  readableStateVersion("GarmProvider", props, STATE_VERSION);
  const p = withDefaults(props);
  const out: GarmProviderOutputs = {
    stateVersion: STATE_VERSION,
    name: String(p.name ?? ""),
    description: String(p.description ?? ""),
    executable: String(p.executable ?? ""),
    environmentVariables: Array.isArray(p.environmentVariables) ? p.environmentVariables.map(String) : [],
    interfaceVersion: (INTERFACE_VERSIONS as readonly string[]).includes(String(p.interfaceVersion))
      ? (p.interfaceVersion as InterfaceVersion)
      : DEFAULT_INTERFACE_VERSION,
    garmConfigPath: String(p.garmConfigPath ?? ""),
    restartCommand: String(p.restartCommand ?? ""),
    restartTimeoutSeconds: Number(p.restartTimeoutSeconds ?? DEFAULT_RESTART_TIMEOUT_SECONDS),
  };
  if (typeof p.configFile === "string" && p.configFile) out.configFile = p.configFile;
  const owner = ownerOf(p.owner);
  if (owner) out.owner = owner;
  const connection = connectionOf(p.connection);
  if (connection) out.connection = connection;
  if (typeof p.generation === "string" && p.generation) out.generation = p.generation;
  if (p.confirmed === false) out.confirmed = false;
  return out;
}

/** A fresh generation: the random token a create (or an update of state without one) records in its block. */
export function newGeneration(): string {
  return randomBytes(8).toString("hex");
}

/** The state written after a successful create/update/read, with the generation its block records. */
export function outputsOf(inputs: GarmProviderInputs, generation?: string): GarmProviderOutputs {
  const out: GarmProviderOutputs = {
    ...stateStamp(STATE_VERSION),
    name: inputs.name,
    description: inputs.description,
    executable: inputs.executable,
    environmentVariables: [...inputs.environmentVariables],
    interfaceVersion: inputs.interfaceVersion,
    garmConfigPath: inputs.garmConfigPath,
    restartCommand: inputs.restartCommand,
    restartTimeoutSeconds: inputs.restartTimeoutSeconds,
  };
  if (inputs.configFile) out.configFile = inputs.configFile;
  if (inputs.owner) out.owner = { ...inputs.owner };
  if (inputs.connection) out.connection = structuredClone(inputs.connection);
  if (generation) out.generation = generation;
  return out;
}

/** `value` as an owner when it is one (three strings), else undefined. */
export function ownerOf(value: unknown): GarmProviderOwner | undefined {
  const parsed = ownerSchema.safeParse(value);
  return parsed.success ? { project: parsed.data.project, stack: parsed.data.stack, resource: parsed.data.resource } : undefined;
}

/** `value` as a connection when it is one, else undefined (state holds only connections check accepted). */
export function connectionOf(value: unknown): GarmProviderConnection | undefined {
  const parsed = sshConnectionSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
