// Translation between the resource-provider protocol's property values and the plain objects provider/ works with:
// secrets, resource types, provider config and detailed diffs. Pure functions; the gRPC server applies them.
import { isDeepStrictEqual } from "node:util";
import type { ConfigSource } from "../provider/common/config";
import type { FieldChange } from "../provider/common/planned-diff";

/** The key and value marking a secret in a protobuf Struct (Pulumi's "special signature"). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

type Props = Record<string, unknown>;

function isSecret(value: unknown): value is { value: unknown } {
  return value !== null && typeof value === "object" && (value as Props)[SIG_KEY] === SECRET_SIG;
}

/** Replaces every secret with its value; returns the plain properties and the top-level keys that held a secret. */
export function revealSecrets(props: Props): { plain: Props; secretKeys: Set<string> } {
  const secretKeys = new Set<string>();
  const reveal = (value: unknown): { value: unknown; secret: boolean } => {
    if (isSecret(value)) return { value: reveal(value.value).value, secret: true };
    if (Array.isArray(value)) {
      const items = value.map(reveal);
      return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
    }
    if (value !== null && typeof value === "object") {
      const entries = Object.entries(value as Props).map(([k, v]) => [k, reveal(v)] as const);
      return { value: Object.fromEntries(entries.map(([k, r]) => [k, r.value])), secret: entries.some(([, r]) => r.secret) };
    }
    return { value, secret: false };
  };
  const plain: Props = {};
  for (const [key, value] of Object.entries(props)) {
    const r = reveal(value);
    plain[key] = r.value;
    if (r.secret) secretKeys.add(key);
  }
  return { plain, secretKeys };
}

/** Marks the given top-level keys secret again, so a secret input never comes back as a plain output. */
export function concealSecrets(props: Props, secretKeys: ReadonlySet<string>): Props {
  return Object.fromEntries(
    Object.entries(props).map(([k, v]) => [k, secretKeys.has(k) && v !== undefined ? { [SIG_KEY]: SECRET_SIG, value: v } : v]),
  );
}

/** Drops keys whose value is undefined: a protobuf Struct cannot carry them. */
export function defined(props: Props): Props {
  return JSON.parse(JSON.stringify(props)) as Props;
}

/** The resource type of a URN: `urn:pulumi:stack::project::parent$garm:index:ScaleSet::name` gives garm:index:ScaleSet. */
export function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  return qualified.split("$").pop() ?? "";
}

/** Stack, project and resource name of a URN. */
export function urnParts(urn: string): { stack: string; project: string; name: string } {
  const parts = urn.split("::");
  return { stack: (parts[0] ?? "").replace(/^urn:pulumi:/, ""), project: parts[1] ?? "", name: parts.slice(3).join("::") };
}

/**
 * The provider configuration as provider/config.ts reads it (`garm:url`, ...). Configure carries it as `args` (typed,
 * secrets marked) and, for older engines, as `variables` keyed `garm:config:url`.
 */
export function configSource(args: Props | undefined, variables: ReadonlyMap<string, string> | Map<string, string>): ConfigSource {
  const plain = args ? revealSecrets(args).plain : {};
  return {
    get(key: string): string | undefined {
      const name = key.replace(/^garm:/, "");
      const typed = plain[name];
      if (typed !== undefined && typed !== null) return typeof typed === "string" ? typed : JSON.stringify(typed);
      return variables.get(`garm:config:${name}`) ?? variables.get(`garm:${name}`);
    },
  };
}

export type PropertyDiffKind = "add" | "addReplace" | "delete" | "deleteReplace" | "update" | "updateReplace";

/**
 * The engine's detailed diff of a resource: the fields its kind's diff marked, each with its kind, and whether the old
 * value to show is the old input (pulumi-behaviour.md §1.3). Resources are compared by their kind, never here.
 */
export function detailedDiffOf(fields: Readonly<Record<string, FieldChange>>): Record<string, { kind: PropertyDiffKind; inputDiff: boolean }> {
  return Object.fromEntries(
    Object.entries(fields).map(([field, change]) => [field, { kind: (change.replaces ? `${change.kind}Replace` : change.kind) as PropertyDiffKind, inputDiff: change.oldFromInputs }]),
  );
}

/** The provider configuration keys whose values differ between the old and new settings (DiffConfig). */
export function changedConfigKeys(olds: Props, news: Props): string[] {
  return [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((key) => !isDeepStrictEqual(olds[key], news[key]));
}
