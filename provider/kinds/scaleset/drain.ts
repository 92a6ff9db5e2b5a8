// A scale set as the shared drain (../drain/retire.ts) sees it: its GARM calls, and the delete refusals and silent
// failure of GARM's scale-set delete (garm-behaviour.md §5).
import type { GarmClient, ScaleSetView } from "../../garm/client";
import { type DrainDeps, type RetireOutcome, type ScaleSetOrPool, retireScaleSetOrPool } from "../../runners/drain/retire";
import type { DrainOptions } from "../../runners/drain/options";

export { DrainError, type RetireOutcome } from "../../runners/drain/retire";

export type DrainClient = Pick<
  GarmClient,
  "updateScaleSet" | "listScaleSetInstances" | "listJobs" | "deleteInstance" | "deleteScaleSet" | "getScaleSet"
>;

export interface ScaleSetDrainDeps extends DrainDeps {
  readonly client: DrainClient;
}

export interface DrainTarget {
  readonly id: number;
  readonly liveName: string;
  /** Whether GARM's scale set under `id` is this one: a database restore can give the id to another scale set. */
  readonly owns: (view: ScaleSetView) => boolean;
}

/** The scale set under `target.id` as the drain retires it. */
export function scaleSetToRetire(target: DrainTarget, client: DrainClient): ScaleSetOrPool<ScaleSetView> {
  return {
    label: `GarmScaleSet ${target.liveName} (id ${target.id})`,
    noun: "scale set",
    get: () => client.getScaleSet(target.id),
    owns: target.owns,
    isEmpty: (view) => view.instances.length === 0,
    disable: async () => void (await client.updateScaleSet(target.id, { enabled: false, min_idle_runners: 0, max_runners: 0 })),
    listRunners: () => client.listScaleSetInstances(target.id),
    listJobs: () => client.listJobs(),
    deleteRunner: (name, options) => client.deleteInstance(name, options),
    delete: () => client.deleteScaleSet(target.id),
    // runner/scalesets.go L55-109: "has runners" before the GitHub call, "is enabled" while the listener may run (§5).
    refusal: (err) => (/has runners|with runners/.test(err.details) ? "has-runners" : /is enabled/.test(err.details) ? "enabled" : undefined),
    keptAfterDelete:
      "GARM does this when its call to GitHub fails (check GARM's log for \"scale set not found\" or GitHub errors; if the GitHub " +
      "scale set was removed by hand, restarting GARM re-creates it so the delete can go through)",
  };
}

/** Disables, drains and deletes the scale set, and checks it is gone (../drain/retire.ts). */
export function retireScaleSet(target: DrainTarget, options: DrainOptions, deps: ScaleSetDrainDeps): Promise<RetireOutcome<ScaleSetView>> {
  return retireScaleSetOrPool(scaleSetToRetire(target, deps.client), options, deps);
}
