// A label or provider change replaces a scale set create-before-delete under a new hashed name (label-hash naming). The
// engine runs every replacement's delete only after every create of the run, each holding one of its `--parallel`
// slots for the whole drain; and a create that waited there for its runners held one too. So a replacement's create
// returns once GARM holds the new scale set, and the old generation's retirement (readiness wait, then disable, drain,
// delete) runs in this process from then on, outside the engine's slots; the engine's delete of the old generation
// waits for that retirement and reports it (docs/concepts/label-hash-naming.md#retiring-the-old-generation).
//
// The order that keeps warm capacity is unchanged: the old generation is disabled only once its successor has its idle
// runners (or their wait timed out). When the run stops before the engine's delete (a failure elsewhere, Ctrl-C, a
// crash), the old generation stays in Pulumi's state as pending delete, and whatever the retirement had done is a
// retire that stopped part-way, which the next run's delete finishes; that delete finds the successor by name (the same
// base, another hash, under the same entity) and waits for it first, since nothing in that process remembers it.
import type { GarmClient, ScaleSetView } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import type { RetireOutcome } from "./drain";
import { isOtherGeneration } from "../../runners/naming";

/** How a retirement started by a successor's create ended. */
export type EarlyRetirement = { readonly kind: "retired"; readonly outcome: RetireOutcome<ScaleSetView> } | { readonly kind: "failed"; readonly error: unknown };

/** The retirements running in this process, by the old generation's GARM id, until the engine's delete takes them. */
export class EarlyRetirements {
  private readonly byOldId = new Map<number, Promise<EarlyRetirement>>();

  /** Starts `retire` unless one runs for `oldId` already; it never rejects (the delete reports its failure). */
  start(oldId: number, retire: () => Promise<RetireOutcome<ScaleSetView>>): void {
    if (this.byOldId.has(oldId)) return;
    const settled = retire().then(
      (outcome): EarlyRetirement => ({ kind: "retired", outcome }),
      (error: unknown): EarlyRetirement => ({ kind: "failed", error }),
    );
    this.byOldId.set(oldId, settled);
  }

  /** The retirement of `oldId` started in this process, taken out; undefined when none was. */
  take(oldId: number): Promise<EarlyRetirement> | undefined {
    const running = this.byOldId.get(oldId);
    this.byOldId.delete(oldId);
    return running;
  }
}

/**
 * The enabled generation that succeeds the scale set `liveName` (id `id`) among `candidates`: another hashed name with
 * the same base, read again by id, since the list may be older than the run. The newest (highest id) when several.
 */
export async function successorOf(
  client: Pick<GarmClient, "getScaleSet">,
  candidates: readonly ScaleSetView[],
  liveName: string,
  id: number,
): Promise<ScaleSetView | undefined> {
  const named = candidates.filter((s) => s.id !== id && isOtherGeneration(s.name, liveName)).sort((a, b) => b.id - a.id);
  for (const candidate of named) {
    const live = await readIfPresent(client, candidate.id);
    if (live?.enabled && live.name === candidate.name) return live;
  }
  return undefined;
}

/** The scale set, or undefined when GARM no longer has it. */
export async function readIfPresent(client: Pick<GarmClient, "getScaleSet">, id: number): Promise<ScaleSetView | undefined> {
  try {
    return await client.getScaleSet(id);
  } catch (err) {
    if (isGarmError(err, "not-found")) return undefined;
    throw err;
  }
}
