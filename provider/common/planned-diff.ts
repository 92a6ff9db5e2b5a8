// What a kind's diff decides, field by field: the one result both front doors get. The kind compares the new inputs
// with the outputs (what GARM holds, as the last create, update or refresh saw it) by its own rules; the plugin turns
// the fields into the engine's detailed diff (pulumi-behaviour.md §1.3), the dynamic provider's host keeps only the
// decision (§1.2 of that page).
import type * as pulumi from "@pulumi/pulumi";

/** How one input changes: given now and not held before, held and given anew, or held and no longer given. */
export type FieldChangeKind = "add" | "update" | "delete";

export interface FieldChange {
  readonly kind: FieldChangeKind;
  /** The change forces a replacement. */
  readonly replaces: boolean;
  /** The outputs keep only a digest of what GARM holds (a secret): the old value to show is the old input. */
  readonly oldFromInputs: boolean;
}

export interface PlannedDiff extends pulumi.dynamic.DiffResult {
  readonly changes: boolean;
  readonly replaces: string[];
  readonly deleteBeforeReplace: boolean;
  /** Every input the update sends to GARM or stores, and every one that forces the replacement; nothing else. */
  readonly fields: Readonly<Record<string, FieldChange>>;
}

export interface PlanParts {
  /** The stored outputs the kind compared against. */
  readonly olds: object;
  /** The checked new inputs. */
  readonly news: object;
  /** Inputs whose change the update sends to GARM, or stores when only this provider reads them. */
  readonly updates: readonly string[];
  /** Inputs whose change forces a replacement. */
  readonly replaces: readonly string[];
  readonly deleteBeforeReplace?: boolean;
  readonly stables?: readonly string[];
  /** An update no input shows (a GarmProvider block GARM never confirmed): planned with no field to mark. */
  readonly unmarked?: boolean;
  /** Inputs GARM holds whose outputs are only a digest, so an absent output does not make the change an add. */
  readonly digested?: readonly string[];
}

/** The diff of `parts`: a change when any field is marked (or `unmarked`), each field with how it changes. */
export function plannedDiff(parts: PlanParts): PlannedDiff {
  const olds = parts.olds as Record<string, unknown>;
  const news = parts.news as Record<string, unknown>;
  const digested = new Set(parts.digested ?? []);
  const fields: Record<string, FieldChange> = {};
  for (const field of [...parts.replaces, ...parts.updates]) {
    if (field in fields) continue;
    const held = olds[field] !== undefined || digested.has(field);
    const kind: FieldChangeKind = news[field] === undefined ? "delete" : held ? "update" : "add";
    fields[field] = { kind, replaces: parts.replaces.includes(field), oldFromInputs: digested.has(field) };
  }
  const replaces = [...new Set(parts.replaces)];
  return {
    changes: Object.keys(fields).length > 0 || parts.unmarked === true,
    replaces,
    ...(parts.stables ? { stables: [...parts.stables] } : {}),
    deleteBeforeReplace: replaces.length > 0 && parts.deleteBeforeReplace === true,
    fields,
  };
}

/** `planned` with `also` marked as updates too (an update diff learned of from GARM itself, e.g. drained fields). */
export function alsoUpdating(planned: PlannedDiff, olds: object, news: object, also: readonly string[]): PlannedDiff {
  const extra = plannedDiff({ olds, news, updates: also.filter((f) => !(f in planned.fields)), replaces: [] });
  return { ...planned, changes: planned.changes || extra.changes, fields: { ...planned.fields, ...extra.fields } };
}

type DynamicDiff = NonNullable<pulumi.dynamic.ResourceProvider["diff"]>;

/** A kind's methods as both front doors call them: the dynamic provider's without configure, diff answering a PlannedDiff. */
export type KindMethods = Omit<pulumi.dynamic.ResourceProvider, "configure" | "diff"> & {
  diff(...args: Parameters<DynamicDiff>): Promise<PlannedDiff>;
};

/** The same methods with the dynamic provider's configure. */
export type KindProvider = KindMethods & Pick<pulumi.dynamic.ResourceProvider, "configure">;
