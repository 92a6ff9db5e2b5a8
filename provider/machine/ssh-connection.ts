// Opens an SSH connection to the GARM host with ssh2, in the shape of @pulumi/command's remote Connection, with the
// host key verified: an unknown or changed key is refused unless verification is explicitly switched off.
import { promises as fs } from "node:fs";
import type { Duplex } from "node:stream";
import { Client, utils, type AnyAuthMethod, type AuthenticationType, type ConnectConfig } from "ssh2";
import { sleepUnlessCancelled } from "../common/cancel";
import { fingerprint, hostKeyAlgorithms, keyType, knownHostKeys, parsePinnedHostKeys } from "./known-hosts";

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
  /**
   * The host's public key as `ssh-keyscan` prints it ("garm-01 ssh-ed25519 AAAA…", several lines allowed), or its key
   * lines ("ssh-ed25519 AAAA…"), or fingerprints ("SHA256:…"); any one of them is accepted (known-hosts.ts).
   */
  hostKey?: string;
  /** An OpenSSH known_hosts file to look the host's key up in, read with OpenSSH's rules (known-hosts.ts). */
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
    readonly reason: "unreachable" | "host-key" | "auth" | "cancelled" | "other",
  ) {
    super(message);
  }
}

export const where = (c: SshConnection) => `${c.user ?? "root"}@${c.host}:${c.port ?? 22}`;

export { fingerprint, keyType } from "./known-hosts";

/** How `c` decides on the key a server offers, and which host key algorithms it asks the server for. */
export interface HostKeyPolicy {
  /** Returns why the key is refused, or undefined to accept it. */
  decide: HostKeyDecision;
  /** ssh2's serverHostKey list, the trusted keys' types first; undefined for ssh2's default. */
  algorithms?: string[];
}

/** Decides on the key a server offered; returns why it is refused, or undefined to accept it. */
export type HostKeyDecision = (blob: Buffer) => string | undefined;

const listKeys = (keys: { type?: string; fingerprint: string }[]) => keys.map((k) => (k.type ? `${k.type} ${k.fingerprint}` : k.fingerprint)).join(", ");

/**
 * The host key policy of `c`: its pinned hostKey, else its knownHostsFile, else refusal; or acceptance with a loud
 * warning when verification is switched off.
 * @throws SshConnectError when hostKey cannot be read as keys or fingerprints, or knownHostsFile cannot be read.
 */
export async function hostKeyPolicy(c: SshConnection, warn: (line: string) => void): Promise<HostKeyPolicy> {
  const port = c.port ?? 22;
  const at = `${c.host}:${port}`;
  const keyLine = port === 22 ? c.host : `[${c.host}]:${port}`;
  const pinHint = `pin it with connection.hostKey "${"<type> <key>"}" (ssh-keyscan -p ${port} ${c.host} prints it; check it on the host with ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) or list it in connection.knownHostsFile`;
  if (c.insecureSkipHostKeyVerification) {
    return {
      decide: (blob) => {
        warn(
          `WARNING: not verifying the SSH host key of ${at} (connection.insecureSkipHostKeyVerification is set): accepting ${keyType(blob)} ${fingerprint(blob)} unchecked, so anyone on the network path could read GARM's config and run commands as ${c.user ?? "root"}; pin the key instead`,
        );
        return undefined;
      },
    };
  }
  if (c.hostKey) {
    const pinned = parsePinnedHostKeys(c.hostKey);
    if (!Array.isArray(pinned) || pinned.length === 0) {
      const what = Array.isArray(pinned) ? "holds no key" : `line ${pinned.badLine} ("${pinned.start}") is not a key`;
      throw new SshConnectError(
        `connection.hostKey for ${at} ${what}: give "<type> <base64 key>" per line, or ssh-keyscan's lines "<host> <type> <base64 key>", or "SHA256:<fingerprint>"; nothing was sent to the host`,
        "host-key",
      );
    }
    return {
      decide: (blob) =>
        pinned.some((k) => k.fingerprint === fingerprint(blob))
          ? undefined
          : `the SSH host key of ${at} has changed: connection.hostKey pins ${pinned.map((k) => k.fingerprint).join(", ")}, the server offered ${keyType(blob)} ${fingerprint(blob)}. If the host was reinstalled, check the new key on the host and update hostKey; otherwise someone may be intercepting the connection`,
      algorithms: hostKeyAlgorithms(pinned.flatMap((k) => (k.type ? [k.type] : []))),
    };
  }
  if (c.knownHostsFile) {
    const file = c.knownHostsFile;
    let text: string;
    try {
      text = await fs.readFile(file, "utf8");
    } catch (e) {
      throw new SshConnectError(`cannot read connection.knownHostsFile ${file}: ${(e as Error).message}; nothing was sent to ${at}`, "host-key");
    }
    const entries = knownHostKeys(text, c.host, port);
    const plain = entries.filter((e) => !e.marker);
    const revoked = entries.filter((e) => e.marker === "revoked");
    const authorities = entries.filter((e) => e.marker === "cert-authority");
    return {
      decide: (blob) => {
        const offered = fingerprint(blob);
        const type = keyType(blob);
        const bad = revoked.find((e) => e.fingerprint === offered);
        if (bad) {
          return `the SSH host key of ${at} (${type} ${offered}) is marked @revoked in ${file} (line ${bad.line}): it must not be trusted; get the host's current key from its administrator and list that instead`;
        }
        if (plain.some((e) => e.fingerprint === offered)) return undefined;
        const sameType = plain.filter((e) => e.type === type);
        if (sameType.length > 0) {
          return `the SSH host key of ${at} has changed: ${file} lists ${type} ${sameType.map((e) => e.fingerprint).join(", ")}, the server offered ${offered}. If the host was reinstalled, check the new key on the host and update the file; otherwise someone may be intercepting the connection`;
        }
        if (plain.length > 0) {
          return `the SSH host key of ${at} has changed: ${file} lists ${listKeys(plain)}, the server offered ${type} ${offered} and none of those. If the host was reinstalled, check the new key on the host and update the file; otherwise someone may be intercepting the connection`;
        }
        if (authorities.length > 0) {
          return `${file} trusts ${at} only through @cert-authority (line ${authorities.map((e) => e.line).join(", ")}), and certificate host keys are not supported (ssh2, which pulumi-garm connects with, cannot verify them); the server offered ${type} ${offered}: check it on the host (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) and add a plain line "${keyLine} ${type} <base64 key>" to the file (ssh-keyscan -p ${port} ${c.host} prints it), or pin it with connection.hostKey`;
        }
        return `the SSH host key of ${at} (${type} ${offered}) is not in ${file}; ${pinHint}`;
      },
      algorithms: hostKeyAlgorithms(plain.map((e) => e.type)),
    };
  }
  return { decide: (blob) => `the SSH host key of ${at} is unknown: the server offered ${keyType(blob)} ${fingerprint(blob)}; ${pinHint}` };
}

let opened = 0;
/** SSH connections this process has opened (a bastion's included): the bench reports them per `pulumi up`. */
export function sshConnectionsOpened(): number {
  return opened;
}

const DIAL_ERRORS = new Set(["ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET"]);

/** Why `c.privateKey` cannot be used, read as ssh2 reads it; undefined when it can. */
function privateKeyProblem(c: SshConnection): string | undefined {
  if (!c.privateKey) return undefined;
  const parsed = utils.parseKey(c.privateKey, c.privateKeyPassword);
  if (parsed instanceof Error) {
    // ssh2's parser errors name the format and the passphrase, never the key's text.
    const why = parsed.message.replace(/\s+/g, " ").trim();
    if (!/passphrase|encrypted|decrypt/i.test(why)) {
      return `connection.privateKey could not be read as a private key (${why}); give the whole private key file's text (OpenSSH or PEM format), not its .pub`;
    }
    return c.privateKeyPassword
      ? `connection.privateKey could not be decrypted with connection.privateKeyPassword (${why}); set privateKeyPassword to the passphrase the key was made with (ssh-keygen -y -f <key file> asks for it and shows whether it is right)`
      : `connection.privateKey is encrypted and connection.privateKeyPassword is not set (${why}); set privateKeyPassword to its passphrase`;
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key?.isPrivateKey()) return `connection.privateKey holds a public key; give the private key file's text instead`;
  return undefined;
}

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

/** What connecting needs, checked before anything is dialled: the host key policy and a way to log in. */
async function prepare(c: SshConnection, warn: (line: string) => void): Promise<HostKeyPolicy> {
  const keyProblem = privateKeyProblem(c);
  if (keyProblem) throw new SshConnectError(`cannot log in to ${where(c)}: ${keyProblem}; nothing was sent to the host`, "auth");
  if (authMethods(c).length === 0) {
    throw new SshConnectError(`no way to log in to ${where(c)}: set connection.privateKey, connection.password, or run an ssh-agent (SSH_AUTH_SOCK) or set connection.agentSocketPath`, "auth");
  }
  return hostKeyPolicy(c, warn);
}

export interface ConnectOptions {
  /** The provider instance's cancellation (../common/cancel.ts): a dial in progress and the pause between dials end on it. */
  cancel?: AbortSignal;
  /** The pause between dials; rejects when `cancel` aborts. @default sleepUnlessCancelled */
  sleep?: (ms: number, cancel?: AbortSignal) => Promise<void>;
}

/**
 * Connects to `c` (through its proxy, if any), retrying dial errors up to dialErrorLimit times. The private key, the
 * pinned host key and the known_hosts file are checked before the first dial.
 * @throws SshConnectError: unreachable, host key refused, authentication refused (naming the methods tried), a key
 * that cannot be decrypted, or cancelled (`options.cancel`), each saying what to do.
 */
export async function connectSsh(c: SshConnection, warn: (line: string) => void, options: ConnectOptions = {}): Promise<Client> {
  const limit = Math.max(1, c.dialErrorLimit ?? 10);
  const { cancel } = options;
  const sleep = options.sleep ?? sleepUnlessCancelled;
  const policy = await prepare(c, warn);
  for (let attempt = 1; ; attempt++) {
    const cancelled = () =>
      new SshConnectError(`cancelled while connecting to ${where(c)} (dial ${attempt} of at most ${limit}); nothing was done on the host`, "cancelled");
    if (cancel?.aborted) throw cancelled();
    try {
      return await connectOnce(c, warn, policy, options, cancelled);
    } catch (e) {
      if (!(e instanceof SshConnectError) || e.reason !== "unreachable" || attempt >= limit) {
        if (e instanceof SshConnectError && e.reason === "unreachable") {
          throw new SshConnectError(`${e.message} (${attempt} attempt${attempt === 1 ? "" : "s"}, connection.dialErrorLimit ${limit}); check connection.host and port, that sshd runs there and that a firewall lets this machine in`, "unreachable");
        }
        throw e;
      }
      try {
        await sleep(Math.min(1000 * attempt, 5000), cancel);
      } catch {
        throw cancelled();
      }
      if (cancel?.aborted) throw cancelled();
    }
  }
}

async function connectOnce(c: SshConnection, warn: (line: string) => void, policy: HostKeyPolicy, options: ConnectOptions, cancelled: () => SshConnectError): Promise<Client> {
  let sock: Duplex | undefined;
  let bastion: Client | undefined;
  const { cancel } = options;
  if (c.proxy) {
    bastion = await connectSsh(c.proxy, warn, options);
    const b = bastion;
    try {
      sock = await new Promise<Duplex>((resolve, reject) => {
        const onAbort = () => reject(cancelled());
        cancel?.addEventListener("abort", onAbort, { once: true });
        b.forwardOut("127.0.0.1", 0, c.host, c.port ?? 22, (err, stream) => {
          cancel?.removeEventListener("abort", onAbort);
          if (err) return reject(new SshConnectError(`the SSH proxy ${where(c.proxy!)} could not reach ${c.host}:${c.port ?? 22}: ${err.message}`, "unreachable"));
          if (cancel?.aborted) {
            stream.destroy();
            return reject(cancelled());
          }
          resolve(stream);
        });
      });
    } catch (e) {
      // The bastion serves this one connection: it ends with the attempt.
      b.end();
      throw e;
    }
  }
  const methods = authMethods(c);
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
    ...(policy.algorithms ? { algorithms: { serverHostKey: policy.algorithms as NonNullable<ConnectConfig["algorithms"]>["serverHostKey"] } } : {}),
    hostVerifier: (key: Buffer) => {
      refusedKey = policy.decide(key);
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
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      cancel?.removeEventListener("abort", onAbort);
      fn();
    };
    const fail = (e: SshConnectError, abruptly = false) =>
      settle(() => {
        // A cancelled dial is dropped at once; a failed one ends with a disconnect message where it can.
        if (abruptly) client.destroy();
        else client.end();
        bastion?.end();
        reject(e);
      });
    const onAbort = () => fail(cancelled(), true);
    cancel?.addEventListener("abort", onAbort, { once: true });
    client.once("ready", () =>
      settle(() => {
        opened++;
        if (bastion) client.once("close", () => bastion?.end());
        resolve(client);
      }),
    );
    // Every error is listened to: ssh2 may emit more than one (its handshake timer fires after a failure too).
    client.on("error", (err: Error & { level?: string; code?: string }) => {
      if (refusedKey) return fail(new SshConnectError(`refused to connect to ${where(c)}: ${refusedKey}`, "host-key"));
      if (err.level === "client-authentication") {
        const accepts = serverMethods?.length ? `; the server accepts ${serverMethods.join(", ")}` : "";
        return fail(
          new SshConnectError(
            `${where(c)} refused the login of user ${c.user ?? "root"}: tried ${tried.join(", ") || "nothing"}${accepts}. Check connection.user and that the key is in ~${c.user ?? "root"}/.ssh/authorized_keys on the host`,
            "auth",
          ),
        );
      }
      if (err.level === "client-timeout") return fail(new SshConnectError(`cannot reach SSH server ${c.host}:${c.port ?? 22}: no SSH handshake within ${c.perDialTimeout ?? 15}s (connection.perDialTimeout)`, "unreachable"));
      if (err.code && DIAL_ERRORS.has(err.code)) return fail(new SshConnectError(`cannot reach SSH server ${c.host}:${c.port ?? 22} (${err.code})`, "unreachable"));
      fail(new SshConnectError(`SSH connection to ${where(c)} failed: ${err.message}`, "other"));
    });
    // A connection closed before it was ready, without an error: said as lost, not left pending.
    client.once("close", () => fail(new SshConnectError(`SSH connection to ${where(c)} closed during the handshake`, "other")));
    if (cancel?.aborted) return onAbort();
    client.connect(config);
  });
}
