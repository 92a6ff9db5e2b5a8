// Secret inputs given by the name of a stack config key (`tokenFromConfig: garm:credentials-ci-token`) instead of the
// value: what `pulumi import` writes for the secrets GARM never returns, since the program it writes holds inputs
// literally. Check puts the value in place of the key, so every other method sees the secret as if it were given.
import { createHash } from "node:crypto";
import { foldAscii } from "../garm/names";
import { UNKNOWN, containsUnknown } from "./unknown";
import { type Failure, fail } from "./input-check";

/** Reads a stack config value by its full key (`garm:…`); undefined when unset. */
export type ConfigLookup = (key: string) => string | undefined;

/** A secret input and the input that may name the config key holding it instead. */
export interface SecretFromConfig {
  readonly secret: string;
  readonly keyInput: string;
  /** What the value is, for the `pulumi config set` placeholder: "token", "private key". */
  readonly what: string;
}

const KEY = /^garm:[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A part of a key that reads back as itself: ASCII lower-case letters and digits, a single `-` or `.` between them. */
const PLAIN_PART = /^[a-z0-9]+(?:[-.][a-z0-9]+)*$/;

/** The object a secret belongs to, as GARM tells its objects apart: the kind, a qualifier, and its name. */
export interface SecretOwner {
  /** The key's first word: `credentials`, `organization`, `repository`, `enterprise`. */
  readonly kind: string;
  /** What tells it from an object of the same name elsewhere, where it is not the default: the forge, the endpoint. */
  readonly qualifier?: string;
  /** Its name, in the number of `/`-separated parts every name of the kind has (a repository's `owner/name`: 2). */
  readonly name: string;
  readonly nameParts: 1 | 2;
}

/**
 * The stack config key of one object's secret (`what`: "token", "webhook-secret"), the same for the same object in every
 * run and on every machine, and never another object's: `garm:<kind>-<parts>-<what>`, the parts being the qualifier
 * and the name's parts, in GARM's own case folding (ASCII lower case), joined by `--`: `garm:credentials-acme-pat-token`,
 * `garm:credentials-gitea--ci-token`, `garm:repository-acme--app-webhook-secret`,
 * `garm:organization-ghes--acme-webhook-secret`.
 *
 * Why two objects never share a key: a plain part holds neither `--` nor `_`, so for a kind (whose parts are a fixed
 * number, plus the qualifier or not) the parts read back from the key, and they are the object's identity; no `what`
 * ends in `-` and another `what`. Where a part is not plain (other characters, which a key cannot hold, or a doubled or
 * leading separator), the key is the readable form followed by `_` and 8 hex digits of the SHA-256 of the identity: a
 * plain key holds no `_`, and two such keys are equal only where the hashes are.
 */
export function secretConfigKey(owner: SecretOwner, what: string): string {
  const qualifier = owner.qualifier === undefined ? [] : [foldAscii(owner.qualifier)];
  const name = foldAscii(owner.name);
  const nameParts = name.split("/");
  const parts = [...qualifier, ...nameParts];
  if (nameParts.length === owner.nameParts && parts.every((p) => PLAIN_PART.test(p))) return `garm:${owner.kind}-${parts.join("--")}-${what}`;
  const readable = parts
    .map((p) => p.replace(/[^a-z0-9.]+/g, "-").replace(/^[-.]+|[-.]+$/g, ""))
    .filter((p) => p !== "")
    .join("--");
  const identity = JSON.stringify([owner.kind, owner.qualifier === undefined ? null : foldAscii(owner.qualifier), name]);
  const hash = createHash("sha256").update(identity, "utf8").digest("hex").slice(0, 8);
  return `garm:${owner.kind}-${readable}_${hash}-${what}`;
}

/** The command that sets a key's secret, as messages show it. */
export const configSetCommand = (key: string, what: string): string => `pulumi config set --secret ${key} <${what.replace(/ /g, "-")}>`;

/** Why an import or a check needs a key set: one line, naming the command. */
export function missingConfigMessage(resource: string, key: string, what: string): string {
  return `${resource}: GARM never returns its ${what}, so it is taken from stack config ${key}, which is not set: run \`${configSetCommand(key, what)}\` (the ${what} GARM holds), then run again`;
}

/**
 * The inputs with each secret named by a config key replaced by the key's value (the key input stays, so the program's
 * inputs and the state's agree); a key not set, malformed, or given beside the secret itself is a failure on the key.
 * `config` is undefined where the front door has no stack config to give (the Node dynamic provider).
 */
export function secretsFromConfig(
  resource: string,
  news: Record<string, unknown>,
  pairs: readonly SecretFromConfig[],
  config: ConfigLookup | undefined,
): { news: Record<string, unknown>; failures: Failure[] } {
  const out = { ...news };
  const failures: Failure[] = [];
  for (const { secret, keyInput, what } of pairs) {
    const key = news[keyInput];
    if (key === undefined || key === null) continue;
    if (typeof key !== "string") {
      failures.push(fail(keyInput, `${keyInput} must be the name of a stack config key, e.g. "garm:my-${secret}"`));
      continue;
    }
    if (key === UNKNOWN || containsUnknown(key)) continue;
    if (!KEY.test(key)) {
      failures.push(fail(keyInput, `${keyInput} "${key}" must name a key in the garm: namespace, e.g. "garm:my-${secret}" (the provider receives only garm: config)`));
      continue;
    }
    if (news[secret] !== undefined) {
      failures.push(fail(keyInput, `set either ${secret} or ${keyInput}, not both`));
      continue;
    }
    if (config === undefined) {
      // The Node dynamic provider would keep a value it added in clear in the state: it takes the secret itself only.
      failures.push(fail(keyInput, `${keyInput} is read by the garm resource plugin only; in a TypeScript program pass ${secret}: new pulumi.Config("garm").requireSecret("${key.slice(5)}") instead`));
      continue;
    }
    const value = config(key);
    if (value === undefined || value === "") {
      failures.push(fail(keyInput, missingConfigMessage(resource, key, what)));
      continue;
    }
    out[secret] = value;
  }
  return { news: out, failures };
}
