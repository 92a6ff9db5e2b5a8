// The plan as a TypeScript program: each object declared with its pulumi-garm class and the `import` option, so `pulumi
// up` takes it over with no change to GARM; an input naming another declared object becomes a reference to it, and a
// kind that cannot be imported yet is a comment saying how to take it over instead.
import { sameEndpointName, sameEntityName } from "../../provider/garm/names";
import { kindRow } from "../../provider/registry/kinds";
import { type Listed, type ListedKind, registryKey } from "./import-ids";
import type { Props } from "./inputs";
import type { Plan } from "./plan";

/** A reference to another declared object's output, written as `variable.output`. */
class Reference {
  constructor(readonly expression: string) {}
}

interface Declared {
  readonly object: Listed;
  readonly variable: string;
}

/** Which inputs name another object: the kind it names, the output that holds the name, and whether `value` names `target`. */
const REFERRING: Record<string, { readonly kinds: readonly ListedKind[]; readonly output: string; readonly names: (target: Listed, value: unknown) => boolean }> = {
  organization: { kinds: ["organization"], output: "name", names: (t, v) => typeof v === "string" && "name" in t.view && sameEntityName(t.view.name, v) },
  repository: { kinds: ["repository"], output: "name", names: (t, v) => typeof v === "string" && "name" in t.view && sameEntityName(t.view.name, v) },
  enterprise: { kinds: ["enterprise"], output: "name", names: (t, v) => typeof v === "string" && "name" in t.view && sameEntityName(t.view.name, v) },
  providerName: { kinds: ["garmProvider"], output: "name", names: (t, v) => "name" in t.view && t.view.name === v },
  credentials: { kinds: ["credentials"], output: "name", names: (t, v) => "name" in t.view && t.view.name === v },
  endpoint: { kinds: ["endpoint"], output: "name", names: (t, v) => typeof v === "string" && "name" in t.view && sameEndpointName(t.view.name, v) },
  templateId: { kinds: ["template"], output: "templateId", names: (t, v) => "id" in t.view && t.view.id === v },
};

/** `scaleset-ci-small` → `scalesetCiSmall`, unique among `taken`. */
function variableName(logical: string, taken: Set<string>): string {
  const base = logical.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9_$]/g, "_");
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

/** The inputs with each value naming exactly one declared object replaced by a reference to it; two candidates stay a literal. */
function withReferences(inputs: Props, declared: readonly Declared[]): Props {
  return Object.fromEntries(
    Object.entries(inputs).map(([key, value]) => {
      const rule = REFERRING[key];
      if (!rule) return [key, value];
      const targets = declared.filter((d) => rule.kinds.includes(d.object.kind) && rule.names(d.object, value));
      return [key, targets.length === 1 ? new Reference(`${targets[0].variable}.${rule.output}`) : value];
    }),
  );
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `value` as TypeScript source, objects and arrays over several lines at `indent`. */
function render(value: unknown, indent: string): string {
  if (value instanceof Reference) return value.expression;
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[${value.map((v) => render(v, indent)).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${IDENTIFIER.test(k) ? k : JSON.stringify(k)}: ${render(v, inner)},`).join("\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/**
 * The program for `plan`; `inputs[i]` are the inputs of `plan.entries[i]`, undefined for a kind that cannot be imported,
 * or why its importer could not state them.
 * `source` names the GARM read, for the opening comment.
 */
export function typescriptProgram(plan: Plan, inputs: readonly (Props | string | undefined)[], source: string): string {
  const taken = new Set<string>(["garm", "pulumi"]);
  const declared: Declared[] = [];
  const lines = [
    `// Written by \`pulumi-garm import-plan --language typescript\` from the GARM at ${source}. Each object is taken over with`,
    "// the `import` option: `pulumi up` reads it from GARM and writes nothing; it then previews with no change. Once imported,",
    "// the `import` options may be removed. Objects are protected (`protect: true`), as `pulumi import` leaves them.",
    'import * as garm from "pulumi-garm";',
    "",
  ];
  for (const line of plan.referenced) lines.push(`// Left to refer to, not imported: ${line}.`);
  if (plan.referenced.length > 0) lines.push("");
  plan.entries.forEach(({ object, spec }, i) => {
    const row = kindRow(registryKey(object.kind));
    const given = inputs[i];
    if (row.importable !== true || given === undefined) {
      const instead = row.importable === true ? "its inputs were not read" : row.importable.instead;
      lines.push(`// ${row.sdkClass} ${JSON.stringify(spec.name)} (import id ${spec.id}): this version of pulumi-garm cannot import it yet; ${instead}.`);
      return;
    }
    if (typeof given === "string") {
      lines.push(`// ${row.sdkClass} ${JSON.stringify(spec.name)} (import id ${spec.id}): not written, as import-plan reads no stack config: ${given.replace(/\n/g, " ")}; or import it with the garm plugin.`);
      return;
    }
    const variable = variableName(spec.name, taken);
    const args = render(withReferences(given, declared), "");
    lines.push(`const ${variable} = new garm.${row.sdkClass}(${JSON.stringify(spec.name)}, ${args}, { import: ${JSON.stringify(spec.id)}, protect: true });`);
    declared.push({ object, variable });
  });
  return `${lines.join("\n")}\n`;
}
