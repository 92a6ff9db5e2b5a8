// A simulated GARM host for the examples: the in-process GARM simulator on 127.0.0.1, the GARM config file it loads its
// providers from, a fake provider executable (GARM refuses to load a provider whose executable is missing), a stand-in
// service manager that restarts it (harness/service-manager.ts), and the stack config an example project needs to use them. Shared by `make demo` and test/integration/examples.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Simulator, startSimulator } from "../../simulator";
import { startServiceManager } from "../../harness/service-manager";

/** What an operator's GARM config holds before any GarmProvider touches it; destroy must give these bytes back. */
export const INITIAL_GARM_CONFIG = `# GARM config of the pulumi-garm demo host. GarmProvider resources add and remove their own
# marked blocks below; everything else is the operator's and is kept byte for byte.
[default]
callback_url = "http://127.0.0.1/api/v1/callbacks"
`;

export interface SimulatedHost {
  readonly dir: string;
  readonly sim: Simulator;
  /** The GARM config file GarmProvider edits, and the provider executable it names. */
  readonly garmConfigPath: string;
  readonly providerExecutable: string;
  /**
   * Stack config of the example projects: where GARM is and how to log in (the password as a secret), and the
   * project's own keys providerExecutable, garmConfigPath and restartCommand.
   */
  readonly stackConfig: Record<string, string | { value: string; secret: boolean }>;
  /** The simulator's event lines so far (restarts, scale sets, runner transitions). */
  readonly simLog: string[];
  /** GARM restarts so far (each one reloads the provider entries of the config file). */
  restarts(): number;
  /** The GARM config file's current text. */
  garmConfig(): string;
  /** Stops the simulator and removes the temp directory (unless keep is set). */
  close(opts?: { keep?: boolean }): Promise<void>;
}

export interface HostOptions {
  /** Simulator worker period; short, so idle runners come up and tear down within a second or two. */
  tickMs?: number;
  /** Temp directory name prefix. */
  prefix?: string;
  /**
   * A freshly initialised GARM: the admin user made with first-run, and nothing else (no controller URLs, credentials,
   * organization or repository). Default: seeded like a GARM that already serves org "acme" and repo "acme/app".
   */
  fresh?: boolean;
}

export async function startSimulatedHost(opts: HostOptions = {}): Promise<SimulatedHost> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? "pulumi-garm-examples-"));
  try {
    const exe = path.join(dir, "garm-provider-fake");
    // Never run by the simulator; it only has to exist and be executable, as GARM checks at start.
    fs.writeFileSync(exe, "#!/bin/sh\necho 'fake GARM provider: the simulator creates runners itself' >&2\nexit 0\n", { mode: 0o755 });
    const garmConfigPath = path.join(dir, "garm-config.toml");
    fs.writeFileSync(garmConfigPath, INITIAL_GARM_CONFIG, { mode: 0o600 });
    const simLog: string[] = [];
    const sim = await startSimulator({
      garmConfigPath,
      tickMs: opts.tickMs ?? 200,
      // A job completed while a scale set is disabled is only noticed by the consolidation (GARM: 5 minutes).
      consolidationMs: 1000,
      log: (line) => simLog.push(line),
      seed: !opts.fresh,
    });
    if (opts.fresh) await firstRun(sim);
    const serviceManager = await startServiceManager(sim);
    return {
      dir,
      sim,
      garmConfigPath,
      providerExecutable: exe,
      stackConfig: {
        "garm:url": sim.url,
        "garm:username": sim.username,
        "garm:password": { value: sim.password, secret: true },
        providerExecutable: exe,
        garmConfigPath,
        // How a GarmProvider makes GARM reload its config; on a real host: "systemctl restart garm". Through a
        // service manager of its own, not GARM's port, so it also works while GARM is down for another writer's restart.
        restartCommand: serviceManager.restartCommand,
      },
      simLog,
      restarts: () => simLog.filter((l) => l === "restarting").length,
      garmConfig: () => fs.readFileSync(garmConfigPath, "utf8"),
      close: async ({ keep = false } = {}) => {
        await serviceManager.close();
        await sim.stop();
        if (!keep) fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** GARM's first-run call, as its operator makes it once after installing GARM. */
async function firstRun(sim: Simulator): Promise<void> {
  const res = await fetch(`${sim.url}/api/v1/first-run`, {
    method: "POST",
    body: JSON.stringify({ username: sim.username, password: sim.password, email: "admin@example.com", full_name: "GARM Admin" }),
  });
  if (!res.ok) {
    await sim.stop();
    throw new Error(`first-run on the simulator answered ${res.status}: ${await res.text()}`);
  }
}

/** Polls until `probe` returns a value, or fails naming what it waited for. */
export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
