// GarmCredentials input rules, run at preview: what GARM's Validate refuses (params/requests.go L453-518 for GitHub,
// L835-858 for Gitea), and a private key GARM could not parse, which it would answer with a 500 (private-key.ts).
import { type CheckOutcome, type Failure, type InputCheck, type Known, checkInputs, fail } from "../../common/input-check";
import { nameFailures } from "../../common/forge-inputs";
import { type ConfigLookup, type SecretFromConfig, secretsFromConfig } from "../../common/secrets-from-config";
import { privateKeyFailures } from "./private-key";
import { type CredentialsInputs, credentialsInputSchema, withDefaults } from "./inputs";

export type CredentialsCheckOutcome = CheckOutcome;

const APP_FIELDS = ["appId", "installationId", "privateKey"] as const;

function authFailures(data: Partial<CredentialsInputs>, known: Known<CredentialsInputs>): Failure[] {
  if (!(["token", ...APP_FIELDS] as const).every((f) => known(f))) return [];
  const app = APP_FIELDS.filter((f) => data[f] !== undefined);
  if (data.token !== undefined && app.length > 0) {
    return [fail(app[0]!, `set either token, or appId, installationId and privateKey (a GitHub App), not both; ${app.join(", ")} and token are set`)];
  }
  if (data.token === undefined && app.length === 0) {
    return [fail("token", "set token (a personal or Gitea access token), or appId, installationId and privateKey (a GitHub App)")];
  }
  if (data.token !== undefined) return data.token === "" ? [fail("token", "token must not be empty")] : [];
  if (known("forge") && data.forge === "gitea") {
    return [fail(app[0]!, "Gitea credentials take a token only; GARM has no Gitea app credentials: set token instead")];
  }
  const failures = APP_FIELDS.filter((f) => data[f] === undefined).map((f) =>
    fail(f, `${f} is required for GitHub App credentials (${APP_FIELDS.filter((x) => x !== f).join(" and ")} are set)`),
  );
  for (const f of ["appId", "installationId"] as const) {
    const v = data[f];
    if (v !== undefined && v < 1) failures.push(fail(f, `${f} is ${v}; it must be at least 1`));
  }
  return [...failures, ...privateKeyFailures("privateKey", data.privateKey)];
}

const CREDENTIALS_CHECK: InputCheck<CredentialsInputs> = {
  schema: credentialsInputSchema,
  resource: "GarmCredentials",
  // GARM checks only that a credentials name is not empty (params/requests.go L490-492) and routes credentials by id,
  // so a team's name with quotes, `${` or non-ASCII is GARM's to keep; the endpoint's name is a path segment of its routes.
  rules: [(data) => [...(data.name !== undefined && data.name.trim() === "" ? [fail("name", "name must not be empty")] : []), ...nameFailures("endpoint", data.endpoint)], authFailures],
  withDefaults: (data) => ({ ...withDefaults(data as CredentialsInputs) }),
};

/** The secrets that may be named by a stack config key instead (what `pulumi import` writes). */
export const CREDENTIALS_SECRETS_FROM_CONFIG: readonly SecretFromConfig[] = [
  { secret: "token", keyInput: "tokenFromConfig", what: "token" },
  { secret: "privateKey", keyInput: "privateKeyFromConfig", what: "private key" },
];

/**
 * Validates raw inputs; with no failures, returns them with defaults and the auth type, unknowns kept in place. A
 * secret named by a config key is read from `config` first, so the rules see it as given.
 */
export function checkCredentialsInputs(news: Record<string, unknown>, config?: ConfigLookup): CredentialsCheckOutcome {
  const resolved = secretsFromConfig(`GarmCredentials ${String(news.name ?? "")}`, news, CREDENTIALS_SECRETS_FROM_CONFIG, config);
  if (resolved.failures.length > 0) return { inputs: news, failures: resolved.failures };
  return checkInputs(CREDENTIALS_CHECK, resolved.news);
}
