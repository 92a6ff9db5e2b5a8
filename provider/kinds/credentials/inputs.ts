// GarmCredentials' input schema (the documentation source for schema.json and the SDK args) and the state it writes.
// The token and private key are inputs only: the state keeps a slow salted digest of them (common/secret-digest.ts).
import { z } from "zod";
import { digestOfVersion1 } from "../../common/secret-digest";
import { secretInput } from "../../common/secret-inputs";
import { readableStateVersion, stateStamp, type StateStamp } from "../../common/state-version";
import { FORGES } from "../../common/forges";

/** 2: the secret's digest is scrypt ("scrypt:…"); 1 held a bare salted sha256, read as "sha256:…". */
export const STATE_VERSION = 2;

export const credentialsInputSchema = z
  .object({
    forge: z.enum(FORGES).optional().describe('The endpoint\'s forge: "github" or "gitea". Defaults to "github". Changing it replaces the credentials.'),
    name: z.string().describe("Credentials name; organizations, repositories and enterprises refer to it. At most 64 characters. Changed in place."),
    description: z.string().optional().describe('Description GARM shows. Defaults to "".'),
    endpoint: z
      .string()
      .describe('Name of the endpoint the credentials belong to: a GarmEndpoint\'s `name` output, or "github.com" for GARM\'s default endpoint. Changing it replaces the credentials.'),
    token: secretInput(
      z.string().optional().describe("Personal access token (GitHub) or access token (Gitea). Secret: kept out of outputs. Rotating it updates GARM in place."),
    ),
    tokenFromConfig: z
      .string()
      .optional()
      .describe(
        'Instead of token: the stack config key holding it, in the garm: namespace, e.g. "garm:credentials-ci-token" (set with `pulumi config set --secret`). `pulumi import` writes this, since GARM never returns the token.',
      ),
    appId: z.number().int().optional().describe("GitHub App id (with installationId and privateKey, instead of token)."),
    installationId: z.number().int().optional().describe("GitHub App installation id."),
    privateKey: secretInput(
      z
        .string()
        .optional()
        .describe('GitHub App private key, PEM text of a PKCS#1 RSA key ("-----BEGIN RSA PRIVATE KEY-----"). Secret: kept out of outputs. Rotating it updates GARM in place.'),
    ),
    privateKeyFromConfig: z
      .string()
      .optional()
      .describe('Instead of privateKey: the stack config key holding it, in the garm: namespace (set with `pulumi config set --secret`). `pulumi import` writes this, since GARM never returns the key.'),
    adoptExisting: z.boolean().optional().describe("Manage existing credentials of this name instead of failing; their secret is set from the inputs. Defaults to false."),
  })
  .describe("GARM credentials for a forge endpoint: a token, or a GitHub App.");

export type CredentialsInputs = z.infer<typeof credentialsInputSchema>;

export type AuthType = "pat" | "app";

/** Inputs after check: defaults filled in, the auth type derived from which secret is given. */
export interface CheckedCredentialsInputs {
  forge: (typeof FORGES)[number];
  name: string;
  description: string;
  endpoint: string;
  authType: AuthType;
  token?: string;
  appId?: number;
  installationId?: number;
  privateKey?: string;
  /** The config keys the secret came from (secrets-from-config.ts); kept so state and program inputs agree. */
  tokenFromConfig?: string;
  privateKeyFromConfig?: string;
  adoptExisting: boolean;
}

export interface CredentialsOutputs extends StateStamp {
  credentialsId: number;
  forge: (typeof FORGES)[number];
  name: string;
  description: string;
  endpoint: string;
  authType: AuthType;
  appId?: number;
  installationId?: number;
  secretSalt: string;
  secretDigest: string;
  adoptExisting: boolean;
}

export function withDefaults(i: CredentialsInputs): CheckedCredentialsInputs {
  const authType: AuthType = i.token !== undefined ? "pat" : "app";
  const checked: CheckedCredentialsInputs = {
    forge: i.forge ?? "github",
    name: i.name,
    description: i.description ?? "",
    endpoint: i.endpoint,
    authType,
    adoptExisting: i.adoptExisting ?? false,
  };
  if (authType === "pat") Object.assign(checked, { token: i.token }, i.tokenFromConfig !== undefined ? { tokenFromConfig: i.tokenFromConfig } : {});
  else {
    Object.assign(checked, { appId: i.appId, installationId: i.installationId, privateKey: i.privateKey });
    if (i.privateKeyFromConfig !== undefined) checked.privateKeyFromConfig = i.privateKeyFromConfig;
  }
  return checked;
}

/** The secret as its digest is made: which field holds it, then the secret (so a token and an equal key differ). */
export function secretMaterial(i: { token?: string; privateKey?: string }): string {
  return i.token !== undefined ? `token\n${i.token}` : `privateKey\n${i.privateKey ?? ""}`;
}

export function readCredentialsOutputs(props: Record<string, unknown>): CredentialsOutputs {
  const version = readableStateVersion("GarmCredentials", props, STATE_VERSION);
  const p = props as Partial<CredentialsOutputs>;
  return {
    credentialsId: Number(p.credentialsId ?? 0),
    forge: p.forge ?? "github",
    name: p.name ?? "",
    description: p.description ?? "",
    endpoint: p.endpoint ?? "",
    authType: p.authType ?? "pat",
    ...(p.appId !== undefined ? { appId: p.appId } : {}),
    ...(p.installationId !== undefined ? { installationId: p.installationId } : {}),
    secretSalt: p.secretSalt ?? "",
    secretDigest: version < 2 ? digestOfVersion1(p.secretDigest ?? "") : (p.secretDigest ?? ""),
    adoptExisting: p.adoptExisting ?? false,
    ...stateStamp(STATE_VERSION),
  };
}

export { stateStamp };
