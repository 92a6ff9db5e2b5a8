// GarmProvider inputs for tests against the simulator: its restart command is the simulator's control call.
export interface SimulatedGarmHost {
  /** The simulator's base URL. */
  readonly url: string;
  /** A provider executable that exists (GARM refuses to start otherwise, §9.1). */
  readonly executable: string;
  /** The GARM config file the simulator loads its providers from. */
  readonly configFile: string;
}

export function providerInputs(host: SimulatedGarmHost, name: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    description: `${name} runners`,
    executable: host.executable,
    environmentVariables: ["PATH"],
    garmConfigPath: host.configFile,
    restartCommand: `curl -fsS -X POST ${host.url}/_sim/restart`,
    restartTimeoutSeconds: 10,
    ...over,
  };
}
