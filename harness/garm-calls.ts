// The GARM calls a run made for its resources, as the call-count targets count them: without the logins and without
// the one version read a provider process makes when it is configured (provider/common/garm-probe.ts), both of which a
// run pays once, however many resources it touches.
import type { RequestLogEntry } from "../simulator";

/** Whether `r` is the provider process's once-per-run read of GARM's version. */
export function isVersionRead(r: Pick<RequestLogEntry, "method" | "path">): boolean {
  return r.method === "GET" && r.path.endsWith("/controller");
}

/** `requests` without the logins and the version read. */
export function resourceCalls<R extends Pick<RequestLogEntry, "method" | "path">>(requests: readonly R[]): R[] {
  return requests.filter((r) => !r.path.endsWith("/auth/login") && !isVersionRead(r));
}
