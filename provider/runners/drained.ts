// A scale set a stopped delete left behind. A drain's first step sets enabled=false, max_runners=0, min_idle_runners=0
// (drain.ts, Appendix B); when the delete then stops (a drain timeout, a killed run), Pulumi's state still holds the
// values from before, so a program that keeps the scale set would look unchanged. Diff reads GARM to notice, and
// update compares these fields against GARM instead of the state.
import type { GarmClient, ScaleSetView } from "../garm/client";
import { isGarmError } from "../garm/errors";
import type { Logger } from "../common/log";
import { containsUnknown } from "../common/unknown";
import { briefly } from "./brief-error";
import type { RunnerSettings } from "./inputs";

export const DRAINED_FIELDS = ["enabled", "maxRunners", "minIdleRunners"] as const satisfies readonly (keyof RunnerSettings)[];
export type DrainedField = (typeof DRAINED_FIELDS)[number];

type Counts = Pick<ScaleSetView, "enabled" | "maxRunners" | "minIdleRunners">;

/** True when GARM holds the scale set as a drain leaves it: disabled at 0 runners. */
export function isDrained(view: Counts): boolean {
  return !view.enabled && view.maxRunners === 0 && view.minIdleRunners === 0;
}

/**
 * The drained fields the program wants otherwise; empty unless GARM holds the scale set drained. With `stored`, also
 * empty when Pulumi's state records it drained: a scale set parked on purpose (disabled at 0, imported or written
 * so) is not taken for a delete that stopped part-way, whose state keeps the values from before (Appendix B step 1).
 */
export function fieldsToRestore(live: Counts, news: Record<string, unknown>, stored?: Counts): DrainedField[] {
  if (!isDrained(live)) return [];
  if (stored !== undefined && isDrained(stored)) return [];
  return DRAINED_FIELDS.filter((field) => news[field] !== undefined && (containsUnknown(news[field]) || news[field] !== live[field]));
}

/** The stored outputs with the drained fields taken from GARM when GARM holds the scale set (or pool) drained. */
export function withDrainedFields<T extends Counts>(olds: T, live: Counts): T {
  if (!isDrained(live)) return olds;
  return { ...olds, enabled: live.enabled, maxRunners: live.maxRunners, minIdleRunners: live.minIdleRunners };
}

export function restoreLine(label: string, fields: readonly string[], stored?: Counts): string {
  if (stored !== undefined) {
    // Told by the state, not by GARM's values alone: the state records it running, GARM holds it drained.
    const recorded = `enabled ${stored.enabled}, maxRunners ${stored.maxRunners}, minIdleRunners ${stored.minIdleRunners}`;
    return (
      `${label}: GARM holds it disabled at 0 runners while Pulumi's state records ${recorded}, as a delete that stopped ` +
      `part-way leaves it (or a change made outside Pulumi); this update sets ${fields.join(", ")} back to the program's ` +
      "values (`pulumi destroy` would retry the delete instead)"
    );
  }
  return (
    `${label}: GARM holds it disabled at 0 runners, as a delete that stopped part-way leaves it; this update sets ` +
    `${fields.join(", ")} back to the program's values (\`pulumi destroy\` would retry the delete instead)`
  );
}

/** What diff learned from GARM about one scale set. */
export type LiveLook = { readonly kind: "found"; readonly view: ScaleSetView } | { readonly kind: "gone" } | { readonly kind: "unavailable" };

export interface ReadGateDeps {
  readonly log: Logger;
  /** Bound on one read, so an unreachable GARM does not hold a preview up. */
  readonly timeoutMs: number;
}

/** A read planning made of GARM: its value, or "unavailable" once GARM could not be reached (warned once). */
export type GatedRead<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown; readonly unavailable: boolean };

/**
 * The one way planning (check and diff) reads GARM: GETs only, each bounded in time. The first failure to reach GARM
 * is warned once, and the gate stops asking for the rest of the process, so planning falls back to Pulumi's state and
 * to the checks `up` makes anyway. A not-found answer is handed back, not warned.
 */
export function readGate(deps: ReadGateDeps): <T>(read: () => Promise<T>) => Promise<GatedRead<T>> {
  let unavailable = false;
  return async <T>(read: () => Promise<T>): Promise<GatedRead<T>> => {
    if (unavailable) return { ok: false, error: undefined, unavailable: true };
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(deps.timeoutMs / 1000)}s`)), deps.timeoutMs);
        timer.unref();
      });
      return { ok: true, value: await Promise.race([read(), timeout]) };
    } catch (err) {
      if (isGarmError(err, "not-found")) return { ok: false, error: err, unavailable: false };
      if (!unavailable) {
        unavailable = true;
        deps.log.warn(
          `could not read GARM while planning (${briefly(err)}); planning from Pulumi's state: providerName and the entity are ` +
            "checked only by `pulumi up`, and a scale set a stopped delete left disabled shows as unchanged; run the preview again once GARM answers",
        );
      }
      return { ok: false, error: err, unavailable: true };
    } finally {
      clearTimeout(timer);
    }
  };
}

export interface LiveReaderDeps extends ReadGateDeps {
  readonly client: () => Pick<GarmClient, "getScaleSet">;
  /** The process's planning gate, shared with check; one of its own otherwise. */
  readonly gate?: ReturnType<typeof readGate>;
}

/** Reads scale sets for diff through the planning gate. */
export function liveReader(deps: LiveReaderDeps): (id: number) => Promise<LiveLook> {
  const gate = deps.gate ?? readGate(deps);
  return async (id) => {
    const read = await gate(() => deps.client().getScaleSet(id));
    if (read.ok) return { kind: "found", view: read.value };
    if (isGarmError(read.error, "not-found")) return { kind: "gone" };
    return { kind: "unavailable" };
  };
}
