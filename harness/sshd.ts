// A real OpenSSH server (Debian's openssh-server) for tests: started on a loopback port with its own host key, config
// and authorized keys in a temp directory, stopped by its PID. The system's sshd and its config are never touched.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { promises as fs, existsSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SshConnection } from "../provider/machine/ssh-connection";
import { ensureDebianPackages, freeLoopbackPort, stopByPid, waitForListen } from "./daemon";

export const SSHD = "/usr/sbin/sshd";
const SFTP_SERVER = ["/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/lib/ssh/sftp-server"];

/**
 * Makes sure Debian's openssh-server (and ssh-keygen) are installed, with apt-get when missing and running as root.
 * @returns undefined when they are there, else why not (the tests then skip with it).
 */
export function ensureOpenSshServer(): string | undefined {
  return ensureDebianPackages(["openssh-server", "openssh-client"], () => existsSync(SSHD) && spawnSync("ssh-keygen", ["-?"], { stdio: "ignore" }).error === undefined);
}

/** Makes sure Debian's sudo is installed (for the tests that log in as a user who edits GARM's file through `sudo -n`). */
export function ensureSudo(): string | undefined {
  return ensureDebianPackages(["sudo"], () => existsSync("/usr/bin/sudo") && existsSync("/etc/sudoers.d"));
}

export interface SshServer {
  host: string;
  port: number;
  dir: string;
  /** "ssh-ed25519 AAAA…" as ssh-keyscan prints it (without the host). */
  hostKey: string;
  /** A client key the server accepts for `user`: OpenSSH private key text. */
  clientKey: string;
  /** The user the tests log in as (the user running them). */
  user: string;
  /** The listener's pid (a new one after `restart`). */
  pid: number;
  logs(): string;
  /**
   * Stops the listener and starts it again on the same port with the same host key and config (what a restart of a
   * host's sshd does; sessions it already started are left to the caller, harness/ssh-session.ts).
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function keygen(file: string, comment: string): void {
  const r = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", file], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

/** A login to `server` as its test user with its client key, the host key pinned, no agent, one quick dial. */
export function connectionTo(server: SshServer, over: Partial<SshConnection> = {}): SshConnection {
  return {
    host: server.host,
    port: server.port,
    user: server.user,
    privateKey: server.clientKey,
    hostKey: server.hostKey,
    agentSocketPath: "",
    dialErrorLimit: 1,
    perDialTimeout: 5,
    ...over,
  };
}

export interface SshServerOptions {
  extraConfig?: string[];
  /**
   * Authorizes the client key for every user, not only the current one: sshd reads authorized keys as the user logging
   * in, so the directory and that file become readable by all (the private keys in it stay 0600).
   */
  anyUser?: boolean;
  /** The sftp subsystem's command, instead of the system's sftp-server (e.g. a proxy in front of it). */
  sftpSubsystem?: (systemSftpServer: string) => string;
}

/** The system's sftp-server, or sshd's internal one. */
export function systemSftpServer(): string {
  return SFTP_SERVER.find((p) => existsSync(p)) ?? "internal-sftp";
}

/** Starts sshd on 127.0.0.1 with a fresh host key; the client key is authorized for the current user (or any user). */
export async function startSshServer(options: SshServerOptions = {}): Promise<SshServer> {
  const why = ensureOpenSshServer();
  if (why) throw new Error(why);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-sshd-"));
  keygen(path.join(dir, "host_ed25519"), "test-host");
  keygen(path.join(dir, "client_ed25519"), "test-client");
  await fs.copyFile(path.join(dir, "client_ed25519.pub"), path.join(dir, "authorized_keys"));
  await fs.chmod(path.join(dir, "authorized_keys"), options.anyUser ? 0o644 : 0o600);
  if (options.anyUser) await fs.chmod(dir, 0o755);
  // sshd refuses to start without its privilege separation directory.
  await fs.mkdir("/run/sshd", { recursive: true, mode: 0o755 }).catch(() => undefined);
  const sftp = options.sftpSubsystem ? options.sftpSubsystem(systemSftpServer()) : systemSftpServer();
  const port = await freeLoopbackPort();
  const user = os.userInfo().username;
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${path.join(dir, "host_ed25519")}`,
    `PidFile ${path.join(dir, "sshd.pid")}`,
    `AuthorizedKeysFile ${path.join(dir, "authorized_keys")}`,
    "PermitRootLogin prohibit-password",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "UsePAM no",
    // The temp directory is not the user's home, whose modes StrictModes checks.
    "StrictModes no",
    `Subsystem sftp ${sftp}`,
    "LogLevel VERBOSE",
    ...(options.extraConfig ?? []),
  ];
  const configFile = path.join(dir, "sshd_config");
  await fs.writeFile(configFile, `${config.join("\n")}\n`);
  let log = "";
  const launch = async (): Promise<ChildProcess> => {
    const c: ChildProcess = spawn(SSHD, ["-D", "-e", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"] });
    c.stdout!.on("data", (b: Buffer) => (log += b.toString()));
    c.stderr!.on("data", (b: Buffer) => (log += b.toString()));
    await waitForListen(c, port, "sshd", () => log);
    return c;
  };
  let child = await launch();
  const pub = (await fs.readFile(path.join(dir, "host_ed25519.pub"), "utf8")).trim().split(/\s+/);
  const server: SshServer = {
    host: "127.0.0.1",
    port,
    dir,
    hostKey: `${pub[0]} ${pub[1]}`,
    clientKey: await fs.readFile(path.join(dir, "client_ed25519"), "utf8"),
    user,
    pid: child.pid!,
    logs: () => log,
    restart: async () => {
      await stopByPid(child);
      child = await launch();
      server.pid = child.pid!;
    },
    stop: async () => {
      await stopByPid(child);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}
