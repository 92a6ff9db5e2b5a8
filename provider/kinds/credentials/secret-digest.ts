// A salted digest of the credentials' secret, kept in the state instead of the secret, so a rotated token or key is
// still seen as a change. The salt is random per resource, so equal secrets of two resources do not look alike.
import { createHash, randomBytes } from "node:crypto";

export const newSalt = () => randomBytes(16).toString("hex");

/** The secret part of the inputs: a token, or a GitHub App's private key. */
export interface SecretInputs {
  readonly token?: string;
  readonly privateKey?: string;
}

export function secretDigest(salt: string, inputs: SecretInputs): string {
  const secret = inputs.token !== undefined ? `token\n${inputs.token}` : `privateKey\n${inputs.privateKey ?? ""}`;
  return createHash("sha256").update(`${salt}\n${secret}`).digest("hex");
}
