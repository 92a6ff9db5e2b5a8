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

/**
 * Which inputs name another object: the kind it names, the output that holds the name, and whether `value` names
 * `target` in the inputs `inputs` of `user`. An entity named under an endpoint (`endpoint` beside it, where two endpoints
 * hold the name) is the one on that endpoint; credentials an entity names are those on the entity's endpoint, as two
 * forges may hold one name.
 */
type Names = (target: Listed, value: unknown, inputs: Props, user: Listed) => boolean;
const onNamedEndpoint = (t: Listed, inputs: Props) => typeof inputs.endpoint !== "string" || ("endpoint" in t.view && typeof t.view.endpoint === "string" && sameEndpointName(t.view.endpoint, inputs.endpoint));
const entityNamed: Names = (t, v, inputs) => typeof v === "string" && "name" in t.view && sameEntityName(t.view.name, v) && onNamedEndpoint(t, inputs);
const REFERRING: Record<string, { readonly kinds: readonly ListedKind[]; readonly output: string; readonly names: Names }> = {
  organization: { kinds: ["organization"], output: "name", names: entityNamed },
  repository: { kinds: ["repository"], output: "name", names: entityNamed },
  enterprise: { kinds: ["enterprise"], output: "name", names: entityNamed },
  providerName: { kinds: ["garmProvider"], output: "name", names: (t, v) => "name" in t.view && t.view.name === v },
  credentials: {
    kinds: ["credentials"],
    output: "name",
    names: (t, v, _inputs, user) =>
      "name" in t.view && t.view.name === v && !(t.kind === "credentials" && "endpoint" in user.view && typeof user.view.endpoint === "string" && !sameEndpointName(t.view.endpoint, user.view.endpoint)),
  },
  endpoint: { kinds: ["endpoint"], output: "name", names: (t, v) => typeof v === "string" && "name" in t.view && sameEndpointName(t.view.name, v) },
  templateId: { kinds: ["template"], output: "templateId", names: (t, v) => "id" in t.view && t.view.id === v },
};

interface Declared {
  readonly object: Listed;
  readonly variable: string;
}

/** The inputs with each value naming exactly one declared object replaced by a reference to it; two candidates stay a literal. */
function withReferences(inputs: Props, user: Listed, declared: readonly Declared[]): Props {
  return Object.fromEntries(
    Object.entries(inputs).map(([key, value]) => {
      const rule = REFERRING[key];
      if (!rule) return [key, value];
      const targets = declared.filter((d) => rule.kinds.includes(d.object.kind) && rule.names(d.object, value, inputs, user));
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
    const item: ProgramItem = { kind: "declare", ...about, variable, inputs: withReferences(given, object, declared) };
    declared.push({ object, variable });
    return item;
  });
}
