// What a program written from the plan declares, whatever its language: each importable object with its inputs, an
// input naming another declared object turned into a reference to it, and a comment for an object that cannot be
// declared. The TypeScript and Python writers render the same items, so both refer to the same objects.
import { sameEndpointName, sameEntityName } from "../../provider/garm/names";
import { type KindRow, kindRow } from "../../provider/registry/kinds";
import { type Listed, type ListedKind, registryKey } from "./import-ids";
import type { Props } from "./inputs";
import type { Plan } from "./plan";

/** Another declared object's output (`output` as the schema spells it), which the writer renders in its language. */
export class Reference {
  constructor(
    readonly variable: string,
    readonly output: string,
  ) {}
}

/** A value GARM never returns, read from the stack config key `key` (`garm:…`) when the program runs. */
export class ConfigValue {
  constructor(
    readonly key: string,
    readonly type: "number" | "secret",
  ) {}

  /** The key within the `garm` namespace, as a program's `new Config("garm")` reads it. */
  get name(): string {
    return this.key.replace(/^garm:/, "");
  }
}

export type ProgramItem =
  | { readonly kind: "declare"; readonly sdkClass: string; readonly name: string; readonly id: string; readonly variable: string; readonly inputs: Props }
  | { readonly kind: "comment"; readonly sdkClass: string; readonly name: string; readonly id: string; readonly why: string };

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

interface Declared {
  readonly object: Listed;
  readonly variable: string;
}

/** The inputs with each value naming exactly one declared object replaced by a reference to it; two candidates stay a literal. */
function withReferences(inputs: Props, declared: readonly Declared[]): Props {
  return Object.fromEntries(
    Object.entries(inputs).map(([key, value]) => {
      const rule = REFERRING[key];
      if (!rule) return [key, value];
      const targets = declared.filter((d) => rule.kinds.includes(d.object.kind) && rule.names(d.object, value));
      return [key, targets.length === 1 ? new Reference(targets[0].variable, rule.output) : value];
    }),
  );
}

/** A variable name for `logical` in the writer's language, not yet in `taken` (which it adds to). */
export type VariableNamer = (logical: string, taken: Set<string>) => string;

/**
 * The items for `plan`, in its order; `inputs[i]` are the inputs of `plan.entries[i]`, undefined for a kind that cannot
 * be imported, or why its importer could not state them. `reserved` are the names the writer's own code uses.
 */
export function programItems(plan: Plan, inputs: readonly (Props | string | undefined)[], variableName: VariableNamer, reserved: readonly string[]): ProgramItem[] {
  const taken = new Set(reserved);
  const declared: Declared[] = [];
  return plan.entries.map(({ object, spec }, i): ProgramItem => {
    const row: KindRow = kindRow(registryKey(object.kind));
    const given = inputs[i];
    const about = { sdkClass: row.sdkClass, name: spec.name, id: spec.id };
    if (object.kind === "garmProvider" && object.garmConfigPath === undefined) {
      return { kind: "comment", ...about, why: "not written, as its entry is in GARM's config file, which import-plan was not given: run it with --garm-config <path> --garm-restart-command <command>" };
    }
    if (row.importable !== true || given === undefined) {
      const instead = row.importable === true ? "its inputs were not read" : row.importable.instead;
      return { kind: "comment", ...about, why: `this version of pulumi-garm cannot import it yet; ${instead}` };
    }
    if (typeof given === "string") return { kind: "comment", ...about, why: `not written: ${given.replace(/\n/g, " ")}` };
    const variable = variableName(spec.name, taken);
    const item: ProgramItem = { kind: "declare", ...about, variable, inputs: withReferences(given, declared) };
    declared.push({ object, variable });
    return item;
  });
}
