// How a GarmPool recognises the pool its own create made when GARM's answer was lost (../../common/lost-answer.ts).
//
// A pool has no name, and GARM v0.2.1 stores no field that round-trips without changing what the pool does
// (params/requests.go L204-225): extra_specs goes to the external provider, which may reject keys it does not know;
// runner_prefix names the runners; every tag becomes a runner label in GitHub; priority and the runner group steer
// jobs. So no marker is put in GARM. Instead, the create first takes the ids of the pools under its entity; after a
// lost answer, the stack's pool is the one pool under that entity whose id was not among them, that no other create of
// this process holds, and that GARM holds exactly as the create sent it: every field the create sent, read back as a
// read normalises it (the provider, then every field changedPoolFields compares: labels canonical, extra specs as
// JSON, the default bootstrap timeout and prefix, the system template when none was sent). GARM's pool list leaves
// out extra specs and the template's name, so the pools the list leaves in are read one by one before they are compared.
//
// The rule (settleAmong, a table in test/unit/pool/settle.test.ts): no pool left is "absent" (the create never landed:
// the create sends once more, a later `up` creates it); one is "ours"; two or more are "ambiguous", and none is taken:
// the failure names them and adoptPoolId chooses. In one process (one `pulumi up`), creates under an entity pass a
// gate (PoolCreates): a settle waits until no create of the entity is on the wire and holds new ones back while it
// looks, and every pool a create or a settle of this process took is excluded. So a sibling's pool is never taken:
// once its answer arrives it is held, and when its answer was lost too and one pool landed for the two of them, the
// first settle takes it and the other finds nothing and sends again; when both landed, both settles see two, take
// none and fail. What it cannot tell apart: another process (another stack) made a pool identical in every field
// under the same entity after this create was sent, and this create did not land or landed as well; the first is
// then taken, the second makes the settle ambiguous.
import type { GarmClient, PoolView } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { isUnconfirmedId } from "../../common/lost-answer";
import type { ResolvedEntity } from "../../runners/state";
import { changedPoolFields } from "./diff";
import type { CheckedPoolInputs } from "./inputs";
import { type PoolOutputs, toPoolOutputs } from "./state";

/** What an unconfirmed pool create keeps in state beyond its inputs. */
export interface UnconfirmedPool {
  /** The ids of the pools under the entity before the create was sent. */
  poolsBeforeCreate: string[];
}

export type PoolSettled =
  | { readonly kind: "ours"; readonly view: PoolView }
  | { readonly kind: "ambiguous"; readonly views: readonly PoolView[] }
  | { readonly kind: "absent" };

/** What the create sent: its checked inputs (or the unconfirmed outputs that keep them). */
export type SentPool = CheckedPoolInputs;

/** Fields GARM's pool list leaves out (simulator and GARM alike): compared only on a read by id. */
const NOT_IN_LISTS = new Set(["extraSpecs", "templateId"]);

const underEntity = (view: PoolView, entity: ResolvedEntity) => view.entity?.id.toLowerCase() === entity.id.toLowerCase();

/** The ids of the entity's pools now: taken before a create, to tell its pool from those that were there. */
export async function poolIdsUnder(client: Pick<GarmClient, "listPools">, entity: ResolvedEntity): Promise<string[]> {
  return (await client.listPools()).filter((p) => underEntity(p, entity)).map((p) => p.id);
}

/**
 * The fields in which GARM's pool differs from what a create of `sent` under `entity` makes, normalised as a read
 * normalises them (toPoolOutputs, then the update's own comparison); empty when the pool is what that create makes.
 * `listed`: the view is from GARM's pool list, which leaves out extra specs and the template's name.
 */
export function differsFromSent(view: PoolView, sent: SentPool, entity: ResolvedEntity, listed = false): string[] {
  const differing: string[] = [];
  if (!underEntity(view, entity)) differing.push("entity");
  if (view.providerName !== sent.providerName) differing.push("providerName");
  const held = toPoolOutputs(sent, view, entity);
  const news = sent as unknown as Record<string, unknown>;
  for (const field of changedPoolFields(held, news)) if (!(listed && NOT_IN_LISTS.has(field))) differing.push(field);
  return differing;
}

/** The settle rule on pools already read by id: which of `views` a create of `sent` can have made. */
export function settleAmong(views: readonly PoolView[], entity: ResolvedEntity, sent: SentPool, before: readonly string[], held: ReadonlySet<string> = new Set()): PoolSettled {
  const known = new Set(before);
  const candidates = views.filter((v) => !known.has(v.id) && !held.has(v.id) && differsFromSent(v, sent, entity).length === 0);
  if (candidates.length === 0) return { kind: "absent" };
  if (candidates.length > 1) return { kind: "ambiguous", views: candidates };
  return { kind: "ours", view: candidates[0]! };
}

/**
 * The pool a create of `sent` under `entity` made, if GARM has exactly one that can be it. Callers in this process go
 * through PoolCreates.settle, which passes the pools its creates hold.
 */
export async function settlePool(
  client: Pick<GarmClient, "listPools" | "getPool">,
  entity: ResolvedEntity,
  sent: SentPool,
  before: readonly string[],
  held: ReadonlySet<string> = new Set(),
): Promise<PoolSettled> {
  const known = new Set(before);
  const listed = (await client.listPools()).filter((p) => !known.has(p.id) && !held.has(p.id) && differsFromSent(p, sent, entity, true).length === 0);
  const read = await Promise.all(
    listed.map((p) =>
      client.getPool(p.id).catch((err: unknown) => {
        if (isGarmError(err, "not-found")) return undefined;
        throw err;
      }),
    ),
  );
  return settleAmong(read.filter((v): v is PoolView => v !== undefined), entity, sent, before, held);
}

/**
 * This process's pool creates under each entity: a settle runs alone (no create of the entity on the wire, none
 * started while it looks), and the pools creates and settles took are held, so no other settle takes them.
 */
export class PoolCreates {
  private readonly held = new Set<string>();
  private readonly gates = new Map<string, Gate>();

  /** Sends a create through the entity's gate; the pool it answers with is held. */
  async post(entity: ResolvedEntity, send: () => Promise<PoolView>): Promise<PoolView> {
    const view = await this.gate(entity).shared(send);
    this.held.add(view.id);
    return view;
  }

  /** Runs a settle alone under the entity; the pool it returns as ours is held. */
  async settle(entity: ResolvedEntity, look: (held: ReadonlySet<string>) => Promise<PoolSettled>): Promise<PoolSettled> {
    return this.gate(entity).exclusive(async () => {
      const found = await look(this.held);
      if (found.kind === "ours") this.held.add(found.view.id);
      return found;
    });
  }

  /** Marks a pool taken otherwise (adoptPoolId). */
  hold(id: string): void {
    this.held.add(id);
  }

  private gate(entity: ResolvedEntity): Gate {
    const key = entity.id.toLowerCase();
    let gate = this.gates.get(key);
    if (!gate) this.gates.set(key, (gate = new Gate()));
    return gate;
  }
}

/** Many creates at once, or one settle alone; a waiting settle holds new creates back. */
class Gate {
  private sharing = 0;
  private alone = false;
  private waitingAlone = 0;
  private wakers: (() => void)[] = [];

  async shared<T>(run: () => Promise<T>): Promise<T> {
    while (this.alone || this.waitingAlone > 0) await this.wait();
    this.sharing++;
    try {
      return await run();
    } finally {
      this.sharing--;
      this.wake();
    }
  }

  async exclusive<T>(run: () => Promise<T>): Promise<T> {
    this.waitingAlone++;
    try {
      while (this.alone || this.sharing > 0) await this.wait();
    } finally {
      this.waitingAlone--;
    }
    this.alone = true;
    try {
      return await run();
    } finally {
      this.alone = false;
      this.wake();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const w of wakers) w();
  }
}

/** GARM's id for a stored pool; undefined while its create is unconfirmed and no update has bound it yet. */
export function poolIdOf(id: string, outputs: Partial<PoolOutputs>): string | undefined {
  if (!isUnconfirmedId(id)) return id;
  return typeof outputs.poolId === "string" && outputs.poolId !== "" ? outputs.poolId : undefined;
}

/** The pools that keep an unconfirmed create from settling, for messages. */
export function ambiguityLine(views: readonly PoolView[]): string {
  return (
    `GARM has ${views.length} pools it may have made (${views.map((v) => v.id).join(", ")}), made after its create was sent and ` +
    "holding every field it sent, so none of them is taken"
  );
}
