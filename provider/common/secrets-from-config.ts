// Secret inputs given by the name of a stack config key (`tokenFromConfig: garm:credentials-ci-token`) instead of the
// value: what `pulumi import` writes for the secrets GARM never returns, since the program it writes holds inputs
// literally. Check puts the value in place of the key, so every other method sees the secret as if it were given.
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

/** A config key in the `garm:` namespace (the only one the provider receives) made of `parts`, in lower case. */
export function configKeyOf(...parts: string[]): string {
  const slug = parts
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `garm:${slug}`;
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
