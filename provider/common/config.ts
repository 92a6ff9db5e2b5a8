// Connection settings for GARM, read from stack config (`garm:*`) with GARM_* environment variables as fallbacks.
import { readFileSync } from "node:fs";

export interface ConnectionSettings {
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** PEM text read from garm:caCertFile. */
  readonly caCert?: string;
}

/** The slice of Pulumi's dynamic-provider config this module reads. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

/** A setting that is missing or wrong; the message says which and the command that fixes it. */
export class ConnectionSettingsError extends Error {
  override readonly name = "ConnectionSettingsError";
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Reads and checks the settings. Throws ConnectionSettingsError naming the setting and how to set it. */
export function readConnectionSettings(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const setting = (key: string, envName: string) => nonEmpty(config.get(`garm:${key}`)) ?? nonEmpty(env[envName]);
  const url = setting("url", "GARM_URL");
  if (!url) throw missing("garm:url", "GARM_URL", "pulumi config set garm:url https://garm.example.com:9997");
  const username = setting("username", "GARM_USERNAME");
  if (!username) throw missing("garm:username", "GARM_USERNAME", "pulumi config set garm:username admin");
  const password = setting("password", "GARM_PASSWORD");
  if (!password) throw missing("garm:password", "GARM_PASSWORD", "pulumi config set --secret garm:password <password>");
  const insecure = (nonEmpty(config.get("garm:insecure")) ?? nonEmpty(env.GARM_INSECURE) ?? "false").toLowerCase() === "true";
  checkUrl(url, insecure, nonEmpty(config.get("garm:url")) ? "garm:url" : "GARM_URL");
  const caCertFile = nonEmpty(config.get("garm:caCertFile")) ?? nonEmpty(env.GARM_CA_CERT_FILE);
  return { url: url.replace(/\/+$/, ""), username, password, caCert: caCertFile ? readCaCert(caCertFile) : undefined };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function missing(key: string, envName: string, command: string): ConnectionSettingsError {
  return new ConnectionSettingsError(`${key} is not set: run \`${command}\` (or set ${envName} for the pulumi process)`);
}

function checkUrl(url: string, insecure: boolean, source: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConnectionSettingsError(`garm:url "${url}" is not a URL: expected e.g. https://garm.example.com:9997`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new ConnectionSettingsError(`garm:url "${url}" must start with https:// or http://`);
  }
  if (parsed.username || parsed.password) {
    throw new ConnectionSettingsError("garm:url must not carry credentials: use garm:username and garm:password");
  }
  // The client appends /api/v1 itself; with it in the URL every request misses GARM's routes (garm-behaviour.md §1.1).
  if (/\/api\/v1\/*$/.test(parsed.pathname)) {
    const base = url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
    const fix = source === "garm:url" ? `run \`pulumi config set garm:url ${base}\`` : `set ${source}=${base}`;
    throw new ConnectionSettingsError(`${source} "${url}" ends in /api/v1, which pulumi-garm adds itself: give GARM's base URL, ${fix}`);
  }
  // The password and the JWT would cross the network in clear text.
  if (parsed.protocol === "http:" && !LOOPBACK.test(parsed.hostname) && !insecure) {
    throw new ConnectionSettingsError(
      `garm:url uses plain http to ${parsed.hostname}, which would send the GARM password unencrypted: use https, ` +
        "or run `pulumi config set garm:insecure true` to accept that",
    );
  }
}

function readCaCert(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConnectionSettingsError(`garm:caCertFile "${path}" cannot be read: ${(err as Error).message}`);
  }
}
