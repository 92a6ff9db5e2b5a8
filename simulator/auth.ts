// GARM-style HS256 JWTs for the admin user and the Authorization header rules (garm-behaviour.md §1.3, §1.4).
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { UserRecord } from "./types";

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

export interface Claims {
  user: string;
  token_id: string;
  full_name: string;
  is_admin: boolean;
  read_metrics: boolean;
  generation: number;
  exp: number;
  iss: string;
}

/** Signs a token with the claims GARM puts in its JWTs (§1.3); TTL 24h, GARM's minimum. */
export function signToken(secret: string, user: UserRecord, nowMs: number): string {
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const claims: Claims = {
    user: user.id,
    token_id: user.id,
    full_name: user.fullName,
    is_admin: true,
    read_metrics: false,
    generation: user.generation,
    exp: Math.floor(nowMs / 1000) + 24 * 3600,
    iss: "garm",
  };
  const payload = b64url(JSON.stringify(claims));
  const sig = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${sig}`;
}

/** Returns the claims of a valid, unexpired token, else undefined. */
export function verifyToken(secret: string, token: string, nowMs: number): Claims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [header, payload, sig] = parts as [string, string, string];
  const expected = createHmac("sha256", secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Claims;
    if (typeof claims.exp !== "number" || claims.exp * 1000 <= nowMs) return undefined;
    return claims;
  } catch {
    return undefined;
  }
}

/**
 * The token from `Authorization` (split on one space, exactly two parts, first word unchecked), else the
 * `garm_token` cookie (§1.4).
 */
export function tokenFromRequest(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined && header !== "") {
    const parts = header.split(" ");
    return parts.length === 2 ? parts[1] : undefined;
  }
  const cookie = req.headers.cookie ?? "";
  for (const c of cookie.split(";")) {
    const [k, ...v] = c.trim().split("=");
    if (k === "garm_token") return v.join("=");
  }
  return undefined;
}
