// The one look at GARM a provider instance takes before its first operation: GET /controller (the controller-info answer), which also logs
// in, so a refused login is said at preview (where no other call may reach GARM) instead of failing only at `up`, and
// a GARM of a version this release was not tested against is named before a behaviour difference bites.
import type { GarmClient } from "../garm/client";
import { isGarmError } from "../garm/errors";
import { controllerInfoWithin } from "./garm-identity";
import type { Logger } from "./log";

/** Bound on the probe, so an unreachable GARM delays the run by this much at most; the operations then say why. */
export const PROBE_TIMEOUT_MS = 5000;

/** The GARM versions this release was tested against (controller-info's `version`). */
export const TESTED_GARM_VERSIONS: readonly string[] = ["v0.2.1"];

/** Reads GARM's controller info and warns, one line each, about a refused login or an untested version. Never throws. */
export async function probeGarm(client: GarmClient, log: Logger, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  try {
    const answer = await controllerInfoWithin(client, timeoutMs);
    if (answer === undefined) return;
    if (!TESTED_GARM_VERSIONS.includes(answer.version)) {
      log.warn(
        `GARM reports version ${JSON.stringify(answer.version)}, but this pulumi-garm release was tested against ${TESTED_GARM_VERSIONS.join(", ")} only: ` +
          "its behaviour may differ; use a tested GARM or check the result of each change in GARM",
      );
    }
  } catch (err) {
    if (isGarmError(err, "auth-failed")) {
      log.warn(`GARM refused the login; preview goes on, but \`pulumi up\` will fail until it is fixed: ${(err as Error).message}`);
    }
  }
}

const probed = new WeakSet<GarmClient>();

/** probeGarm once per client: the dynamic provider's process keeps one client for the whole run. */
export async function probeGarmOnce(client: GarmClient, log: Logger): Promise<void> {
  if (probed.has(client)) return;
  probed.add(client);
  await probeGarm(client, log);
}
