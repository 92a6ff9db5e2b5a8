// A real OpenSSH server (Debian's openssh-server) for tests: started on a loopback port with its own host key, config
// and authorized keys in a temp directory, stopped by its PID. The system's sshd and its config are never touched.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { promises as fs, existsSync } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

export const SSHD = "/usr/sbin/sshd";
const SFTP_SERVER = ["/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/lib/ssh/sftp-server"];

/**
 * Makes sure Debian's openssh-server (and ssh-keygen) are installed, with apt-get when missing and running as root.
 * @returns undefined when they are there, else why not (the tests then skip with it).
 */
export function ensureOpenSshServer(): string | undefined {
  const ready = () => existsSync(SSHD) && spawnSync("ssh-keygen", ["-?"], { stdio: "ignore" }).error === undefined;
  if (ready()) return undefined;
  if (process.getuid?.() !== 0) return `${SSHD} or ssh-keygen is missing and installing openssh-server needs root`;
  // The package's own start of the system sshd is prevented: the tests start their own.
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive", RUNLEVEL: "1" };
  const install = spawnSync("sh", ["-c", "apt-get install -y -qq --no-install-recommends openssh-server openssh-client || (apt-get update -qq && apt-get install -y -qq --no-install-recommends openssh-server openssh-client)"], { env, encoding: "utf8" });
  if (!ready()) return `installing openssh-server with apt-get failed: ${(install.stderr || install.stdout || "").trim().split("\n").slice(-3).join(" | ")}`;
  return undefined;
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
  pid: number;
  logs(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function keygen(file: string, comment: string): void {
  const r = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", file], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

/** Starts sshd on 127.0.0.1 with a fresh host key; the client key is authorized for the current user. */
export async function startSshServer(options: { extraConfig?: string[] } = {}): Promise<SshServer> {
  const why = ensureOpenSshServer();
  if (why) throw new Error(why);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pulumi-garm-sshd-"));
  keygen(path.join(dir, "host_ed25519"), "test-host");
  keygen(path.join(dir, "client_ed25519"), "test-client");
  await fs.copyFile(path.join(dir, "client_ed25519.pub"), path.join(dir, "authorized_keys"));
  await fs.chmod(path.join(dir, "authorized_keys"), 0o600);
  // sshd refuses to start without its privilege separation directory.
  await fs.mkdir("/run/sshd", { recursive: true, mode: 0o755 }).catch(() => undefined);
  const sftp = SFTP_SERVER.find((p) => existsSync(p)) ?? "internal-sftp";
  const port = await freePort();
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
  const child: ChildProcess = spawn(SSHD, ["-D", "-e", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (b: Buffer) => (log += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited at start: ${log}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`sshd did not listen on ${port} within 10s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const pub = (await fs.readFile(path.join(dir, "host_ed25519.pub"), "utf8")).trim().split(/\s+/);
  return {
    host: "127.0.0.1",
    port,
    dir,
    hostKey: `${pub[0]} ${pub[1]}`,
    clientKey: await fs.readFile(path.join(dir, "client_ed25519"), "utf8"),
    user,
    pid: child.pid!,
    logs: () => log,
    stop: async () => {
      // By PID: this server only, never the system's sshd.
      if (child.exitCode === null) {
        process.kill(child.pid!, "SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) process.kill(child.pid!, "SIGKILL");
      }
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
