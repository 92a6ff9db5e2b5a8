// GarmCredentials' pure diff. GARM updates name, description and the secret in place (UpdateGithubCredentialsParams,
// params/requests.go L520-525); the endpoint and the auth type are fixed (database/sql/github.go L437-458).
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { type PlannedDiff, plannedDiff } from "../../common/planned-diff";
import { secretMatches } from "../../common/secret-digest";
import { sameCredentialsName, sameEndpointName } from "../../garm/names";
import { type CheckedCredentialsInputs, type CredentialsOutputs, secretMaterial } from "./inputs";

export type UpdatableCredentialsField = "name" | "description" | "secret";

/** The inputs GARM's update sends whose new value differs: the secret's by its digest, since GARM never shows it. */
async function changedCredentialsInputs(olds: CredentialsOutputs, news: Partial<CheckedCredentialsInputs>): Promise<string[]> {
  const inputs: string[] = [];
  if (news.name !== undefined && news.name !== olds.name) inputs.push("name");
  if (news.description !== undefined && news.description !== olds.description) inputs.push("description");
  if (news.authType === "app") {
    if (news.appId !== olds.appId) inputs.push("appId");
    if (news.installationId !== olds.installationId) inputs.push("installationId");
  }
  if (!(await secretMatches({ salt: olds.secretSalt, digest: olds.secretDigest }, secretMaterial(news)))) {
    inputs.push(news.token !== undefined ? "token" : "privateKey");
  }
  return inputs;
}

/** What an update would send: the secret counts as changed when its digest, or an app id, differs. */
export async function changedCredentialsFields(olds: CredentialsOutputs, news: Partial<CheckedCredentialsInputs>): Promise<UpdatableCredentialsField[]> {
  const inputs = await changedCredentialsInputs(olds, news);
  const fields: UpdatableCredentialsField[] = (["name", "description"] as const).filter((f) => inputs.includes(f));
  if (inputs.some((f) => !["name", "description"].includes(f))) fields.push("secret");
  return fields;
}

export const REPLACE_REASONS: Record<string, string> = {
  endpoint: "GARM cannot move credentials to another endpoint",
  forge: "GitHub and Gitea credentials are separate kinds in GARM",
  authType: "GARM cannot turn a token into app credentials or back",
};

export async function diffCredentials(olds: CredentialsOutputs, newsRaw: object): Promise<PlannedDiff> {
  const news = withoutProviderKey(newsRaw as Record<string, unknown>) as Partial<CheckedCredentialsInputs>;
  const differs = (f: "endpoint" | "forge" | "authType") =>
    news[f] !== undefined && (f === "endpoint" ? !sameEndpointName(String(news.endpoint), olds.endpoint) : news[f] !== olds[f]);
  const replaces = (["endpoint", "forge", "authType"] as const).filter(differs);
  // Names are unique per forge's table, ignoring case (database/sql/models.go L483, L510): renamed credentials, or
  // credentials moving to the other forge's table, can be created first; a forge not yet known may be the same one.
  const otherForge = typeof news.forge === "string" && !containsUnknown(news.forge) && news.forge !== olds.forge;
  const name = news.name ?? olds.name;
  const sameName = typeof name === "string" && !containsUnknown(name) && sameCredentialsName(name, olds.name);
  const updates = await changedCredentialsInputs(olds, news);
  if (news.adoptExisting !== undefined && news.adoptExisting !== olds.adoptExisting) updates.push("adoptExisting");
  // The secret GARM holds, of which the outputs keep only the digest: a new one is an update, not an add.
  const digested = olds.secretDigest ? [olds.authType === "app" ? "privateKey" : "token"] : [];
  return plannedDiff({ olds, news, replaces, updates, deleteBeforeReplace: !otherForge && sameName, digested });
}
