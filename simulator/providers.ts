// Loads GARM's [[provider]] sections from its config file, with the checks GARM runs at startup (garm-behaviour.md §9.1).
import { accessSync, constants, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parse } from "smol-toml";
import type { ProviderRecord } from "./types";

export class ConfigError extends Error {}

interface RawProvider {
  name?: unknown;
  provider_type?: unknown;
  description?: unknown;
  external?: { provider_executable?: unknown; provider_dir?: unknown; config_file?: unknown; interface_version?: unknown };
}

function checkExecutable(name: string, ext: RawProvider["external"]): void {
  const exe =
    typeof ext?.provider_executable === "string" && ext.provider_executable !== ""
      ? ext.provider_executable
      : typeof ext?.provider_dir === "string" && ext.provider_dir !== ""
        ? join(ext.provider_dir, "garm-external-provider")
        : "";
  if (exe === "") throw new ConfigError(`provider ${name}: missing provider_executable`);
  if (!isAbsolute(exe)) throw new ConfigError(`provider ${name}: executable path must be an absolute path`);
  try {
    accessSync(exe, constants.X_OK);
  } catch {
    throw new ConfigError(`provider ${name}: failed to access external provider binary ${exe}`);
  }
  const cfg = ext?.config_file;
  if (typeof cfg === "string" && cfg !== "") {
    if (!isAbsolute(cfg)) throw new ConfigError(`provider ${name}: config_file must be an absolute path`);
    try {
      accessSync(cfg, constants.R_OK);
    } catch {
      throw new ConfigError(`provider ${name}: failed to access config file ${cfg}`);
    }
  }
  const iv = ext?.interface_version;
  if (iv !== undefined && iv !== "" && iv !== "v0.1.0" && iv !== "v0.1.1") {
    throw new ConfigError(`provider ${name}: invalid interface version ${String(iv)}`);
  }
}

/**
 * Reads the providers GARM would load from `path`.
 * @throws ConfigError when GARM would refuse to start (bad TOML, duplicate name, unknown type, missing executable).
 */
export function loadProviders(path: string, checkExecutables: boolean): ProviderRecord[] {
  let doc: Record<string, unknown>;
  try {
    doc = parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError(`failed to read config ${path}: ${(e as Error).message.split("\n")[0]}`);
  }
  const raw = doc["provider"];
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new ConfigError("provider must be an array of tables ([[provider]])");
  const seen = new Set<string>();
  const out: ProviderRecord[] = [];
  for (const p of raw as RawProvider[]) {
    const name = typeof p.name === "string" ? p.name : "";
    if (name === "") throw new ConfigError("missing provider name");
    if (seen.has(name)) throw new ConfigError(`duplicate provider name ${name}`);
    seen.add(name);
    if (p.provider_type !== "external") throw new ConfigError(`unknown provider type ${String(p.provider_type)}`);
    if (checkExecutables) checkExecutable(name, p.external);
    out.push({ name, description: typeof p.description === "string" ? p.description : "" });
  }
  return out;
}
