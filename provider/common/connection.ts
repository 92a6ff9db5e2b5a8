// GARM connections: one per provider instance. The dynamic provider has one instance per process (the module-level
// functions below); the resource plugin makes one per Configure, so two providers in one program reach two GARMs.
import { AsyncLocalStorage } from "node:async_hooks";
import type * as pulumi from "@pulumi/pulumi";
import { GarmClient } from "../garm/client";
import { type ConfigSource, type ConnectionSettings, readConnectionSettings } from "./config";
import { cancelOnSignals, newCancellation } from "./cancel";
import { probeGarmOnce } from "./garm-probe";
import { consoleLogger } from "./log";

/** What makes two settings one connection: the same GARM, login and trust, named from the same place. */
function settingsKey(settings: ConnectionSettings): string {
  return JSON.stringify([settings.url, settings.username, settings.password, settings.caCert ?? "", settings.urlSetting ?? ""]);
}

/** Connection settings and the client built from them, shared by every operation of one provider instance. */
export class Connection {
  private settings: ConnectionSettings | Error | undefined;
  private cached: { key: string; client: GarmClient } | undefined;
  private config: ConfigSource = { get: () => undefined };

  /** `cancel` is the instance's cancellation (cancel.ts): its client starts no request once it aborts. */
  constructor(private readonly cancel?: AbortSignal) {}

  /**
   * Reads the connection settings. A bad setting is kept and thrown by the first operation that needs GARM, so check
   * and diff (which do not) still report input problems during preview.
   */
  configure(config: ConfigSource, env: NodeJS.ProcessEnv = process.env): void {
    this.config = config;
    try {
      this.settings = readConnectionSettings(config, env);
    } catch (err) {
      this.settings = err as Error;
    }
  }

  /** Takes settings already read (a resource's own `garm` input), or the error that says why there are none. */
  use(settings: ConnectionSettings | Error): this {
    this.settings = settings;
    return this;
  }

  /** A stack config value by its full key (`garm:…`), as Configure received it: secrets named by key (secrets-from-config.ts). */
  configValue(key: string): string | undefined {
    return this.config.get(key);
  }

  /** The instance's client, or undefined while a setting is wrong or not known yet. */
  tryClient(): GarmClient | undefined {
    try {
      return this.client();
    } catch {
      return undefined;
    }
  }

  /** The instance's client. Throws the settings error. */
  client(): GarmClient {
    if (this.settings === undefined) {
      // Providers run without configure only under very old Pulumi engines; the environment still works.
      this.configure({ get: () => undefined });
    }
    const settings = this.settings as ConnectionSettings | Error;
    if (settings instanceof Error) throw settings;
    const key = settingsKey(settings);
    if (!this.cached || this.cached.key !== key) {
      this.cached = { key, client: new GarmClient({ ...settings, cancel: this.cancel }) };
    }
    return this.cached.client;
  }
}

/** The dynamic provider's instance is its process: one cancellation, aborted by a signal to the process. */
const processCancellation = newCancellation();
let signalsWatched = false;

/** The dynamic provider's cancellation signal, which its kinds' waits end on. */
export const processCancel: AbortSignal = processCancellation.signal;

let processConnection = new Connection(processCancel);

/** The dynamic provider's configure: reads the stack config into the process's connection. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  // Configure runs only in a provider process (or a test driving one), so the handler is not installed in programs.
  if (!signalsWatched) {
    signalsWatched = true;
    cancelOnSignals(processCancellation);
  }
  processConnection.configure(req.config);
  const client = processConnection.tryClient();
  if (client) await probeGarmOnce(client, consoleLogger);
}

/** A stack config value of the dynamic provider's process, by its full key. */
export function processConfigValue(key: string): string | undefined {
  return processConnection.configValue(key);
}

/** The connection of the resource whose operation runs now, when the program gave it its own GARM. */
const resourceConnection = new AsyncLocalStorage<Connection>();

/** One connection per GARM a program names, shared by every resource that names it with the same settings. */
const namedConnections = new Map<string, Connection>();

/**
 * The connection for a resource's own settings (one per distinct settings, so one login per GARM), or, for settings
 * not known yet, one whose client throws `unknown`: nothing is read from another GARM in their place.
 */
export function connectionFor(settings: ConnectionSettings | Error): Connection {
  if (settings instanceof Error) return new Connection(processCancel).use(settings);
  const key = settingsKey(settings);
  let connection = namedConnections.get(key);
  if (!connection) {
    connection = new Connection(processCancel).use(settings);
    namedConnections.set(key, connection);
  }
  return connection;
}

/** Runs `operation` against `connection` (a resource's own GARM): garmClient() answers its client within it. */
export function inConnection<T>(connection: Connection, operation: () => T): T {
  return resourceConnection.run(connection, operation);
}

/** The client of the GARM the running operation acts in: its resource's own, else the stack's. Throws the settings error. */
export function garmClient(): GarmClient {
  return (resourceConnection.getStore() ?? processConnection).client();
}

/** For tests: forget the settings and the clients. */
export function resetConnection(): void {
  processConnection = new Connection(processCancel);
  namedConnections.clear();
}
