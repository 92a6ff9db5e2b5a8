// A pool as the shared drain (../../runners/drain/retire.ts) sees it. GARM deletes a pool only without runners and does not ask
// GitHub (runner/pools.go L51-72), and a disabled pool is never scaled down by GARM (runner/pool/pool.go L1225-1233),
// so the drain removes its idle runners itself.
import type { GarmClient, PoolView } from "../../garm/client";
import type { ScaleSetOrPool } from "../../runners/drain/retire";

export type PoolDrainClient = Pick<GarmClient, "getPool" | "updatePool" | "listPoolInstances" | "listJobs" | "deleteInstance" | "deletePool">;

export function poolToRetire(id: string, owns: (view: PoolView) => boolean, client: PoolDrainClient): ScaleSetOrPool<PoolView> {
  return {
    label: `GarmPool ${id}`,
    noun: "pool",
    get: () => client.getPool(id),
    owns,
    isEmpty: (view) => view.instances.length === 0,
    // min_idle_runners 0 first keeps UpdatePoolByID's min ≤ max rule (runner/pools.go L98-100) with max_runners 0.
    disable: async () => void (await client.updatePool(id, { enabled: false, min_idle_runners: 0, max_runners: 0 })),
    listRunners: () => client.listPoolInstances(id),
    listJobs: () => client.listJobs(),
    deleteRunner: (name, options) => client.deleteInstance(name, options),
    delete: () => client.deletePool(id),
    refusal: (err) => (/pool has runners/.test(err.details) ? "has-runners" : undefined),
    keptAfterDelete: "another client may have re-created it under the same id; check GARM's log",
  };
}
