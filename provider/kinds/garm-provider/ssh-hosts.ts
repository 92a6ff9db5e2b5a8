// The SSH hosts of one provider process: one SshHost, so one SSH connection, per GARM host login however many
// GarmProviders name it, closed when the process ends; and the count of SSH connections opened, for the bench.
import { createHash } from "node:crypto";
import { canonicalJson } from "../../runners/extra-specs";
import type { GarmProviderConnection } from "./inputs";
import { SshHost } from "../../machine/ssh-host";

const hosts = new Map<string, SshHost>();

/**
 * Two GarmProviders share a host when their logins are the same: host, port and user, and the same keys and host key
 * policy (a resource pinning another host key must not ride on a connection verified by a different pin).
 */
function keyOf(c: GarmProviderConnection): string {
  const { host, port, user, ...rest } = c;
  const digest = createHash("sha256").update(JSON.stringify(canonicalJson(rest))).digest("hex");
  return `${user ?? "root"}@${host}:${port ?? 22}#${digest}`;
}

/** The process's SshHost for `connection`, made on first use; it connects on its first operation. */
export function sshHostFor(connection: GarmProviderConnection, warn?: (line: string) => void, cancel?: AbortSignal): SshHost {
  const key = keyOf(connection);
  let host = hosts.get(key);
  if (!host) {
    host = new SshHost(connection, warn, cancel);
    hosts.set(key, host);
  }
  return host;
}

/** Closes every SSH connection this process opened for GARM hosts. */
export async function closeSshHosts(): Promise<void> {
  const all = [...hosts.values()];
  hosts.clear();
  await Promise.all(all.map((h) => h.close().catch(() => undefined)));
}

// A provider process ends when the engine is done with it; its connections end with it.
process.once("exit", () => {
  for (const h of hosts.values()) h.closeNow();
});
