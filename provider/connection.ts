// The one GARM client of a provider process, shared by every resource operation Pulumi runs in parallel.
import type * as pulumi from "@pulumi/pulumi";
import { GarmClient } from "./garm/client";
import { type ConnectionSettings, readConnectionSettings } from "./config";

let settings: ConnectionSettings | Error | undefined;
let client: { key: string; client: GarmClient } | undefined;

/**
 * Reads the connection settings from the stack config. A bad setting is kept and thrown by the first operation that
 * needs GARM, so check and diff (which do not) still report input problems during preview.
 */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  try {
    settings = readConnectionSettings(req.config);
  } catch (err) {
    settings = err as Error;
  }
}

/** The process-wide client. Throws the settings error, or says configure never ran. */
export function garmClient(): GarmClient {
  if (settings === undefined) {
    // Providers run without configure only under very old Pulumi engines; the environment still works.
    try {
      settings = readConnectionSettings({ get: () => undefined });
    } catch (err) {
      settings = err as Error;
    }
  }
  if (settings instanceof Error) throw settings;
  const key = `${settings.url}\n${settings.username}\n${settings.password}\n${settings.caCert ?? ""}`;
  if (!client || client.key !== key) {
    client = { key, client: new GarmClient(settings) };
  }
  return client.client;
}

/** For tests: forget the settings and the client. */
export function resetConnection(): void {
  settings = undefined;
  client = undefined;
}
