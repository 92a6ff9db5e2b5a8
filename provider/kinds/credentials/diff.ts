// GarmCredentials' pure diff. GARM updates name, description and the secret in place (UpdateGithubCredentialsParams,
// params/requests.go L520-525); the endpoint and the auth type are fixed (database/sql/github.go L437-458).
import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { secretMatches } from "../../common/secret-digest";
import { sameCredentialsName, sameEndpointName } from "../../garm/names";
import { type CheckedCredentialsInputs, type CredentialsOutputs, secretMaterial } from "./inputs";

export type UpdatableCredentialsField = "name" | "description" | "secret";

/** What an update would send: the secret counts as changed when its digest, or an app id, differs. */
export async function changedCredentialsFields(olds: CredentialsOutputs, news: Partial<CheckedCredentialsInputs>): Promise<UpdatableCredentialsField[]> {
  const fields: UpdatableCredentialsField[] = [];
  if (news.name !== undefined && news.name !== olds.name) fields.push("name");
  if (news.description !== undefined && news.description !== olds.description) fields.push("description");
  const secretChanged =
    (news.authType === "app" && (news.appId !== olds.appId || news.installationId !== olds.installationId)) ||
    !(await secretMatches({ salt: olds.secretSalt, digest: olds.secretDigest }, secretMaterial(news)));
  if (secretChanged) fields.push("secret");
  return fields;
}

export const REPLACE_REASONS: Record<string, string> = {
  endpoint: "GARM cannot move credentials to another endpoint",
  forge: "GitHub and Gitea credentials are separate kinds in GARM",
  authType: "GARM cannot turn a token into app credentials or back",
};

export async function diffCredentials(olds: CredentialsOutputs, newsRaw: object): Promise<pulumi.dynamic.DiffResult> {
  const news = withoutProviderKey(newsRaw as Record<string, unknown>) as Partial<CheckedCredentialsInputs>;
  const differs = (f: "endpoint" | "forge" | "authType") =>
    news[f] !== undefined && (f === "endpoint" ? !sameEndpointName(String(news.endpoint), olds.endpoint) : news[f] !== olds[f]);
  const replaces = (["endpoint", "forge", "authType"] as const).filter(differs);
  if (replaces.length > 0) {
    // Names are unique per forge's table, ignoring case (database/sql/models.go L483, L510): renamed credentials, or
    // credentials moving to the other forge's table, can be created first; a forge not yet known may be the same one.
    const otherForge = typeof news.forge === "string" && !containsUnknown(news.forge) && news.forge !== olds.forge;
    const name = news.name ?? olds.name;
    const sameName = typeof name === "string" && !containsUnknown(name) && sameCredentialsName(name, olds.name);
    return { changes: true, replaces: [...replaces], deleteBeforeReplace: !otherForge && sameName };
  }
  const changed = await changedCredentialsFields(olds, news);
  const providerOnly = news.adoptExisting !== undefined && news.adoptExisting !== olds.adoptExisting;
  return { changes: changed.length > 0 || providerOnly, replaces: [], deleteBeforeReplace: false };
}
