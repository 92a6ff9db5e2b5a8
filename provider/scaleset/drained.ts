// A scale set a stopped delete left behind. A drain's first step sets enabled=false, max_runners=0, min_idle_runners=0
// (drain.ts, Appendix B); when the delete then stops (a drain timeout, a killed run), Pulumi's state still holds the
// values from before, so a program that keeps the scale set would look unchanged. Diff reads GARM to notice, and
// update compares these fields against GARM instead of the state.
import type { GarmClient, ScaleSetView } from "../garm/client";
import { isGarmError } from "../garm/errors";
import type { Logger } from "../log";
import { containsUnknown } from "../unknown";
import { briefly } from "./brief-error";
import type { UpdatableField } from "./diff";
import type { ScaleSetOutputs } from "./state";

export const DRAINED_FIELDS = ["enabled", "maxRunners", "minIdleRunners"] as const satisfies readonly UpdatableField[];
export type DrainedField = (typeof DRAINED_FIELDS)[number];

type Counts = Pick<ScaleSetView, "enabled" | "maxRunners" | "minIdleRunners">;

/** True when GARM holds the scale set as a drain leaves it: disabled at 0 runners. */
export function isDrained(view: Counts): boolean {
  return !view.enabled && view.maxRunners === 0 && view.minIdleRunners === 0;
}

/** The drained fields the program wants otherwise; empty unless GARM holds the scale set drained. */
export function fieldsToRestore(live: Counts, news: Record<string, unknown>): DrainedField[] {
  if (!isDrained(live)) return [];
  return DRAINED_FIELDS.filter((field) => news[field] !== undefined && (containsUnknown(news[field]) || news[field] !== live[field]));
}

/** The stored outputs with the drained fields taken from GARM when GARM holds the scale set drained. */
export function withDrainedFields(olds: ScaleSetOutputs, live: Counts): ScaleSetOutputs {
  if (!isDrained(live)) return olds;
  return { ...olds, enabled: live.enabled, maxRunners: live.maxRunners, minIdleRunners: live.minIdleRunners };
}

export function restoreLine(label: string, fields: readonly string[]): string {
  return (
    `${label}: GARM holds it disabled at 0 runners, as a delete that stopped part-way leaves it; this update sets ` +
    `${fields.join(", ")} back to the program's values (\`pulumi destroy\` would retry the delete instead)`
  );
}

/** What diff learned from GARM about one scale set. */
export type LiveLook = { readonly kind: "found"; readonly view: ScaleSetView } | { readonly kind: "gone" } | { readonly kind: "unavailable" };

export interface LiveReaderDeps {
  readonly client: () => Pick<GarmClient, "getScaleSet">;
  readonly log: Logger;
  /** Bound on one read, so an unreachable GARM does not hold a preview up. */
  readonly timeoutMs: number;
}

/**
 * Reads scale sets for diff: GETs only, bounded in time. The first failure to reach GARM is warned once, and the
 * reader stops asking for the rest of the process, so diff falls back to Pulumi's state.
 */
export function liveReader(deps: LiveReaderDeps): (id: number) => Promise<LiveLook> {
  let unavailable = false;
  return async (id) => {
    if (unavailable) return { kind: "unavailable" };
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(deps.timeoutMs / 1000)}s`)), deps.timeoutMs);
        timer.unref();
      });
      const view = await Promise.race([deps.client().getScaleSet(id), timeout]);
      return { kind: "found", view };
    } catch (err) {
      if (isGarmError(err, "not-found")) return { kind: "gone" };
      if (!unavailable) {
        unavailable = true;
        deps.log.warn(
          `could not read GARM to compare scale sets with it (${briefly(err)}); planning from Pulumi's state, ` +
            "so a scale set a stopped delete left disabled shows as unchanged: run the preview again once GARM answers",
        );
      }
      return { kind: "unavailable" };
    } finally {
      clearTimeout(timer);
    }
  };
}
