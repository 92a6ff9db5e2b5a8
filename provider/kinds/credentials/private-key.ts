// GitHub App private keys as GARM reads them: the first PEM block, parsed as a PKCS#1 RSA key (params/requests.go
// L453-477, GithubApp.Validate). A key that fails there is a plain error, so GARM answers 500 with no details (§1.7).
import { createPrivateKey } from "node:crypto";
import { type Failure, fail } from "../../common/input-check";
import { pemBlocks } from "../../common/pem";

/** Why GARM could not read the key; never quotes the key. */
export function privateKeyFailures(field: string, pem: string | undefined): Failure[] {
  if (pem === undefined) return [];
  const first = pemBlocks(pem)[0];
  if (first === undefined) {
    return [fail(field, `${field} is not PEM text; it must be the GitHub App's private key file, which starts with "-----BEGIN RSA PRIVATE KEY-----"`)];
  }
  if (isPkcs1Structure(first.der) && keyType(first.der, "pkcs1") === "rsa") return [];
  if (keyType(first.der, "pkcs8") === "rsa") {
    return [
      fail(
        field,
        `${field} is a PKCS#8 key ("BEGIN ${first.type}"); GARM reads only PKCS#1 RSA keys ("BEGIN RSA PRIVATE KEY"), the form GitHub ` +
          "issues: convert it with `openssl pkey -in key.pem -traditional -out key-rsa.pem`",
      ),
    ];
  }
  return [fail(field, `${field} is not an RSA private key GARM can read; it must be an unencrypted PKCS#1 key ("-----BEGIN RSA PRIVATE KEY-----") as GitHub issues it`)];
}

/**
 * RSAPrivateKey (RFC 8017 A.1.2) opens SEQUENCE { INTEGER version, INTEGER modulus, ... }; PrivateKeyInfo (PKCS#8)
 * has an AlgorithmIdentifier SEQUENCE second. OpenSSL's "pkcs1" decoder accepts both; Go's ParsePKCS1PrivateKey does not.
 */
export function isPkcs1Structure(der: Buffer): boolean {
  let at = 0;
  const header = (tag: number): number | undefined => {
    if (der[at] !== tag) return undefined;
    const first = der[at + 1];
    if (first === undefined) return undefined;
    let length = first;
    at += 2;
    if (first & 0x80) {
      const bytes = first & 0x7f;
      if (bytes === 0 || bytes > 4) return undefined;
      length = 0;
      for (let i = 0; i < bytes; i++) length = length * 256 + (der[at + i] ?? 0);
      at += bytes;
    }
    return length;
  };
  if (header(0x30) === undefined) return false;
  const version = header(0x02);
  if (version === undefined) return false;
  at += version;
  return der[at] === 0x02;
}

function keyType(der: Buffer, type: "pkcs1" | "pkcs8"): string | undefined {
  try {
    return createPrivateKey({ key: der, format: "der", type }).asymmetricKeyType;
  } catch {
    return undefined;
  }
}
