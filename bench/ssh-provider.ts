// `make bench`, issue 25: a GarmProvider change over SSH against the same change on this machine, with the real CLI
// and the dynamic provider, a real OpenSSH server on loopback and the GARM simulator; and the SSH connections one
// `pulumi up` opens for three GarmProviders on one GARM host, counted from the server's own log.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as garm from "pulumi-garm";
import { runPulumi } from "../harness/pulumi-cli";
import { ensureOpenSshServer, startSshServer } from "../harness/sshd";
import { startSimulatedHost } from "../scripts/demo/host";

interface Result {
  target: string;
  measured: string;
  met: boolean;
  details?: Record<string, unknown>;
}

const PROVIDERS = ["east", "west", "north"];
/** How long the simulator keeps GARM down on a restart (its default): the restart time the target allows on top. */
const RESTART_DOWN_MS = 2500;

/** Accepted logins in sshd's log (LogLevel VERBOSE): one per SSH connection. */
const logins = (log: string) => log.split("\n").filter((l) => /Accepted (publickey|password|keyboard-interactive)/.test(l)).length;

async function changeTime(remote: boolean): Promise<{ changeMs: number; connections: number; restarts: number }> {
  const why = ensureOpenSshServer();
  if (why) throw new Error(`the SSH bench needs Debian's openssh-server: ${why}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pulumi-garm-bench-ssh-${remote ? "remote" : "local"}-`));
  // A GARM host as an operator has it: a config file, a provider executable, and a service manager that restarts GARM
  // (the simulator) even while it is down.
  const host = await startSimulatedHost({ prefix: "pulumi-garm-bench-ssh-host-" });
  const file = host.garmConfigPath;
  const executables = ["a", "b"].map((v) => {
    const exe = path.join(dir, `garm-provider-${v}`);
    fs.copyFileSync(host.providerExecutable, exe);
    fs.chmodSync(exe, 0o755);
    return exe;
  });
  const server = await startSshServer();
  try {
    const program = (exe: string) => async () => {
      for (const name of PROVIDERS) {
        new garm.GarmProvider(name, {
          name,
          executable: exe,
          garmConfigPath: file,
          restartCommand: String(host.stackConfig.restartCommand),
          restartTimeoutSeconds: 30,
          ...(remote ? { connection: { host: server.host, port: server.port, user: server.user, privateKey: server.clientKey, hostKey: server.hostKey, agentSocketPath: "" } } : {}),
        });
      }
      return {};
    };
    const up = async (exe: string) => {
      const result = await runPulumi({
        workDir: dir,
        stackName: "bench",
        projectName: "bench-ssh",
        program: program(exe),
        op: "up",
        config: { "garm:url": host.sim.url, "garm:username": host.sim.username, "garm:password": { value: host.sim.password, secret: true } },
      });
      if (!result.exitOk) throw new Error(`pulumi up failed: ${result.error?.message}\n${result.stdout}`);
      return result;
    };
    await up(executables[0]!);
    const before = logins(server.logs());
    const restartsBefore = host.restarts();
    // The change: every provider's executable, three block rewrites and (at best) one GARM restart.
    const changed = await up(executables[1]!);
    return { changeMs: changed.durationMs, connections: logins(server.logs()) - before, restarts: host.restarts() - restartsBefore };
  } finally {
    await server.stop();
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The provider change over SSH and locally, and the connections the change's `pulumi up` opened. */
export async function sshProviderChange(): Promise<Result[]> {
  const local = await changeTime(false);
  const remote = await changeTime(true);
  const ratio = remote.changeMs / local.changeMs;
  const allowed = 1.5 * local.changeMs + RESTART_DOWN_MS;
  return [
    {
      target: "GarmProvider change over SSH vs on this machine (3 providers, one restart): at most x1.5 plus GARM's restart time",
      measured: `${(remote.changeMs / 1000).toFixed(1)} s over SSH, ${(local.changeMs / 1000).toFixed(1)} s locally: x${ratio.toFixed(2)} (allowed ${(allowed / 1000).toFixed(1)} s: x1.5 plus the ${RESTART_DOWN_MS / 1000} s restart)`,
      met: remote.changeMs <= allowed,
      details: { remoteMs: remote.changeMs, localMs: local.changeMs, ratio, restartDownMs: RESTART_DOWN_MS, restartsOverSsh: remote.restarts, restartsLocally: local.restarts },
    },
    {
      target: "SSH connections one `pulumi up` opens to a GARM host with 3 GarmProviders: one",
      measured: `${remote.connections} (accepted logins in sshd's log during the change's up)`,
      met: remote.connections === 1,
      details: { connections: remote.connections },
    },
  ];
}
