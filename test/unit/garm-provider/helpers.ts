// Shared fixtures for the GarmProvider unit tests: temp GARM config files and a hand-written config with comments.
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ProviderBlockSpec } from "../../../provider/kinds/garm-provider/inputs";

/** A GARM config as an operator writes it: comments, odd spacing, a hand-written provider, a trailing table. */
export const HAND_WRITTEN = `# GARM config, edited by hand
[default]
enable_webhook_management = true   # keep

[logging]
log_level = "debug"

[[provider]]
name = "lxd_local"  # hand-written
provider_type = "external"
description = "Local LXD"
  [provider.external]
  provider_executable = "/opt/garm/bin/garm-provider-lxd"
  environment_variables = ["PATH"]

[database]
backend = "sqlite3"
  [database.sqlite3]
  db_file = "/var/lib/garm/garm.db"
`;

export function spec(name: string, over: Partial<ProviderBlockSpec> = {}): ProviderBlockSpec {
  return {
    name,
    description: `${name} runners`,
    executable: `/usr/local/bin/garm-provider-${name}`,
    configFile: `/etc/garm/${name}.toml`,
    environmentVariables: ["PATH", "OS_"],
    interfaceVersion: "v0.1.0",
    ...over,
  };
}

export async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), "garm-provider-test-"));
}

export async function tempConfig(content = HAND_WRITTEN, mode = 0o640): Promise<{ dir: string; file: string }> {
  const dir = await tempDir();
  const file = path.join(dir, "config.toml");
  await fs.writeFile(file, content);
  await fs.chmod(file, mode);
  return { dir, file };
}

export async function removeDir(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
}
