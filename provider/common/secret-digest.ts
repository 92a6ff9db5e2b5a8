// What a resource keeps in state to see a rotated secret without holding it: a slow keyed derivation of the secret
// under a random per-resource salt. The outputs holding it are marked secret in both front doors as well; the
// derivation is the second wall, so that state read in clear (an export, a backup) cannot be tested against guesses
// at speed. State written before this (stateVersion 1) holds a plain salted sha256, still read and compared.
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * scrypt with N=2^14, r=8, p=1: 16 MiB of memory and tens of milliseconds per derivation on a current core (about
 * 40 ms unloaded), paid once per diff or write of a resource with a secret, while each guess of an offline attack pays
 * the same. The parameters are part of the stored text, so stronger ones can come later without breaking old state.
 */
const COST = { N: 1 << 14, r: 8, p: 1 } as const;
const KEY_BYTES = 32;

/** A stored salt and digest; `digest` is "scrypt:N:r:p:<hex>", or "sha256:<hex>" from state version 1. */
export interface SecretDigest {
  readonly salt: string;
  readonly digest: string;
}

export const newSalt = (): string => randomBytes(16).toString("hex");

function derive(salt: string, secret: string, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_BYTES, { ...cost, maxmem: 256 * cost.N * cost.r }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The digest of `secret` under a fresh salt. */
export async function digestSecret(secret: string): Promise<SecretDigest> {
  const salt = newSalt();
  const key = await derive(salt, secret, COST);
  return { salt, digest: `scrypt:${COST.N}:${COST.r}:${COST.p}:${key.toString("hex")}` };
}

/** Whether `secret` is the one `stored` was made from; a digest of a form this package never wrote matches nothing. */
export async function secretMatches(stored: SecretDigest, secret: string): Promise<boolean> {
  const [form, ...rest] = stored.digest.split(":");
  if (form === "sha256" && rest.length === 1) {
    const legacy = createHash("sha256").update(`${stored.salt}\n${secret}`).digest("hex");
    return equalHex(legacy, rest[0]!);
  }
  if (form === "scrypt" && rest.length === 4) {
    const [N, r, p] = rest.slice(0, 3).map(Number) as [number, number, number];
    if (![N, r, p].every(Number.isSafeInteger)) return false;
    return equalHex((await derive(stored.salt, secret, { N, r, p })).toString("hex"), rest[3]!);
  }
  return false;
}

/** State version 1 stored the sha256 as bare hex; the readers of older state name its form. */
export function digestOfVersion1(digest: string): string {
  return /^[0-9a-f]{64}$/.test(digest) ? `sha256:${digest}` : digest;
}

function equalHex(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
