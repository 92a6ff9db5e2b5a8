// Connection settings for GARM, read from stack config (`garm:*`) with GARM_* environment variables as fallbacks.
import { readFileSync } from "node:fs";
import { UNKNOWN } from "./unknown";

export interface ConnectionSettings {
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** PEM text read from garm:caCertFile. */
  readonly caCert?: string;
  /** Where the URL was given, for messages: `garm:url` (the stack config, the default) or a resource's `garm.url`. */
  readonly urlSetting?: string;
}

/** The slice of Pulumi's dynamic-provider config this module reads. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

/** A setting that is missing or wrong; the message says which and the command that fixes it. */
export class ConnectionSettingsError extends Error {
  override readonly name = "ConnectionSettingsError";
  /** The setting at fault without its `garm:` prefix (`url`, `insecure`), as the provider's config schema names it. */
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Reads and checks the settings. Throws the first ConnectionSettingsError, naming the setting and how to set it. */
export function readConnectionSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const checked = checkConnectionSettings(config, env);
  if (checked.failures.length > 0) throw checked.failures[0];
  return checked.settings!;
}

/**
 * Every problem of the settings at once, for the plugin's CheckConfig (preview) and readConnectionSettings. A setting
 * not known yet (an explicit provider's input computed by another resource during preview) is taken as set and is
 * checked once known; `settings` is then absent.
 */
export function checkConnectionSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): { settings?: ConnectionSettings; failures: ConnectionSettingsError[] } {
  const failures: ConnectionSettingsError[] = [];
  const setting = (key: string, envName: string) => nonEmpty(config.get(`garm:${key}`)) ?? nonEmpty(env[envName]);
  const url = setting("url", "GARM_URL");
  if (!url) failures.push(missing("url", "GARM_URL", "pulumi config set garm:url https://garm.example.com:9997"));
  const username = setting("username", "GARM_USERNAME");
  if (!username) failures.push(missing("username", "GARM_USERNAME", "pulumi config set garm:username admin"));
  const password = setting("password", "GARM_PASSWORD");
  if (!password) failures.push(missing("password", "GARM_PASSWORD", "pulumi config set --secret garm:password <password>"));
  const insecureSource = nonEmpty(config.get("garm:insecure")) !== undefined ? "garm:insecure" : "GARM_INSECURE";
  const insecureText = nonEmpty(config.get("garm:insecure")) ?? nonEmpty(env.GARM_INSECURE) ?? "false";
  const insecure = insecureText === UNKNOWN || insecureText.toLowerCase() === "true";
  if (insecureText !== UNKNOWN && !/^(true|false)$/i.test(insecureText)) {
    failures.push(new ConnectionSettingsError("insecure", `${insecureSource} "${insecureText}" must be true or false: run \`pulumi config set garm:insecure false\` (or true to allow plain http to a remote GARM)`));
  }
  if (url && url !== UNKNOWN) {
    const source = nonEmpty(config.get("garm:url")) ? "garm:url" : "GARM_URL";
    const urlFailure = checkUrl(url, insecure, source, STACK_CONFIG_FIXES(source));
    if (urlFailure) failures.push(urlFailure);
  }
  const caCertFile = nonEmpty(config.get("garm:caCertFile")) ?? nonEmpty(env.GARM_CA_CERT_FILE);
  let caCert: string | undefined;
  if (caCertFile && caCertFile !== UNKNOWN) {
    try {
      caCert = readCaCert(caCertFile, "garm:caCertFile");
    } catch (err) {
      failures.push(err as ConnectionSettingsError);
    }
  }
  const unknown = [url, username, password, insecureText, caCertFile].includes(UNKNOWN);
  if (failures.length > 0 || unknown || !url || !username || !password) return { failures };
  return { settings: { url: url.replace(/\/+$/, ""), username, password, caCert }, failures };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function missing(key: string, envName: string, command: string): ConnectionSettingsError {
  return new ConnectionSettingsError(key, `garm:${key} is not set: run \`${command}\` (or set ${envName} for the pulumi process)`);
}

/** How a message says to fix a setting: the stack config's commands, or a resource's `garm` input. */
export interface SettingFixes {
  /** To set the URL to `base`. */
  url(base: string): string;
  /** To accept plain http to a remote GARM. */
  readonly insecure: string;
}

const STACK_CONFIG_FIXES = (source: string): SettingFixes => ({
  url: (base) => (source === "garm:url" ? `run \`pulumi config set garm:url ${base}\`` : `set ${source}=${base}`),
  insecure: "run `pulumi config set garm:insecure true` to accept that",
});

/** What is wrong with `url` as GARM's base URL, named as `source`; undefined when nothing is. */
export function checkUrl(url: string, insecure: boolean, source: string, fixes: SettingFixes): ConnectionSettingsError | undefined {
  const failure = (message: string) => new ConnectionSettingsError("url", message);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return failure(`${source} "${url}" is not a URL: expected e.g. https://garm.example.com:9997`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return failure(`${source} "${url}" must start with https:// or http://`);
  }
  if (parsed.username || parsed.password) {
    return failure(`${source} must not carry credentials: give the username and password as their own settings`);
  }
  // The client appends /api/v1 itself; with it in the URL every request misses GARM's routes (garm-behaviour.md §1.1).
  if (/\/api\/v1\/*$/.test(parsed.pathname)) {
    const base = url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
    return failure(`${source} "${url}" ends in /api/v1, which pulumi-garm adds itself: give GARM's base URL, ${fixes.url(base)}`);
  }
  // The password and the JWT would cross the network in clear text.
  if (parsed.protocol === "http:" && !LOOPBACK.test(parsed.hostname) && !insecure) {
    return failure(
      `${source} uses plain http to ${parsed.hostname}, which would send the GARM password unencrypted: use https, or ${fixes.insecure}`,
    );
  }
  return undefined;
}

/** The PEM text of the file `path`, given as `source`. */
export function readCaCert(path: string, source: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConnectionSettingsError("caCertFile", `${source} "${path}" cannot be read: ${(err as Error).message}`);
  }
}
