// `pulumi import garm:index:GarmCredentials <name> <forge>/<id>`: reads credentials GARM holds. GARM never returns the
// token or key, nor an app's ids (ForgeCredentials, params/params.go L1109-1131), so the inputs name stack config keys
// for them: the secret as tokenFromConfig / privateKeyFromConfig, the app ids read from config and written literally.
// The keys must be set before the import, so the state's digest is of the secret the program will send.
import type { CredentialsView, ForgeCalls } from "../../garm/client";
import { type ConfigLookup, missingConfigMessage, secretConfigKey } from "../../common/secrets-from-config";
import { credentialsPulumiId, parseCredentialsId } from "./identity";
import { type CheckedCredentialsInputs, withDefaults } from "./inputs";
import { toOutputs } from "./resource";

type Props = Record<string, unknown>;

/** The import id of credentials GARM lists, which is also the Pulumi id the import gives them: `<forge>/<id>`, since each forge numbers its own. */
export function credentialsImportId(view: Pick<CredentialsView, "forge" | "id">): string {
  return credentialsPulumiId(view.forge, view.id);
}

/** The config keys an import of these credentials reads: the secret, and for an app its two ids. */
export function credentialsConfigKeys(view: Pick<CredentialsView, "forge" | "name" | "authType">): { secret: string; appId?: string; installationId?: string } {
  // Credentials names are unique per forge (models.go L483, L510): the forge qualifies all but GitHub's.
  const owner = { kind: "credentials", ...(view.forge !== "github" ? { qualifier: view.forge } : {}), name: view.name, nameParts: 1 } as const;
  if (view.authType !== "app") return { secret: secretConfigKey(owner, "token") };
  return { secret: secretConfigKey(owner, "private-key"), appId: secretConfigKey(owner, "app-id"), installationId: secretConfigKey(owner, "installation-id") };
}

/**
 * The inputs that reproduce credentials GARM lists: the secret named by its config key; an app's two ids, which GARM
 * never returns either, as `appIds` gives them (the values from config, or what stands for them in a written program).
 */
export function importedCredentialsInputs<Id = number>(view: Pick<CredentialsView, "forge" | "name" | "description" | "endpoint" | "authType">, appIds: { appId: Id; installationId: Id } | undefined): Props {
  const keys = credentialsConfigKeys(view);
  const inputs: Props = {
    ...(view.forge !== "github" ? { forge: view.forge } : {}),
    name: view.name,
    ...(view.description ? { description: view.description } : {}),
    endpoint: view.endpoint,
  };
  if (view.authType !== "app") return { ...inputs, tokenFromConfig: keys.secret };
  if (!appIds) throw new Error(`importedCredentialsInputs: GitHub App credentials ${view.name} need their app and installation ids`);
  return { ...inputs, appId: appIds.appId, installationId: appIds.installationId, privateKeyFromConfig: keys.secret };
}

/** Reads the credentials for import; throws naming every `pulumi config set` still needed. */
export async function importCredentials(client: Pick<ForgeCalls, "getCredentials">, id: string, config: ConfigLookup): Promise<{ id: string; props: Props; inputs: Props }> {
  const { forge, credentialsId } = parseCredentialsId(id);
  const view = await client.getCredentials(forge, credentialsId);
  const keys = credentialsConfigKeys({ ...view, forge });
  const label = `GarmCredentials ${view.name}`;
  const needed: [string, string][] = [[keys.secret, view.authType === "app" ? "private key" : "token"]];
  if (keys.appId && keys.installationId) needed.push([keys.appId, "app id"], [keys.installationId, "installation id"]);
  const missing = needed.filter(([key]) => !config(key));
  if (missing.length > 0) throw new Error(missing.map(([key, what]) => missingConfigMessage(label, key, what)).join("; "));
  const appIds = view.authType === "app" ? { appId: wholeNumber(config(keys.appId!)!, keys.appId!, label), installationId: wholeNumber(config(keys.installationId!)!, keys.installationId!, label) } : undefined;
  const inputs = importedCredentialsInputs({ ...view, forge }, appIds);
  const secret = view.authType === "app" ? { privateKey: config(keys.secret) } : { token: config(keys.secret) };
  const checked: CheckedCredentialsInputs = withDefaults({ ...(inputs as Parameters<typeof withDefaults>[0]), ...secret });
  // The outputs hold the secret's digest only, as after a create.
  return { id: credentialsPulumiId(forge, view.id), props: (await toOutputs(view.id, checked)) as unknown as Props, inputs };
}

function wholeNumber(text: string, key: string, label: string): number {
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${label}: stack config ${key} is "${text}"; it must be a whole number: run \`pulumi config set ${key} <number>\``);
  return n;
}
