// Opens an SSH connection to the GARM host with ssh2, in the shape of @pulumi/command's remote Connection, with the
// host key verified: an unknown or changed key is refused unless verification is explicitly switched off.
import { createHash, createHmac } from "node:crypto";
import { promises as fs } from "node:fs";
import type { Duplex } from "node:stream";
import { Client, type AnyAuthMethod, type AuthenticationType, type ConnectConfig } from "ssh2";

/** Where and how to log in; the fields of @pulumi/command's remote Connection, plus knownHostsFile and the opt-out. */
export interface SshConnection {
  host: string;
  /** @default 22 */
  port?: number;
  /** @default "root", as @pulumi/command */
  user?: string;
  /** PEM or OpenSSH text of the private key. Secret. */
  privateKey?: string;
  /** Passphrase of privateKey. Secret. */
  privateKeyPassword?: string;
  /** Secret. */
  password?: string;
  /** The ssh-agent socket; @default SSH_AUTH_SOCK */
  agentSocketPath?: string;
  /** The host's public key as `ssh-keyscan` prints it ("ssh-ed25519 AAAA…"), or its fingerprint ("SHA256:…"). */
  hostKey?: string;
  /** An OpenSSH known_hosts file to look the host's key up in (plain or hashed entries). */
  knownHostsFile?: string;
  /** Connect without verifying the host key: anyone on the path can read and change what is sent. Logged loudly. */
  insecureSkipHostKeyVerification?: boolean;
  /** A bastion to connect through, with the same fields. */
  proxy?: SshConnection;
  /** Seconds one dial may take. @default 15 */
  perDialTimeout?: number;
  /** Dial attempts before giving up on a host that cannot be reached. @default 10 */
  dialErrorLimit?: number;
  /** Files through sftp-server and the restart through `sudo -n` on the host (ssh-host.ts); a proxy's is ignored. */
  sudo?: boolean;
}

/** The connection failed for a reason the user can act on; the message says which and what to do. */
export class SshConnectError extends Error {
  override readonly name = "SshConnectError";
  constructor(
    message: string,
    readonly reason: "unreachable" | "host-key" | "auth" | "other",
  ) {
    super(message);
  }
}

export const where = (c: SshConnection) => `${c.user ?? "root"}@${c.host}:${c.port ?? 22}`;

/** The key type named inside an SSH public key blob (its first string). */
export function keyType(blob: Buffer): string {
  if (blob.length < 4) return "unknown";
  const n = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + n).toString("latin1");
}

/** OpenSSH's fingerprint of a public key blob: `SHA256:` and unpadded base64 of its SHA-256. */
export function fingerprint(blob: Buffer): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

/** What a pinned hostKey names: a key blob, or only a fingerprint. */
function pinnedFingerprint(hostKey: string): string {
  const text = hostKey.trim();
  if (/^SHA256:/.test(text)) return text.replace(/=+$/, "");
  const parts = text.split(/\s+/);
  // "host type base64" as ssh-keyscan prints it, or "type base64".
  const b64 = parts.length >= 3 && !parts[0].includes("-") ? parts[2] : parts[1];
  if (!b64) throw new SshConnectError(`hostKey "${text.slice(0, 40)}" is neither "<type> <base64 key>" nor "SHA256:<fingerprint>"`, "other");
  return fingerprint(Buffer.from(b64, "base64"));
}

/** The host names a known_hosts line uses for this host and port. */
function knownHostNames(host: string, port: number): string[] {
  return port === 22 ? [host, `[${host}]:22`] : [`[${host}]:${port}`];
}

function matchesHostField(field: string, names: string[]): boolean {
  if (field.startsWith("|1|")) {
    const [, , salt, hash] = field.split("|");
    if (!salt || !hash) return false;
    return names.some((n) => createHmac("sha1", Buffer.from(salt, "base64")).update(n).digest("base64") === hash);
  }
  return field.split(",").some((f) => names.includes(f));
}

/** The fingerprints known_hosts lists for this host, by key type. */
export async function knownFingerprints(file: string, host: string, port: number): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (e) {
    throw new SshConnectError(`cannot read knownHostsFile ${file}: ${(e as Error).message}`, "host-key");
  }
  const names = knownHostNames(host, port);
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith("@")) continue;
    const [hosts, type, b64] = line.split(/\s+/);
    if (!hosts || !type || !b64 || !matchesHostField(hosts, names)) continue;
    const list = found.get(type) ?? [];
    list.push(fingerprint(Buffer.from(b64, "base64")));
    found.set(type, list);
  }
  return found;
}

/** Decides on the key a server offered; returns why it is refused, or undefined to accept it. */
export type HostKeyDecision = (blob: Buffer) => string | undefined;

/**
 * The host key policy of `c`: its pinned hostKey, else its knownHostsFile, else refusal; or acceptance with a loud
 * warning when verification is switched off.
 */
export async function hostKeyPolicy(c: SshConnection, warn: (line: string) => void): Promise<HostKeyDecision> {
  const at = `${c.host}:${c.port ?? 22}`;
  const pinHint = `pin it with connection.hostKey "${"<type> <key>"}" (ssh-keyscan -p ${c.port ?? 22} ${c.host} prints it; check it on the host with ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) or list it in connection.knownHostsFile`;
  if (c.insecureSkipHostKeyVerification) {
    return (blob) => {
      warn(
        `WARNING: not verifying the SSH host key of ${at} (connection.insecureSkipHostKeyVerification is set): accepting ${keyType(blob)} ${fingerprint(blob)} unchecked, so anyone on the network path could read GARM's config and run commands as ${c.user ?? "root"}; pin the key instead`,
      );
      return undefined;
    };
  }
  if (c.hostKey) {
    const pinned = pinnedFingerprint(c.hostKey);
    return (blob) =>
      fingerprint(blob) === pinned
        ? undefined
        : `the SSH host key of ${at} has changed: connection.hostKey pins ${pinned}, the server offered ${keyType(blob)} ${fingerprint(blob)}. If the host was reinstalled, check the new key on the host and update hostKey; otherwise someone may be intercepting the connection`;
  }
  if (c.knownHostsFile) {
    const known = await knownFingerprints(c.knownHostsFile, c.host, c.port ?? 22);
    return (blob) => {
      const offered = fingerprint(blob);
      const type = keyType(blob);
      const listed = known.get(type) ?? [];
      if (listed.includes(offered)) return undefined;
      if (listed.length > 0) {
        return `the SSH host key of ${at} has changed: ${c.knownHostsFile} lists ${type} ${listed.join(", ")}, the server offered ${offered}. If the host was reinstalled, check the new key on the host and update the file; otherwise someone may be intercepting the connection`;
      }
      return `the SSH host key of ${at} (${type} ${offered}) is not in ${c.knownHostsFile}; ${pinHint}`;
    };
  }
  return (blob) => `the SSH host key of ${at} is unknown: the server offered ${keyType(blob)} ${fingerprint(blob)}; ${pinHint}`;
}

let opened = 0;
/** SSH connections this process has opened (a bastion's included): the bench reports them per `pulumi up`. */
export function sshConnectionsOpened(): number {
  return opened;
}

const DIAL_ERRORS = new Set(["ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET"]);

/** The auth methods `c` offers, in the order they are tried. */
function authMethods(c: SshConnection): { label: string; method: AnyAuthMethod }[] {
  const username = c.user ?? "root";
  const out: { label: string; method: AnyAuthMethod }[] = [];
  if (c.privateKey) out.push({ label: "publickey (privateKey)", method: { type: "publickey", username, key: c.privateKey, passphrase: c.privateKeyPassword } });
  const agent = c.agentSocketPath ?? process.env.SSH_AUTH_SOCK;
  if (agent) out.push({ label: `publickey (ssh-agent at ${agent})`, method: { type: "agent", username, agent } });
  if (c.password !== undefined) out.push({ label: "password", method: { type: "password", username, password: c.password } });
  return out;
}

/**
 * Connects to `c` (through its proxy, if any), retrying dial errors up to dialErrorLimit times.
 * @throws SshConnectError: unreachable, host key refused, authentication refused (naming the methods tried).
 */
export async function connectSsh(c: SshConnection, warn: (line: string) => void, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<Client> {
  const limit = Math.max(1, c.dialErrorLimit ?? 10);
  for (let attempt = 1; ; attempt++) {
    try {
      return await connectOnce(c, warn);
    } catch (e) {
      if (!(e instanceof SshConnectError) || e.reason !== "unreachable" || attempt >= limit) {
        if (e instanceof SshConnectError && e.reason === "unreachable") {
          throw new SshConnectError(`${e.message} (${attempt} attempt${attempt === 1 ? "" : "s"}, connection.dialErrorLimit ${limit}); check connection.host and port, that sshd runs there and that a firewall lets this machine in`, "unreachable");
        }
        throw e;
      }
      await sleep(Math.min(1000 * attempt, 5000));
    }
  }
}

async function connectOnce(c: SshConnection, warn: (line: string) => void): Promise<Client> {
  let sock: Duplex | undefined;
  let bastion: Client | undefined;
  if (c.proxy) {
    bastion = await connectSsh(c.proxy, warn);
    const b = bastion;
    sock = await new Promise<Duplex>((resolve, reject) =>
      b.forwardOut("127.0.0.1", 0, c.host, c.port ?? 22, (err, stream) =>
        err ? reject(new SshConnectError(`the SSH proxy ${where(c.proxy!)} could not reach ${c.host}:${c.port ?? 22}: ${err.message}`, "unreachable")) : resolve(stream),
      ),
    );
  }
  const decide = await hostKeyPolicy(c, warn);
  const methods = authMethods(c);
  if (methods.length === 0) {
    bastion?.end();
    throw new SshConnectError(`no way to log in to ${where(c)}: set connection.privateKey, connection.password, or run an ssh-agent (SSH_AUTH_SOCK) or set connection.agentSocketPath`, "auth");
  }
  const tried: string[] = [];
  let serverMethods: AuthenticationType[] | undefined;
  let refusedKey: string | undefined;
  const client = new Client();
  const config: ConnectConfig = {
    host: c.host,
    port: c.port ?? 22,
    username: c.user ?? "root",
    sock,
    readyTimeout: (c.perDialTimeout ?? 15) * 1000,
    keepaliveInterval: 15_000,
    hostVerifier: (key: Buffer) => {
      refusedKey = decide(key);
      return refusedKey === undefined;
    },
    authHandler: (left, _partial, next) => {
      if (left) serverMethods = left;
      const m = methods.shift();
      if (!m) return next(false as unknown as AuthenticationType);
      tried.push(m.label);
      next(m.method);
    },
  };
  return new Promise<Client>((resolve, reject) => {
    let ready = false;
    let failed = false;
    client.once("ready", () => {
      ready = true;
      opened++;
      if (bastion) client.once("close", () => bastion?.end());
      resolve(client);
    });
    // Listened to for the connection's whole life: ssh2 may report an error again as the socket closes after the first
    // (a handshake timeout, then "Connection lost before handshake"), and an open connection's socket error is followed
    // by its "close", which its users act on. Unheard, either would end the provider process.
    client.on("error", (err: Error & { level?: string; code?: string }) => {
      if (ready || failed) return;
      failed = true;
      client.end();
      bastion?.end();
      if (refusedKey) return reject(new SshConnectError(`refused to connect to ${where(c)}: ${refusedKey}`, "host-key"));
      if (err.level === "client-authentication") {
        const accepts = serverMethods?.length ? `; the server accepts ${serverMethods.join(", ")}` : "";
        return reject(
          new SshConnectError(
            `${where(c)} refused the login of user ${c.user ?? "root"}: tried ${tried.join(", ") || "nothing"}${accepts}. Check connection.user and that the key is in ~${c.user ?? "root"}/.ssh/authorized_keys on the host`,
            "auth",
          ),
        );
      }
      if (err.level === "client-timeout") return reject(new SshConnectError(`cannot reach SSH server ${c.host}:${c.port ?? 22}: no SSH handshake within ${c.perDialTimeout ?? 15}s (connection.perDialTimeout)`, "unreachable"));
      if (err.code && DIAL_ERRORS.has(err.code)) return reject(new SshConnectError(`cannot reach SSH server ${c.host}:${c.port ?? 22} (${err.code})`, "unreachable"));
      reject(new SshConnectError(`SSH connection to ${where(c)} failed: ${err.message}`, "other"));
    });
    client.connect(config);
  });
}
