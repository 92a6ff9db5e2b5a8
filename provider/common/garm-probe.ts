// The one look at GARM a provider instance takes before its first operation: GET /controller-info, which also logs
// in, so a refused login is said at preview (where no other call may reach GARM) instead of failing only at `up`.
import type { GarmClient } from "../garm/client";
import { isGarmError } from "../garm/errors";
import type { Logger } from "./log";

/** Bound on the probe, so an unreachable GARM delays the run by this much at most; the operations then say why. */
export const PROBE_TIMEOUT_MS = 5000;

/** Reads GARM's controller info and warns, in one line, about a refused login. Never throws. */
export async function probeGarm(client: GarmClient, log: Logger, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const answer = await Promise.race([client.controllerInfo(), timedOut]);
    if (answer === "timeout") return;
  } catch (err) {
    if (isGarmError(err, "auth-failed")) {
      log.warn(`GARM refused the login; preview goes on, but \`pulumi up\` will fail until it is fixed: ${(err as Error).message}`);
    }
  } finally {
    clearTimeout(timer);
  }
}
