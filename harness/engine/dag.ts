// Runs steps over a dependency graph the way the engine's step executor does: a node starts once all of its
// dependencies succeeded, up to `parallel` at a time (pulumi-behaviour.md §2.3 "Parallelism"); a node whose
// dependency failed is skipped; once `canStart()` turns false no new node starts but running ones finish
// (the CLI's default stop-on-error; pulumi/docs blog "continue-on-error").

export type NodeStatus = "pending" | "running" | "ok" | "failed" | "skipped";

export interface DagOptions {
  nodes: string[];
  /** Dependencies of a node; names outside `nodes` are ignored. */
  deps: (node: string) => string[];
  parallel: number;
  run: (node: string) => Promise<boolean>;
  canStart: () => boolean;
  onSkip: (node: string, reason: string) => void;
}

export function runDag(o: DagOptions): Promise<Map<string, NodeStatus>> {
  const status = new Map<string, NodeStatus>(o.nodes.map((n) => [n, "pending"]));
  let running = 0;
  return new Promise((resolve) => {
    const pump = (): void => {
      let progressed = true;
      while (progressed) {
        progressed = false;
        for (const n of o.nodes) {
          if (status.get(n) !== "pending") continue;
          const ds = o.deps(n).filter((d) => d !== n && status.has(d));
          const bad = ds.find((d) => status.get(d) === "failed" || status.get(d) === "skipped");
          if (bad !== undefined) {
            status.set(n, "skipped");
            o.onSkip(n, `skipped: dependency ${bad} did not complete`);
            progressed = true;
            continue;
          }
          if (!ds.every((d) => status.get(d) === "ok")) continue;
          if (running >= o.parallel || !o.canStart()) continue;
          status.set(n, "running");
          running++;
          // Started asynchronously so every step begins on its own tick, as concurrent engine steps do.
          void Promise.resolve()
            .then(() => o.run(n))
            .then(
              (ok) => status.set(n, ok ? "ok" : "failed"),
              () => status.set(n, "failed"),
            )
            .finally(() => {
              running--;
              pump();
            });
        }
      }
      if (running === 0) {
        for (const n of o.nodes) {
          if (status.get(n) !== "pending") continue;
          status.set(n, "skipped");
          o.onSkip(n, "skipped: not started because the operation stopped after an error");
        }
        resolve(status);
      }
    };
    pump();
  });
}
