// The host keys a connection trusts: a pinned `hostKey` (ssh-keyscan's output, its key lines, or SHA256 fingerprints)
// and OpenSSH known_hosts files, read with OpenSSH's rules (sshd(8), "SSH_KNOWN_HOSTS FILE FORMAT"): comma-separated
// patterns with `*` and `?`, a `!` pattern that excludes the host from its line, `[host]:port` off port 22, hashed
// `|1|salt|hash` names, host names compared without case, and the `@revoked` and `@cert-authority` markers.
import { createHash, createHmac } from "node:crypto";

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

/** The blob of `b64` when it is base64 of a key blob of type `type`, else undefined. */
function keyBlob(type: string, b64: string | undefined): Buffer | undefined {
  if (!b64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
  const blob = Buffer.from(b64, "base64");
  return keyType(blob) === type ? blob : undefined;
}

/** The name known_hosts lines are matched against: the host, or `[host]:port` off port 22; lowercased, as ssh does. */
export function knownHostsName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

/** Whether `s` matches `pattern` whole, where `*` stands for any run of characters and `?` for any one character. */
export function matchPattern(s: string, pattern: string): boolean {
  // Iterative wildcard match with one backtrack point (the last `*`).
  let si = 0;
  let pi = 0;
  let star = -1;
  let mark = 0;
  while (si < s.length) {
    if (pi < pattern.length && (pattern[pi] === "?" || pattern[pi] === s[si])) {
      si++;
      pi++;
    } else if (pi < pattern.length && pattern[pi] === "*") {
      star = pi++;
      mark = si;
    } else if (star >= 0) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < pattern.length && pattern[pi] === "*") pi++;
  return pi === pattern.length;
}

/**
 * A comma-separated pattern list against `name` (already lowercased), patterns compared without case: 1 when a pattern
 * matches, -1 when a `!` pattern matches (which overrides every other pattern of the list), 0 when none does.
 */
export function matchPatternList(name: string, list: string): 1 | 0 | -1 {
  let positive = false;
  for (const raw of list.split(",")) {
    const negated = raw.startsWith("!");
    const pattern = (negated ? raw.slice(1) : raw).toLowerCase();
    if (!matchPattern(name, pattern)) continue;
    if (negated) return -1;
    positive = true;
  }
  return positive ? 1 : 0;
}

/** Whether a known_hosts line's host field names `name`: a hashed `|1|salt|hash` name, or a pattern list. */
export function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith("|")) {
    const m = /^\|1\|([A-Za-z0-9+/]+={0,2})\|([A-Za-z0-9+/]+={0,2})$/.exec(field);
    if (!m) return false; // a bad hash: OpenSSH skips the line
    return createHmac("sha1", Buffer.from(m[1], "base64")).update(name).digest("base64") === m[2];
  }
  return matchPatternList(name, field) === 1;
}

export type KnownHostMarker = "revoked" | "cert-authority";

/** One key line of a known_hosts file that names the host. */
export interface KnownHostKey {
  marker?: KnownHostMarker;
  type: string;
  fingerprint: string;
  /** 1-based line number in its file. */
  line: number;
}

/**
 * The key lines of known_hosts `text` whose host field names `host` on `port`. Lines OpenSSH would skip are skipped:
 * comments, unknown markers, a key that is not valid base64 of a key of the named type, a bad hash.
 */
export function knownHostKeys(text: string, host: string, port: number): KnownHostKey[] {
  const name = knownHostsName(host, port);
  const out: KnownHostKey[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const words = raw.trim().split(/[ \t]+/);
    if (!words[0] || words[0].startsWith("#")) return;
    let marker: KnownHostMarker | undefined;
    if (words[0].startsWith("@")) {
      if (words[0] === "@revoked") marker = "revoked";
      else if (words[0] === "@cert-authority") marker = "cert-authority";
      else return;
      words.shift();
    }
    const [hosts, type, b64] = words;
    if (!hosts || !type || !hostFieldMatches(hosts, name)) return;
    const blob = keyBlob(type, b64);
    if (!blob) return;
    out.push({ ...(marker ? { marker } : {}), type, fingerprint: fingerprint(blob), line: i + 1 });
  });
  return out;
}

/** What a pinned `hostKey` trusts: fingerprints, with the key type where the pin holds the key itself. */
export interface PinnedKey {
  type?: string;
  fingerprint: string;
}

/**
 * The keys a `hostKey` value pins, one per non-empty line that is not a `#` comment: `SHA256:<fingerprint>`,
 * `<type> <base64>`, or a line as ssh-keyscan prints it, `<host> <type> <base64> [comment]` (the host field is not
 * checked: the pin is for the connection it sits in). The type is told from the key blob, which names its own type.
 * @returns the keys, or the 1-based number of the first line that is none of these.
 */
export function parsePinnedHostKeys(text: string): PinnedKey[] | { badLine: number; start: string } {
  const keys: PinnedKey[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const words = lines[i].trim().split(/[ \t]+/);
    if (!words[0] || words[0].startsWith("#")) continue;
    if (words.length === 1 && /^SHA256:[A-Za-z0-9+/]+=*$/.test(words[0])) {
      keys.push({ fingerprint: words[0].replace(/=+$/, "") });
      continue;
    }
    // The key is the first `<type> <base64>` pair whose blob names that type: a host name may hold anything.
    let found: PinnedKey | undefined;
    for (let w = 0; w + 1 < words.length && w <= 1 && !found; w++) {
      const blob = keyBlob(words[w], words[w + 1]);
      if (blob) found = { type: words[w], fingerprint: fingerprint(blob) };
    }
    // What the message quotes of the line: its start, with long base64 runs elided (it may be a pasted private key).
    if (!found) return { badLine: i + 1, start: words.join(" ").replace(/[A-Za-z0-9+/=]{16,}/g, "…").slice(0, 40) };
    keys.push(found);
  }
  return keys;
}

/** The host key algorithms ssh2 1.17.0 (pinned exactly) offers by default, in its order; ssh-dss it supports on request. */
const SSH2_HOST_KEY_ALGORITHMS = ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"];

/**
 * The host key algorithms to offer, the trusted keys' types first (as ssh does with known_hosts), so a server with
 * several host keys shows one that is trusted; undefined (ssh2's default) when no type is known.
 */
export function hostKeyAlgorithms(types: string[]): string[] | undefined {
  const first: string[] = [];
  for (const t of types) {
    const algos = t === "ssh-rsa" ? ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"] : t === "ssh-dss" || SSH2_HOST_KEY_ALGORITHMS.includes(t) ? [t] : [];
    for (const a of algos) if (!first.includes(a)) first.push(a);
  }
  if (first.length === 0) return undefined;
  return [...first, ...SSH2_HOST_KEY_ALGORITHMS.filter((a) => !first.includes(a))];
}
