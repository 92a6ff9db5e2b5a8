// The plan as a TypeScript program for the Node dynamic provider: each object declared with its pulumi-garm class and
// the `import` option, so `pulumi up` takes it over with no change to GARM. The dynamic provider gets no stack config,
// so the secrets GARM never returns are read by the program itself from the keys the importers name.
import { CREDENTIALS_SECRETS_FROM_CONFIG } from "../../provider/kinds/credentials/check";
import { ENTITY_SECRETS_FROM_CONFIG } from "../../provider/kinds/entity/check";
import { commentQuote, commentText, tsKey, tsString } from "./escape";
import type { Props } from "./inputs";
import type { Plan } from "./plan";
import { ConfigValue, Reference, programItems } from "./program";

const SECRETS_FROM_CONFIG = [...CREDENTIALS_SECRETS_FROM_CONFIG, ...ENTITY_SECRETS_FROM_CONFIG];

/** `scaleset-ci-small` → `scalesetCiSmall`, unique among `taken`. */
function variableName(logical: string, taken: Set<string>): string {
  const base = logical.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9_$]/g, "_");
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

/** A secret named by its config key (`tokenFromConfig: "garm:k"`) as the secret itself, read from that key. */
function secretsReadByProgram(inputs: Props): Props {
  const out = { ...inputs };
  for (const { secret, keyInput } of SECRETS_FROM_CONFIG) {
    const key = out[keyInput];
    if (typeof key !== "string") continue;
    delete out[keyInput];
    out[secret] = new ConfigValue(key, "secret");
  }
  return out;
}

/** `value` as TypeScript source, objects and arrays over several lines at `indent`. */
function render(value: unknown, indent: string): string {
  if (value instanceof Reference) return `${value.variable}.${value.output}`;
  if (value instanceof ConfigValue) return `garmConfig.${value.type === "secret" ? "requireSecret" : "requireNumber"}(${tsString(value.name)})`;
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[${value.map((v) => render(v, indent)).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${tsKey(k)}: ${render(v, inner)},`).join("\n")}\n${indent}}`;
  }
  if (typeof value === "string") return tsString(value);
  return JSON.stringify(value);
}

/**
 * The program for `plan`; `inputs[i]` are the inputs of `plan.entries[i]`, undefined for a kind that cannot be imported,
 * or why its importer could not state them.
 * `source` names the GARM read, for the opening comment.
 */
export function typescriptProgram(plan: Plan, inputs: readonly (Props | string | undefined)[], source: string): string {
  const items = programItems(plan, inputs, variableName, ["garm", "pulumi", "garmConfig"]);
  const body: string[] = [];
  for (const item of items) {
    if (item.kind === "comment") {
      body.push(`// ${item.sdkClass} ${commentQuote(item.name)} (import id ${commentQuote(item.id)}): ${commentText(item.why)}.`);
      continue;
    }
    const args = render(secretsReadByProgram(item.inputs), "");
    body.push(`const ${item.variable} = new garm.${item.sdkClass}(${tsString(item.name)}, ${args}, { import: ${tsString(item.id)}, protect: true });`);
  }
  const readsConfig = body.some((line) => line.includes("garmConfig."));
  const lines = [
    `// Written by \`pulumi-garm import-plan --language typescript\` from the GARM at ${commentText(source)}. Each object is taken over with`,
    "// the `import` option: `pulumi up` reads it from GARM and writes nothing; it then previews with no change.",
    "// Objects are protected (`protect: true`), as `pulumi import` leaves them. Once imported, take out both options: Pulumi",
    "// neither replaces nor deletes an object that is protected or still names its import id.",
    ...(readsConfig ? ["// The secrets GARM never returns come from the stack config keys `import-plan` listed (`pulumi config set --secret …`)."] : []),
    ...(readsConfig ? ['import * as pulumi from "@pulumi/pulumi";'] : []),
    'import * as garm from "pulumi-garm";',
    "",
    ...(readsConfig ? ['const garmConfig = new pulumi.Config("garm");', ""] : []),
  ];
  for (const line of plan.referenced) lines.push(`// Left to refer to, not imported: ${commentText(line)}.`);
  if (plan.referenced.length > 0) lines.push("");
  return `${[...lines, ...body].join("\n")}\n`;
}
