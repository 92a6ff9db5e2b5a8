// The GarmProvider engine-test fixture: a temp GARM config file, a provider executable, the GARM simulator loading
// that file, and an engine harness whose resources edit it and restart the simulator with a real shell command.
import { promises as fs, readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { garmProviderProvider, scaleSetProvider } from "../../../sdk/nodejs/shim";
import { type Engine, type ResourceDecl, ref } from "../../../harness/engine";
import { engineForGarm } from "../../../harness/engine-for-garm";
import { startServiceManager } from "../../../harness/service-manager";
import { type Simulator, startSimulator } from "../../../simulator";
import { providerInputs } from "./provider-inputs";

/** Everything outside pulumi-garm's managed blocks, which every edit must keep byte for byte (DESIGN "GarmProvider"). */
export const HAND_WRITTEN = `# operator's GARM config
[default]
enable_webhook_management = true
`;

/** The Pulumi project of the fixture's engine (its stack is "dev"). */
export const PROJECT = "garm-engine-it";

export const BEGIN = (name: string) => `# BEGIN pulumi-garm provider "${name}"`;

/** A simulator restart as the simulator logged it, with what the config file held when it happened. */
export interface RestartEvent {
  /** sim.requests().length when the restart began: the restart came after those API requests. */
  afterRequests: number;
  /** Provider names whose managed block the config file held at that moment. */
  blocks: string[];
}

export interface Fixture {
  dir: string;
  file: string;
  exe: string;
  sim: Simulator;
  engine: Engine;
  restarts: RestartEvent[];
  /**
   * A restart command that asks a stand-in service manager in the test process (not GARM itself) to restart GARM, so
   * it also starts a GARM that is down; it fails when GARM refuses to start.
   */
  serviceRestart: string;
  provider(resource: string, name: string, over?: Record<string, unknown>): ResourceDecl;
  scaleSet(resource: string, providerResource: string, over?: Record<string, unknown>): ResourceDecl;
  close(): Promise<void>;
}

export function blocksIn(text: string): string[] {
  return [...text.matchAll(/^# BEGIN pulumi-garm provider "([^"]*)"/gm)].map((m) => m[1]);
}

export interface FixtureOptions {
  /** How long a simulator restart keeps GARM down; the simulator's default otherwise. */
  restartDownMs?: number;
}

export async function startFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "garm-engine-it-"));
  // The simulator refuses a provider whose executable is missing or not executable, as GARM does (§9.1).
  const exe = path.join(dir, "garm-provider-fake");
  await fs.writeFile(exe, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const file = path.join(dir, "config.toml");
  await fs.writeFile(file, HAND_WRITTEN, { mode: 0o600 });
  const restarts: RestartEvent[] = [];
  let simRef: Simulator | undefined;
  const sim = await startSimulator({
    garmConfigPath: file,
    restartDownMs: options.restartDownMs,
    tickMs: 25,
    consolidationMs: 300,
    log: (line) => {
      // "restarting" is logged synchronously when the restart control call arrives, before providers reload (§9.2).
      if (line === "restarting") {
        restarts.push({ afterRequests: simRef?.requests().length ?? 0, blocks: blocksIn(readFileSync(file, "utf8")) });
      }
    },
  });
  simRef = sim;
  const serviceManager = await startServiceManager(sim);
  const engine = engineForGarm(sim, PROJECT);
  return {
    dir,
    file,
    exe,
    sim,
    engine,
    restarts,
    serviceRestart: serviceManager.restartCommand,
    provider: (resource, name, over = {}) => ({
      name: resource,
      type: "GarmProvider",
      module: "garm",
      provider: garmProviderProvider,
      // The owner the SDK class passes: this engine's project and stack, and the resource name.
      inputs: providerInputs({ url: sim.url, executable: exe, configFile: file }, name, {
        owner: { project: PROJECT, stack: "dev", resource },
        ...over,
      }),
    }),
    scaleSet: (resource, providerResource, over = {}) => ({
      name: resource,
      type: "GarmScaleSet",
      module: "garm",
      provider: scaleSetProvider,
      inputs: {
        name: `ci-${resource}`,
        organization: "acme",
        // An output of the GarmProvider: the engine creates the provider first and deletes it last.
        providerName: ref(providerResource, "name"),
        image: "ubuntu-24.04",
        flavor: "small",
        labels: ["linux", "x64"],
        maxRunners: 3,
        minIdleRunners: 0,
        drain: { timeoutSeconds: 4, pollSeconds: 1 },
        ...over,
      },
    }),
    close: async () => {
      await serviceManager.close();
      await sim.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

