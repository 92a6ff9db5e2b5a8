// The stack config an import needs before `pulumi import` (or the TypeScript program's `pulumi up`) can read what GARM
// never returns: each credential's token or App key (and an App's ids), each entity's webhook secret. The keys are the
// importers' own (credentialsConfigKeys, entityWebhookSecretKey), so the commands name exactly what they read.
import { credentialsConfigKeys } from "../../provider/kinds/credentials/import";
import { entityWebhookSecretKey } from "../../provider/kinds/entity/import";
import type { PlanEntry } from "./plan";

/** One `pulumi config set` line per value the plan's credentials and entities need, in the plan's order. */
export function configCommandsFor(entries: readonly PlanEntry[]): string[] {
  const commands: string[] = [];
  for (const { object } of entries) {
    if (object.kind === "credentials") {
      const keys = credentialsConfigKeys(object.view);
      // A PEM key spans lines: `pulumi config set` reads a value from stdin when none is given (pulumi-behaviour.md §4).
      const value = object.view.authType === "app" ? "< app-private-key.pem" : "'<the token>'";
      commands.push(`pulumi config set --secret ${keys.secret} ${value}   # credentials ${object.view.name}`);
      if (keys.appId) commands.push(`pulumi config set ${keys.appId} '<the App id>'   # credentials ${object.view.name}`);
      if (keys.installationId) commands.push(`pulumi config set ${keys.installationId} '<the installation id>'   # credentials ${object.view.name}`);
    } else if (object.kind === "organization" || object.kind === "repository" || object.kind === "enterprise") {
      commands.push(`pulumi config set --secret ${entityWebhookSecretKey(object.kind, object.view)} '<the webhook secret>'   # ${object.kind} ${object.view.name}`);
    }
  }
  return commands;
}
