// The stack config an import needs before `pulumi import` (or the TypeScript program's `pulumi up`) can read what GARM
// never returns: each credential's token or App key (and an App's ids), each entity's webhook secret. The keys are the
// importers' own (credentialsConfigKeys, entityWebhookSecretKey), so the commands name exactly what they read, and each
// object has its own (secretConfigKey): the plan checks that no two share one, as one `pulumi config set` would
// overwrite the other's value. Every word taken from GARM goes through the shell escaper, and names only into a comment,
// quoted.
import { sameEndpointName } from "../../provider/garm/names";
import { credentialsConfigKeys } from "../../provider/kinds/credentials/import";
import { DEFAULT_ENDPOINT } from "../../provider/kinds/endpoint/inputs";
import { entityWebhookSecretKey } from "../../provider/kinds/entity/import";
import { commentQuote, shellWord } from "./escape";
import type { PlanEntry } from "./plan";

interface SecretLine {
  readonly key: string;
  readonly secret: boolean;
  /** The placeholder, as shell text. */
  readonly value: string;
  /** The object, for the line's comment and the clash message. */
  readonly about: string;
}

/** Each config value the plan's credentials and entities need, in the plan's order. */
function secretLines(entries: readonly PlanEntry[]): SecretLine[] {
  const lines: SecretLine[] = [];
  for (const { object } of entries) {
    if (object.kind === "credentials") {
      const keys = credentialsConfigKeys(object.view);
      const about = `${object.view.forge === "github" ? "" : `${object.view.forge} `}credentials ${commentQuote(object.view.name)}`;
      // A PEM key spans lines: `pulumi config set` reads a value from stdin when none is given (pulumi-behaviour.md §4).
      const value = object.view.authType === "app" ? "< app-private-key.pem" : "'<the token>'";
      lines.push({ key: keys.secret, secret: true, value, about });
      if (keys.appId) lines.push({ key: keys.appId, secret: false, value: "'<the App id>'", about });
      if (keys.installationId) lines.push({ key: keys.installationId, secret: false, value: "'<the installation id>'", about });
    } else if (object.kind === "organization" || object.kind === "repository" || object.kind === "enterprise") {
      const onEndpoint = object.view.endpoint && !sameEndpointName(object.view.endpoint, DEFAULT_ENDPOINT) ? ` on endpoint ${commentQuote(object.view.endpoint)}` : "";
      const about = `${object.kind} ${commentQuote(object.view.name)}${onEndpoint}`;
      lines.push({ key: entityWebhookSecretKey(object.kind, object.view), secret: true, value: "'<the webhook secret>'", about });
    }
  }
  return lines;
}

/** Throws naming both objects where two would read one key (the key rule makes that a hash collision). */
export function checkSecretKeys(entries: readonly PlanEntry[]): void {
  const owner = new Map<string, string>();
  for (const { key, about } of secretLines(entries)) {
    const first = owner.get(key);
    if (first !== undefined && first !== about) throw new Error(`${first} and ${about} would both read stack config ${key}: report this, with the two names`);
    owner.set(key, about);
  }
}

/** One `pulumi config set` line per value the plan's credentials and entities need, in the plan's order. */
export function configCommandsFor(entries: readonly PlanEntry[]): string[] {
  checkSecretKeys(entries);
  return secretLines(entries).map(({ key, secret, value, about }) => `pulumi config set ${secret ? "--secret " : ""}${shellWord(key)} ${value}   # ${about}`);
}
