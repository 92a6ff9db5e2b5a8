// `pulumi-garm import-plan`: logs in to a GARM, reads it with one list per kind, and writes Pulumi's bulk import file.
import { writeFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { RESTART_COMMAND_KEY } from "../../provider/kinds/garm-provider/import";
import { parseArgs } from "node:util";
import { checkConnectionSettings } from "../../provider/common/config";
import { GarmClient } from "../../provider/garm/client";
import { readInventory } from "./inventory";
import { type KindRow, kindRow } from "../../provider/registry/kinds";
import { registryKey, tokenFor } from "./import-ids";
import { inputsFor } from "./inputs";
import { type Plan, type Selection, buildPlan } from "./plan";
import { commentText, jsonText, shellWord } from "./escape";
import { checkSecretKeys, configCommandsFor } from "./secrets";
import { typescriptProgram } from "./typescript";
import { pythonProgram } from "./python";

/** The programs import-plan writes instead of the import file: the language, and what runs it. */
const PROGRAM_WRITERS = {
  typescript: { write: typescriptProgram, file: "index.ts" },
  python: { write: pythonProgram, file: "__main__.py" },
} as const;
type ProgramLanguage = keyof typeof PROGRAM_WRITERS;

export const USAGE = `usage: pulumi-garm import-plan [--url URL] [--username NAME] [--password PASSWORD] [--insecure] [--ca-cert-file FILE]
                              [--org NAME|ID]... [--repo OWNER/NAME|ID]... [--enterprise NAME|ID]... [--language typescript|python] [--out FILE]
                              [--garm-config FILE [--garm-restart-command COMMAND]]
Writes the file \`pulumi import --file FILE\` takes, for every object of the GARM or those under the chosen entities;
with --language typescript (index.ts, the dynamic provider) or python (__main__.py, the garm plugin), a program
declaring them with pulumi-garm's classes and the \`import\` option.
Provider entries are planned with --garm-config, the config file GARM runs with (its --config), read where it is on
this machine; --garm-restart-command is the command that restarts GARM, which their inputs hold.
The connection falls back to GARM_URL, GARM_USERNAME, GARM_PASSWORD, GARM_INSECURE and GARM_CA_CERT_FILE.`;

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

/** What one run did: the plan and the GARM calls it took (login included). */
export interface RunOutcome {
  readonly plan: Plan;
  readonly garmCalls: number;
}

/** The provider's messages name its stack config (`garm:caCertFile`); here the same setting is a flag. */
function asFlags(message: string): string {
  return message
    .replace(/garm:(\w+)/g, (_m, key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`)
    .replace(/run `pulumi config set (?:--secret )?(--[\w-]+) ([^`]*)`/g, (_m, flag: string, value: string) => (flag === "--insecure" ? (value === "true" ? "give `--insecure`" : "leave out --insecure") : `give \`${flag} ${value}\``));
}

/** The import file `pulumi import --file` reads: JSON, every string escaped so that YAML parsers read it the same. */
export function planFileText(plan: Plan): string {
  return `${jsonText(plan.file, 2)}\n`;
}

/** Runs the command; throws an Error whose message is the one line to show. */
export async function importPlan(argv: readonly string[], io: CommandIo): Promise<RunOutcome | undefined> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      url: { type: "string" },
      username: { type: "string" },
      password: { type: "string" },
      insecure: { type: "boolean" },
      "ca-cert-file": { type: "string" },
      org: { type: "string", multiple: true },
      repo: { type: "string", multiple: true },
      enterprise: { type: "string", multiple: true },
      out: { type: "string" },
      language: { type: "string" },
      "garm-config": { type: "string" },
      "garm-restart-command": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return undefined;
  }
  if (values.language !== undefined && !(values.language in PROGRAM_WRITERS)) {
    throw new Error(`--language ${values.language}: give --language ${Object.keys(PROGRAM_WRITERS).join(" or ")}, or leave it out for the import file (\`pulumi import --file\` writes YAML and Go)`);
  }
  const language = values.language as ProgramLanguage | undefined;
  const flags: Record<string, string | undefined> = {
    "garm:url": values.url,
    "garm:username": values.username,
    "garm:password": values.password,
    "garm:insecure": values.insecure ? "true" : undefined,
    "garm:caCertFile": values["ca-cert-file"],
  };
  for (const [flag, envName] of [["url", "GARM_URL"], ["username", "GARM_USERNAME"], ["password", "GARM_PASSWORD"]] as const) {
    if (!flags[`garm:${flag}`]?.trim() && !io.env[envName]?.trim()) throw new Error(`no GARM ${flag}: give --${flag} or set ${envName}`);
  }
  // The provider's own check of the settings: one set of rules for a URL, plain http and the CA bundle.
  const checked = checkConnectionSettings({ get: (key) => flags[key] }, io.env);
  if (!checked.settings) throw new Error(asFlags(checked.failures[0]?.message ?? "the GARM connection settings are incomplete"));

  const selection: Selection = { organization: values.org ?? [], repository: values.repo ?? [], enterprise: values.enterprise ?? [] };
  const client = new GarmClient(checked.settings);
  try {
    io.stderr(`reading GARM at ${checked.settings.url}`);
    const inventory = await readInventory(client, (line) => io.stderr(line));
    const garmConfig = values["garm-config"];
    if (garmConfig !== undefined && !isAbsolute(garmConfig)) throw new Error(`--garm-config ${garmConfig}: give the absolute path of GARM's config file, as GARM's --config names it`);
    if (values["garm-restart-command"] !== undefined && garmConfig === undefined) throw new Error("--garm-restart-command is for provider entries, which need --garm-config too");
    const plan = buildPlan(inventory, selection, garmConfig);
    checkSecretKeys(plan.entries);
    const writer = language && PROGRAM_WRITERS[language];
    // Names reach the terminal too: a control character (a carriage return, an escape sequence) shown escaped.
    for (const line of plan.referenced) io.stderr(`left to refer to, not imported: ${commentText(line)}`);
    for (const kind of plan.waiting) {
      const row: KindRow = kindRow(registryKey(kind));
      const leaves = writer ? "program comments" : "file leaves out";
      if (kind === "garmProvider" && row.importable === true) {
        io.stderr(`note: ${tokenFor(kind)} entries are read from GARM's config file, which was not given, so the ${leaves} those objects: give --garm-config <path> (GARM's --config, e.g. /etc/garm/config.toml)`);
        continue;
      }
      const instead = row.importable === true ? "" : `: ${row.importable.instead}`;
      io.stderr(`note: ${tokenFor(kind)} cannot be imported with this version of pulumi-garm, so the ${leaves} those objects${instead}`);
    }
    const restartCommand = values["garm-restart-command"];
    const sources = { client, templates: inventory.templates, entities: inventory.entities, ...(restartCommand !== undefined ? { restartCommand } : {}) };
    const text = writer ? writer.write(plan, await inputsFor(plan.entries, sources), checked.settings.url) : planFileText(plan);
    if (values.out) {
      writeFileSync(values.out, text);
      io.stderr(`wrote ${plan.file.resources.length} resources to ${values.out}: ${writer ? `run \`pulumi up\` in its project (the program's file is ${writer.file})` : `run \`pulumi import --file ${values.out}\``}`);
    } else {
      io.stdout(text);
      io.stderr(`planned ${plan.file.resources.length} resources`);
    }
    const commands = configCommandsFor(plan.entries.filter((e) => plan.file.resources.includes(e.spec)));
    if (commands.length > 0) {
      io.stderr(`GARM never returns secrets: set these ${commands.length} values in the stack's config first (GARM cannot confirm them; the values you set are what pulumi-garm sends from then on):`);
      for (const command of commands) io.stderr(`  ${command}`);
    }
    const providers = plan.file.resources.filter((r) => r.type === tokenFor("garmProvider")).length;
    if (providers > 0 && !writer) {
      io.stderr(`GARM's config file does not hold the command that restarts GARM: the ${providers} provider imports take it from stack config:`);
      io.stderr(`  pulumi config set ${shellWord(RESTART_COMMAND_KEY)} ${shellWord(restartCommand ?? "<the command that restarts GARM, e.g. systemctl restart garm>")}`);
    }
    const garmCalls = client.transport.requestsSent;
    io.stderr(`GARM calls: ${garmCalls}`);
    return { plan, garmCalls };
  } finally {
    await client.close();
  }
}
