// The name and URL rules GARM applies to forge objects (endpoints, credentials) and URL settings (the controller).
import { type Failure, fail, show } from "./input-check";

/**
 * Endpoint and credentials names: a path segment of GARM's routes (routers.go L514-521) stored in a varchar(64) column
 * (database/sql/models.go L464, L483).
 */
export const FORGE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function nameFailures(field: string, value: string | undefined): Failure[] {
  if (value === undefined) return [];
  if (value.trim() === "") return [fail(field, `${field} must not be empty`)];
  if (!FORGE_NAME_PATTERN.test(value)) {
    return [fail(field, `${field} ${show(value)} may hold only letters, digits, ".", "_" and "-", start with a letter or digit, and be at most 64 characters`)];
  }
  return [];
}

/** GARM accepts a URL with an http or https scheme and a host (params/requests.go L324-357, Validate). */
export function urlFailures(field: string, value: string | undefined): Failure[] {
  if (value === undefined) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [fail(field, `${field} ${show(value)} is not a URL; it must be an http:// or https:// URL with a host`)];
  }
  // WHATWG URL finds a host in "https:///x"; Go's url.Parse, which GARM uses, does not.
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.host === "" || !/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]/.test(value)) {
    return [fail(field, `${field} ${show(value)} must be an http:// or https:// URL with a host`)];
  }
  return [];
}
