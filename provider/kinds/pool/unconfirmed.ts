// How a GarmPool recognises the pool its own create made when GARM's answer was lost (../../common/lost-answer.ts).
//
// A pool has no name, and GARM v0.2.1 stores no field that round-trips without changing what the pool does
// (params/requests.go L204-225): extra_specs goes to the external provider, which may reject keys it does not know;
// runner_prefix names the runners; every tag becomes a runner label in GitHub; priority and the runner group steer
// jobs. So no marker is put in GARM. Instead, the create first takes the ids of the pools under its entity; after a
// lost answer, the stack's pool is the one pool under that entity whose id was not among them and that matches what the
// create sent in every field GARM's pool list answers and keeps as sent: provider, image, flavor, OS type and arch,
// and labels (canonical: GARM folds case and orders tags its own way).
//
// Why it cannot take another's pool: a pool that existed before the create is excluded by id, and pool ids are UUIDs
// that GARM never hands out twice; a pool made by someone else afterwards would have to match every one of those
// fields, and when two new pools match, none is taken (the message lists them, and adoptPoolId chooses). What it
// cannot tell apart: this create did not land and, before the look-up, someone else made a single identical pool
// under the same entity; that pool is then taken, as the only pool those inputs describe.
import type { GarmClient, PoolView } from "../../garm/client";
import { canonicalLabels } from "../../runners/naming";
import { isUnconfirmedId } from "../../common/lost-answer";
import type { ResolvedEntity } from "../../runners/state";
import type { CheckedPoolInputs } from "./inputs";
import type { PoolOutputs } from "./state";

/** What an unconfirmed pool create keeps in state beyond its inputs. */
export interface UnconfirmedPool {
  /** The ids of the pools under the entity before the create was sent. */
  poolsBeforeCreate: string[];
}

export type PoolSettled =
  | { readonly kind: "ours"; readonly view: PoolView }
  | { readonly kind: "ambiguous"; readonly views: readonly PoolView[] }
  | { readonly kind: "absent" };

type SentSpec = Pick<CheckedPoolInputs, "providerName" | "image" | "flavor" | "osType" | "osArch" | "labels">;

const underEntity = (view: PoolView, entity: ResolvedEntity) => view.entity?.id.toLowerCase() === entity.id.toLowerCase();

/** The ids of the entity's pools now: taken before a create, to tell its pool from those that were there. */
export async function poolIdsUnder(client: Pick<GarmClient, "listPools">, entity: ResolvedEntity): Promise<string[]> {
  return (await client.listPools()).filter((p) => underEntity(p, entity)).map((p) => p.id);
}

/** Whether GARM's pool is what a create of `sent` makes (the fields the list answers as they were sent). */
export function madeFrom(view: PoolView, sent: SentSpec): boolean {
  return (
    view.providerName === sent.providerName &&
    view.image === sent.image &&
    view.flavor === sent.flavor &&
    (view.osType || sent.osType) === sent.osType &&
    (view.osArch || sent.osArch) === sent.osArch &&
    canonicalLabels(view.labels).join("\n") === canonicalLabels(sent.labels).join("\n")
  );
}

/** The pool a create of `sent` under `entity` made, if GARM has exactly one that can be it. */
export async function settlePool(
  client: Pick<GarmClient, "listPools">,
  entity: ResolvedEntity,
  sent: SentSpec,
  before: readonly string[],
): Promise<PoolSettled> {
  const known = new Set(before);
  const candidates = (await client.listPools()).filter((p) => underEntity(p, entity) && !known.has(p.id) && madeFrom(p, sent));
  if (candidates.length === 0) return { kind: "absent" };
  if (candidates.length > 1) return { kind: "ambiguous", views: candidates };
  return { kind: "ours", view: candidates[0]! };
}

/** GARM's id for a stored pool; undefined while its create is unconfirmed and no update has bound it yet. */
export function poolIdOf(id: string, outputs: Partial<PoolOutputs>): string | undefined {
  if (!isUnconfirmedId(id)) return id;
  return typeof outputs.poolId === "string" && outputs.poolId !== "" ? outputs.poolId : undefined;
}

/** The pools that keep an unconfirmed create from settling, for messages. */
export function ambiguityLine(views: readonly PoolView[]): string {
  return `GARM has ${views.length} pools it may have made (${views.map((v) => v.id).join(", ")}), made after its create was sent and matching it`;
}
