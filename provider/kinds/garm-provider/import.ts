// `pulumi import garm:index:GarmProvider <name> <garmConfigPath>#<provider name>`: reads one [[provider]] entry from
// GARM's config file, hand-written or inside pulumi-garm's markers, and states the inputs that reproduce it.
import * as path from "node:path";
import { readConfigText } from "./config-file";
import { providerEntries, parseToml } from "./garm-config";
import type { GarmHost } from "../../machine/host";
import { localHost } from "../../machine/local-host";
import { findBlocks, readBlock, readBlockClaim, specOfEntry } from "./managed-block";
import { DEFAULT_RESTART_TIMEOUT_SECONDS, PROVIDER_NAME_PATTERN, outputsOf, type GarmProviderInputs, type ProviderBlockSpec } from "./inputs";

type Props = Record<string, unknown>;

/**
 * The stack config key the restart command comes from when `pulumi import` (which has only the id) reads an entry: GARM's
 * config file does not hold it, and it has no place in the id, which is also the resource id.
 */
export const RESTART_COMMAND_KEY = "garm:garmRestartCommand";

/**
 * The id of a GarmProvider, for new and imported resources alike: the file and the provider name, which together say
 * where its block is. It differs from the `name` output on purpose (Pulumi's import code generation refers to a
 * resource only through a value that is its id or its name, not both). Resources created before this form keep the
 * id they were created with: no method reads the id.
 */
export function garmProviderId(garmConfigPath: string, name: string): string {
  return `${garmConfigPath}#${name}`;
}

/** The file and provider name in an import id; the name is after the last `#`, since a name cannot hold one. */
export function parseGarmProviderImportId(id: string): { garmConfigPath: string; name: string } {
  const at = id.lastIndexOf("#");
  const garmConfigPath = at === -1 ? "" : id.slice(0, at);
  const name = at === -1 ? id : id.slice(at + 1);
  const form = "give <garmConfigPath>#<provider name>, e.g. /etc/garm/config.toml#openstack";
  if (at === -1) throw new Error(`GarmProvider import id "${id}" names no config file: ${form}`);
  if (!path.isAbsolute(garmConfigPath)) throw new Error(`GarmProvider import id "${id}": the config file "${garmConfigPath}" is not an absolute path: ${form}`);
  if (!PROVIDER_NAME_PATTERN.test(name)) throw new Error(`GarmProvider import id "${id}": "${name}" is not a GARM provider name (letters, digits, _ . -, at most 64): ${form}`);
  return { garmConfigPath, name };
}

/** What the file cannot say, from where the front door has it: the program's inputs, or stack config. */
export interface ImportContext {
  /** The program's inputs (the dynamic provider's `import` option), absent for `pulumi import`. */
  readonly program?: Props;
  /** Stack config by full key. */
  readonly config: (key: string) => string | undefined;
  readonly host?: GarmHost;
}

const ENTRY_KEYS = new Set(["name", "provider_type", "description", "external", "disable_jit_config"]);
const EXTERNAL_KEYS = new Set(["provider_executable", "config_file", "environment_variables", "interface_version"]);

/**
 * The spec of the hand-written entry `entry`, refused where GarmProvider's inputs could not say the same to GARM.
 * @throws naming the key that cannot be reproduced.
 */
export function handWrittenSpec(entry: Props, file: string): ProviderBlockSpec {
  const name = String(entry.name);
  const refuse = (why: string) => new Error(`GarmProvider "${name}": the hand-written entry in ${file} ${why}, which GarmProvider cannot express; edit the entry, or leave it out of Pulumi`);
  if (entry.provider_type !== "external") throw refuse(`has provider_type ${JSON.stringify(entry.provider_type)}, not "external"`);
  const extra = Object.keys(entry).filter((k) => !ENTRY_KEYS.has(k));
  if (extra.length > 0) throw refuse(`sets ${extra.join(", ")}`);
  if (entry.disable_jit_config === true) throw refuse("sets disable_jit_config = true");
  const ext = entry.external;
  if (typeof ext !== "object" || ext === null || Array.isArray(ext)) throw refuse("has no [provider.external] table");
  const externalExtra = Object.keys(ext).filter((k) => !EXTERNAL_KEYS.has(k));
  if (externalExtra.length > 0) throw refuse(`sets ${externalExtra.map((k) => `external.${k}`).join(", ")} (give provider_executable instead of provider_dir)`);
  const external = ext as Props;
  if (typeof external.provider_executable !== "string" || external.provider_executable === "") throw refuse("has no provider_executable");
  if (external.interface_version !== undefined && external.interface_version !== "v0.1.0" && external.interface_version !== "v0.1.1") {
    throw refuse(`has interface_version ${JSON.stringify(external.interface_version)}`);
  }
  return specOfEntry(entry, external);
}

/** The restart command the imported inputs carry: the program's, or the stack config key's. */
function restartCommandFor(name: string, ctx: ImportContext): string {
  const given = ctx.program?.restartCommand;
  if (typeof given === "string" && given.trim() !== "") return given;
  const configured = ctx.config(RESTART_COMMAND_KEY);
  if (configured !== undefined && configured.trim() !== "") return configured;
  throw new Error(
    `GarmProvider "${name}": GARM's config file does not hold the command that restarts GARM, so the import takes it from stack config ${RESTART_COMMAND_KEY}, which is not set: run \`pulumi config set ${RESTART_COMMAND_KEY} "systemctl restart garm"\` (your GARM's restart command), then import again`,
  );
}

/**
 * Reads the entry `id` names for import: its outputs as create would have stored them, and the inputs behind them.
 * Nothing is written: a hand-written entry gets pulumi-garm's markers at the first update, which does not restart GARM.
 */
export async function importGarmProvider(id: string, ctx: ImportContext): Promise<{ id: string; props: Props; inputs: Props }> {
  const { garmConfigPath, name } = parseGarmProviderImportId(id);
  if (ctx.program?.connection !== undefined && ctx.program.connection !== null) {
    throw new Error(`GarmProvider "${name}": importing an entry over SSH (connection) is not supported yet; import it where the file is, or declare the resource and let pulumi up take over its block`);
  }
  const host = ctx.host ?? localHost;
  const text = await readConfigText(garmConfigPath, host);
  const managed = findBlocks(text, garmConfigPath).some((b) => b.name === name);
  let spec: ProviderBlockSpec | undefined;
  if (managed) {
    spec = readBlock(text, name, garmConfigPath);
  } else {
    const entries = providerEntries(parseToml(text, garmConfigPath)).filter((e) => e.name === name);
    if (entries.length > 1) throw new Error(`GarmProvider "${name}": ${garmConfigPath} defines provider "${name}" ${entries.length} times, and GARM refuses to start so; remove all but one by hand first`);
    if (entries.length === 1) spec = handWrittenSpec(entries[0], garmConfigPath);
  }
  if (!spec) throw new Error(`GarmProvider "${name}": ${garmConfigPath} has no [[provider]] named "${name}" (garm-cli provider list shows what GARM loaded)`);
  const timeout = ctx.program?.restartTimeoutSeconds;
  const inputs: GarmProviderInputs = {
    ...spec,
    environmentVariables: [...spec.environmentVariables],
    garmConfigPath,
    restartCommand: restartCommandFor(name, ctx),
    restartTimeoutSeconds: typeof timeout === "number" ? timeout : DEFAULT_RESTART_TIMEOUT_SECONDS,
  };
  // The owner a managed block records is its owner until the first update records the importing resource instead.
  // Its generation is the imported resource's too, so its delete removes the block; a hand-written entry has none
  // until the first update marks it.
  const claim = managed ? readBlockClaim(text, name, garmConfigPath) : undefined;
  const owner = claim?.owner;
  const props = outputsOf(owner ? { ...inputs, owner } : inputs, claim?.generation) as unknown as Props;
  return { id: garmProviderId(garmConfigPath, name), props, inputs: importedInputs(inputs) };
}

/** The inputs as a program states them: GARM's defaults and the default timeout left out. */
function importedInputs(inputs: GarmProviderInputs): Props {
  return {
    name: inputs.name,
    ...(inputs.description ? { description: inputs.description } : {}),
    executable: inputs.executable,
    ...(inputs.configFile ? { configFile: inputs.configFile } : {}),
    ...(inputs.environmentVariables.length > 0 ? { environmentVariables: inputs.environmentVariables } : {}),
    ...(inputs.interfaceVersion !== "v0.1.0" ? { interfaceVersion: inputs.interfaceVersion } : {}),
    garmConfigPath: inputs.garmConfigPath,
    restartCommand: inputs.restartCommand,
    ...(inputs.restartTimeoutSeconds !== DEFAULT_RESTART_TIMEOUT_SECONDS ? { restartTimeoutSeconds: inputs.restartTimeoutSeconds } : {}),
  };
}
