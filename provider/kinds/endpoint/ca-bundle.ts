// CA bundles as GARM keeps them: PEM certificates, de-duplicated and re-encoded (garm-provider-common v0.1.9
// util/util.go L334-359, SanitizeCABundle, called by runner/github_endpoints.go L33-40 and L90-97).
import { X509Certificate } from "node:crypto";
import { type Failure, fail } from "../../common/input-check";
import { pemBlocks } from "../../common/pem";

/**
 * What GARM would do wrong with the bundle: text with no PEM block is silently dropped (SanitizeCABundle returns an empty
 * bundle and Validate skips it), a block that is not a certificate fails with a 500 and no details.
 */
export function caBundleFailures(field: string, text: string | undefined): Failure[] {
  if (text === undefined || text === "") return [];
  const blocks = pemBlocks(text);
  if (blocks.length === 0) {
    return [fail(field, `${field} holds no PEM certificate ("-----BEGIN CERTIFICATE-----"); GARM would ignore it and keep no CA bundle`)];
  }
  const failures: Failure[] = [];
  blocks.forEach((b, i) => {
    if (b.type !== "CERTIFICATE") {
      failures.push(fail(field, `${field} block ${i + 1} is a "${b.type}", not a CERTIFICATE; a CA bundle may hold only certificates`));
      return;
    }
    try {
      new X509Certificate(b.der);
    } catch {
      failures.push(fail(field, `${field} block ${i + 1} is not a valid X.509 certificate`));
    }
  });
  return failures;
}

/** The bundle as GARM stores it: each distinct certificate once, in order, as 64-column PEM (Go's pem.Encode). */
export function canonicalCaBundle(text: string | undefined): string {
  if (!text) return "";
  const seen = new Set<string>();
  let out = "";
  for (const b of pemBlocks(text)) {
    const b64 = b.der.toString("base64");
    if (seen.has(b64)) continue;
    seen.add(b64);
    out += `-----BEGIN ${b.type}-----\n${(b64.match(/.{1,64}/g) ?? []).join("\n")}\n-----END ${b.type}-----\n`;
  }
  return out;
}
