// The plan as a Python program for the garm plugin: each object declared with its pulumi_garm class and the `import_`
// option, so `pulumi up` takes it over with no change to GARM, with the references the TypeScript writer makes. It
// stands in for `pulumi import --out __main__.py`, which the Python language host cannot serve here (its
// GenerateProgram is not implemented). The plugin reads stack config, so a secret named by its config key stays so
// (`token_from_config`), as `pulumi import` would write it; an app's ids are read from config by the program.
import { commentQuote, commentText, pyString } from "./escape";
import type { Props } from "./inputs";
import type { Plan } from "./plan";
import { ConfigValue, Reference, programItems } from "./program";

/** `templateId` → `template_id`: the SDK's keyword for a schema property, as Pulumi's Python codegen names it. */
export function pythonName(schemaName: string): string {
  return schemaName.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").toLowerCase();
}

/** `scaleset-ci-small` → `scaleset_ci_small`, unique among `taken`. */
function variableName(logical: string, taken: Set<string>): string {
  const base = logical.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9])/, "_");
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** `value` as Python source; dictionaries keep their keys, which are GARM's (extra specs) rather than the schema's. */
function render(value: unknown, indent: string): string {
  if (value instanceof Reference) return `${value.variable}.${pythonName(value.output)}`;
  if (value instanceof ConfigValue) return `garm_config.${value.type === "secret" ? "require_secret" : "require_int"}(${pyString(value.name)})`;
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map((v) => render(v, indent)).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const inner = `${indent}    `;
    return `{\n${entries.map(([k, v]) => `${inner}${pyString(k)}: ${render(v, inner)},`).join("\n")}\n${indent}}`;
  }
  if (typeof value === "string") return pyString(value);
  return JSON.stringify(value);
}

/** The program for `plan` (see typescriptProgram for `inputs` and `source`). */
export function pythonProgram(plan: Plan, inputs: readonly (Props | string | undefined)[], source: string): string {
  const items = programItems(plan, inputs, variableName, ["pulumi", "garm", "garm_config"]);
  const body: string[] = [];
  for (const item of items) {
    if (item.kind === "comment") {
      body.push(`# ${item.sdkClass} ${commentQuote(item.name)} (import id ${commentQuote(item.id)}): ${commentText(item.why)}.`);
      continue;
    }
    const args = Object.entries(item.inputs)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `    ${pythonName(k)}=${render(v, "    ")},`);
    body.push(
      `${item.variable} = garm.${item.sdkClass}(`,
      `    ${pyString(item.name)},`,
      ...args,
      `    opts=pulumi.ResourceOptions(import_=${pyString(item.id)}, protect=True),`,
      ")",
    );
  }
  const lines = [
    `# Written by \`pulumi-garm import-plan --language python\` from the GARM at ${commentText(source)}. Each object is taken over with`,
    "# the `import_` option: `pulumi up` reads it from GARM and writes nothing; it then previews with no change.",
    "# Objects are protected (`protect=True`), as `pulumi import` leaves them. Once imported, take out both options: Pulumi",
    "# neither replaces nor deletes an object that is protected or still names its import id.",
    "# The secrets GARM never returns come from the stack config keys `import-plan` listed (`pulumi config set --secret …`).",
    "import pulumi",
    "import pulumi_garm as garm",
    "",
    ...(body.some((line) => line.includes("garm_config.")) ? ['garm_config = pulumi.Config("garm")', ""] : []),
  ];
  for (const line of plan.referenced) lines.push(`# Left to refer to, not imported: ${commentText(line)}.`);
  if (plan.referenced.length > 0) lines.push("");
  return `${[...lines, ...body].join("\n")}\n`;
}
