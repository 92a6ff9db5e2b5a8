// GarmPool's dynamic-provider methods: check reads GARM only through the planning gate; diff is pure; create, read,
// update and delete talk to GARM through the process-wide client. Delete is the shared drain (../../runners/drain/retire.ts).
import type * as pulumi from "@pulumi/pulumi";
import { configure, garmClient, processCancel } from "../../common/connection";
import { runnerCreateFields } from "../../runners/create-fields";
import { type RunnerDeps, runnerDepsFor } from "../../runners/deps";
import { drainDepsOf, retireScaleSetOrPool } from "../../runners/drain/retire";
import { drainOptionsFor } from "../../runners/drain/override";
import type { CreatePoolParams, GarmClient, PoolView } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { changeWaiter, poolConcern } from "../../common/events-wait";
import { lookupsFor } from "../../garm/lookups";
import { logReplacements } from "../../common/replace-line";
import { fieldsToRestore, readGate, restoreLine, withDrainedFields } from "../../runners/drained";
import { entityLabel, resolveEntity } from "../../runners/entity";
import { withReferenceChecks } from "../../runners/references";
import { forgeOf, systemTemplateId } from "../../runners/templates";
import { type ResolvedEntity, dropUndefined, storedEntity } from "../../runners/state";
import { withoutProviderKey } from "../../common/unknown";
import { type KindMethods, alsoUpdating } from "../../common/planned-diff";
import { notOurs } from "../../common/holder";
import { adoptFound } from "../../common/adopt";
import { createSettlingLostAnswer, partialCreate, unconfirmedId } from "../../common/lost-answer";
import { briefly } from "../../runners/brief-error";
import { checkPoolInputs } from "./check";
import { type PoolUpdatableField, changedPoolFields, diffPool, poolUpdateBody } from "./diff";
import { poolToRetire } from "./drain";
import type { CheckedPoolInputs } from "./inputs";
import { type PoolOutputs, describePoolHolder, isSamePool, poolLabel, readPoolOutputs, toPoolOutputs, unconfirmedPoolOutputs } from "./state";
import { PoolCreates, type PoolSettled, type SentPool, type UnconfirmedPool, ambiguityLine, poolIdOf, poolIdsUnder, settlePool } from "./unconfirmed";

/** An unconfirmed create's id names no GARM object; one stack's pools are told apart by their Pulumi names. */
const POOL_KEY = "pool";

const unconfirmedOf = (olds: PoolOutputs): UnconfirmedPool => ({ poolsBeforeCreate: (olds as Partial<UnconfirmedPool>).poolsBeforeCreate ?? [] });

export type PoolDeps = RunnerDeps;

const defaultDeps: PoolDeps = runnerDepsFor(garmClient, processCancel);

const inputsOf = (props: Record<string, unknown>) => withoutProviderKey(props) as unknown as CheckedPoolInputs;

/**
 * The create body. The bootstrap timeout is always sent: GARM stores 0 when it is omitted (runner/organizations.go
 * L213-220) and only its GET by id and the pool manager read 0 as 20 (apiserver/controllers/pools.go L89, params.go L580-585).
 */
function createBody(inputs: CheckedPoolInputs): CreatePoolParams {
  const body = { ...runnerCreateFields(inputs), runner_bootstrap_timeout: inputs.runnerBootstrapTimeout ?? 20, priority: inputs.priority };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as CreatePoolParams;
}

export function poolProviderWith(deps: PoolDeps): pulumi.dynamic.ResourceProvider {
  return { configure, ...poolMethodsWith(deps) };
}

/** A lost create answer's look-up found several pools it may have made: none is taken. */
class AmbiguousPools extends Error {
  constructor(readonly views: readonly PoolView[]) {
    super(ambiguityLine(views));
  }
}

export function poolMethodsWith(deps: PoolDeps): KindMethods {
  const gate = readGate({ log: deps.log, timeoutMs: deps.readTimeoutMs ?? 5000 });
  // This process's creates and settles (unconfirmed.ts): a settle never takes a pool another of them made or took.
  const creates = new PoolCreates();
  const settle = (client: GarmClient, entity: ResolvedEntity, sent: SentPool, before: readonly string[]): Promise<PoolSettled> =>
    creates.settle(entity, (held) => settlePool(client, entity, sent, before, held));

  return {
    async check(olds, news) {
      return withReferenceChecks(checkPoolInputs(news), olds, news, { client: deps.client, gate });
    },

    async diff(id, olds, news) {
      const stored = readPoolOutputs(olds);
      const planned = diffPool(stored, news);
      if (planned.replaces?.length) {
        const replacements = planned.replaces.map((field) => ({ field, why: "cannot change in GARM" }));
        logReplacements(deps.log, `GarmPool ${id}`, replacements, "the new pool comes up before this one is drained");
        return planned;
      }
      const poolId = poolIdOf(id, stored);
      if (poolId === undefined) return planned;
      // A delete that stopped part-way left GARM disabled at 0 runners while the state still holds the old values.
      const live = await gate(() => deps.client().getPool(poolId));
      const restore = live.ok ? fieldsToRestore(live.value, withoutProviderKey(news)) : [];
      if (restore.length > 0) {
        deps.log.info(restoreLine(`GarmPool ${id}`, restore));
        return alsoUpdating(planned, stored, withoutProviderKey(news), restore);
      }
      return planned;
    },

    async create(props) {
      const inputs = inputsOf(props);
      const client = deps.client();
      const [entity, providers] = await Promise.all([resolveEntity(client, inputs), lookupsFor(client).providersIncluding(inputs.providerName)]);
      if (!providers.some((p) => p.name === inputs.providerName)) {
        const known = providers.map((p) => p.name).join(", ") || "none";
        throw new Error(
          `providerName ${JSON.stringify(inputs.providerName)} is not a provider GARM has loaded (it has: ${known}); ` +
            "add it to GARM's config (a GarmProvider resource does this) and restart GARM",
        );
      }
      if (inputs.adoptPoolId) {
        const outs = await adopt(client, inputs, inputs.adoptPoolId, entity);
        return { id: outs.poolId, outs };
      }
      const created = await postPool(client, inputs, entity, props);
      try {
        return { id: created.id, outs: toPoolOutputs(inputs, await client.getPool(created.id), entity) };
      } catch (err) {
        // The pool exists: record it (a partial create) so Pulumi tracks it instead of orphaning it.
        throw partialCreate(`GarmPool ${created.id}: created but reading it back failed: ${(err as Error).message}`, created.id, {
          ...props,
          ...toPoolOutputs(inputs, created, entity),
        }, (err as Error).message);
      }
    },

    async read(id, props) {
      const olds = readPoolOutputs(props ?? {});
      const client = deps.client();
      let poolId = poolIdOf(id, olds);
      if (poolId === undefined) {
        // An unconfirmed create (unconfirmed.ts) stays in state only if GARM has the pool it made.
        const found = await settle(client, storedEntity(olds), olds, unconfirmedOf(olds).poolsBeforeCreate);
        if (found.kind === "absent") return {};
        if (found.kind === "ambiguous") {
          deps.log.warn(`${poolLabel(olds)}: its create was never confirmed and ${ambiguityLine(found.views)}; keeping it as it is until \`pulumi up\` with adoptPoolId settles it`);
          return { id, props: { ...olds, __provider: props?.__provider } };
        }
        poolId = found.view.id;
      }
      try {
        const view = await client.getPool(poolId);
        if (!isSamePool(olds, view)) {
          deps.log.warn(notOurs.dropped(`GarmPool ${poolId}`, describePoolHolder(view)));
          return {};
        }
        const { poolsBeforeCreate: _settled, ...kept } = olds as PoolOutputs & Partial<UnconfirmedPool>;
        // GARM's id becomes the resource id again where an unconfirmed create had left its marker.
        return { id: view.id, props: { ...kept, ...toPoolOutputs(olds, view, storedEntity(olds)), __provider: props?.__provider } };
      } catch (err) {
        if (isGarmError(err, "not-found")) return {};
        throw err;
      }
    },

    async update(id, oldProps, newProps) {
      const stored = readPoolOutputs(oldProps);
      const poolId = poolIdOf(id, stored);
      if (poolId === undefined) return { outs: await settleCreate(stored, newProps) };
      const news = inputsOf(newProps);
      const client = deps.client();
      const live = await client.getPool(poolId);
      // A delete that stopped part-way left GARM disabled at 0 runners; the state does not know (../../runners/drained.ts).
      const olds = isSamePool(stored, live) ? withDrainedFields(stored, live) : stored;
      const fields = changedPoolFields(olds, news as unknown as Record<string, unknown>);
      if (fields.length === 0) return { outs: dropUndefined({ ...olds, drain: news.drain, adoptPoolId: news.adoptPoolId }) };
      if (!isSamePool(stored, live)) throw new Error(notOurs.refused(`GarmPool ${poolId}`, describePoolHolder(live)));
      await sendUpdate(client, live, news, fields);
      return { outs: toPoolOutputs(news, await client.getPool(poolId), storedEntity(stored)) };
    },

    async delete(id, props) {
      const olds = readPoolOutputs(props);
      const client = deps.client();
      let poolId = poolIdOf(id, olds);
      if (poolId === undefined) {
        const found = await settle(client, storedEntity(olds), olds, unconfirmedOf(olds).poolsBeforeCreate);
        if (found.kind === "absent") {
          deps.log.info(`${poolLabel(olds)}: its create was never confirmed and GARM has no pool it made; nothing to delete`);
          return;
        }
        if (found.kind === "ambiguous") {
          throw new Error(
            `${poolLabel(olds)}: not deleted: its create was never confirmed and ${ambiguityLine(found.views)}, so which one is this stack's ` +
              "is unknown; run `pulumi up` with adoptPoolId set to this stack's pool, then destroy again, or `pulumi state delete` this resource",
          );
        }
        poolId = found.view.id;
      }
      const target = poolToRetire(poolId, (view) => isSamePool(olds, view), client);
      const events = deps.events?.(client);
      const waiter = events && changeWaiter(events, poolConcern(poolId), { ...deps.waiter, cancel: deps.cancel });
      const outcome = await retireScaleSetOrPool(target, drainOptionsFor(olds.drain), drainDepsOf(deps, waiter)).finally(() => waiter?.close());
      switch (outcome.kind) {
        case "deleted":
          // Pulumi's own row reports a plain delete; a line here closes the drain lines this delete printed.
          if (outcome.drained) deps.log.info(`${target.label}: drained and deleted from GARM`);
          break;
        case "already-gone":
          deps.log.info(`${target.label}: already gone from GARM`);
          break;
        case "not-ours":
          deps.log.warn(notOurs.leftAlone(target.label, describePoolHolder(outcome.holder)));
          break;
      }
    },
  };

  /** PUTs the changed fields; an omitted templateId sends GARM's system template for osType on the pool's forge. */
  async function sendUpdate(client: GarmClient, live: PoolView, news: CheckedPoolInputs, fields: PoolUpdatableField[]): Promise<void> {
    const omitted = fields.includes("templateId") && news.templateId === undefined;
    const systemTemplate = omitted ? await systemTemplateId(client, forgeOf(live.forgeType), news.osType) : undefined;
    await client.updatePool(live.id, poolUpdateBody(news, fields, systemTemplate));
  }

  /**
   * POSTs the pool. A POST whose answer is lost is looked for among the entity's pools made since (unconfirmed.ts)
   * before it is sent again; when that look-up fails too, it throws a partial create with an unconfirmed id, which
   * update, read and delete settle later.
   */
  async function postPool(client: GarmClient, inputs: CheckedPoolInputs, entity: ResolvedEntity, props: Record<string, unknown>): Promise<PoolView> {
    const before = await poolIdsUnder(client, entity);
    const label = `GarmPool (under ${entityLabel(entity)})`;
    const outcome = await createSettlingLostAnswer(
      {
        label,
        post: () => creates.post(entity, () => client.createPool(entity, createBody(inputs))),
        async landed() {
          const found = await settle(client, entity, inputs, before);
          if (found.kind === "ambiguous") throw new AmbiguousPools(found.views);
          if (found.kind === "absent") deps.log.warn(`${label}: GARM's answer to the create was lost and GARM has no pool it made: the create did not land, so it is sent once more`);
          return found.kind === "ours" ? found.view : undefined;
        },
        describe: (found) => `id ${found.id}`,
        resend: true,
        unsettled(failure, confirming) {
          const unconfirmed: UnconfirmedPool = { poolsBeforeCreate: before };
          const recorded = { ...props, ...unconfirmedPoolOutputs(inputs, entity), ...unconfirmed };
          if (failure.lookup instanceof AmbiguousPools) {
            const message =
              `${label}: the connection to GARM broke after the create request was sent, and ${failure.lookup.message}: ` +
              "another create (of this stack or another) sent the same fields, and which pool is this one's cannot be told. " +
              `Pulumi records it as ${unconfirmedId(POOL_KEY)}, so no \`pulumi up\` creates it again: set adoptPoolId to the one this ` +
              "resource should manage (no two resources the same one) and run `pulumi up`, or delete the extra pool in GARM";
            return partialCreate(message, unconfirmedId(POOL_KEY), recorded);
          }
          const message =
            `${label}: the connection to GARM broke after the create request was sent, so GARM may or may not have created the pool, ` +
            `and ${confirming} (${briefly(failure.lookup ?? failure.create)}). Pulumi records it as ${unconfirmedId(POOL_KEY)}: the next ` +
            "`pulumi up` looks for the pool this create made and uses it, or creates it if it is absent; `pulumi destroy` deletes it if this create made it";
          return partialCreate(message, unconfirmedId(POOL_KEY), recorded);
        },
      },
      deps.log,
    );
    if (!outcome.found) deps.log.info(`GarmPool ${outcome.view.id}: created under ${entityLabel(entity)}`);
    return outcome.view;
  }

  /**
   * Settles an unconfirmed create (unconfirmed.ts) on the next `up`: binds the pool it made, creates it when it is
   * absent, and takes the pool adoptPoolId names when several could be it.
   */
  async function settleCreate(olds: PoolOutputs, newProps: Record<string, unknown>): Promise<PoolOutputs> {
    const inputs = inputsOf(newProps);
    const client = deps.client();
    const entity = storedEntity(olds);
    if (inputs.adoptPoolId) return adopt(client, inputs, inputs.adoptPoolId, entity);
    const found = await settle(client, entity, olds, unconfirmedOf(olds).poolsBeforeCreate);
    if (found.kind === "ambiguous") {
      throw new Error(
        `${poolLabel(olds)}: nothing was changed: its create was never confirmed and ${ambiguityLine(found.views)}; set adoptPoolId to ` +
          "the one this stack made (the others belong to someone else), then run `pulumi up` again",
      );
    }
    if (found.kind === "ours") {
      const flow = {
        announce: () => ({ line: `GarmPool ${found.view.id}: GARM has the pool the earlier create made under ${entityLabel(entity)}; this resource manages it from now on` }),
        bringToInputs: (view: PoolView) => bringToInputs(client, inputs, view, entity),
      };
      return (await adoptFound(flow, found.view, deps.log)).outs;
    }
    deps.log.info(`${poolLabel(olds)}: the earlier create never reached GARM; creating it now`);
    const created = await postPool(client, inputs, entity, newProps);
    return toPoolOutputs(inputs, await client.getPool(created.id), entity);
  }

  /** Takes over an existing pool: it must be under the entity and use the provider, which GARM cannot change. */
  async function adopt(client: GarmClient, inputs: CheckedPoolInputs, poolId: string, entity: ResolvedEntity): Promise<PoolOutputs> {
    let view: PoolView;
    try {
      view = await client.getPool(poolId);
    } catch (err) {
      if (isGarmError(err, "not-found")) throw new Error(`adoptPoolId ${poolId}: GARM has no pool of that id; remove adoptPoolId to create a new pool`);
      throw err;
    }
    creates.hold(view.id);
    const flow = {
      refusal: (found: PoolView) =>
        found.entity?.id.toLowerCase() !== entity.id.toLowerCase() || found.providerName !== inputs.providerName
          ? `cannot adopt pool ${poolId}: it is under ${found.entityName || "another entity"} with provider ${found.providerName}, not ${entityLabel(entity)} ` +
            `with provider ${inputs.providerName}, and GARM cannot change either in place`
          : undefined,
      announce: () => ({ line: `GarmPool ${poolId}: adopting the existing pool under ${entityLabel(entity)}` }),
      bringToInputs: (found: PoolView) => bringToInputs(client, inputs, found, entity),
    };
    return (await adoptFound(flow, view, deps.log)).outs;
  }

  /** PUTs the fields in which GARM's pool differs from the inputs. */
  async function bringToInputs(client: GarmClient, inputs: CheckedPoolInputs, view: PoolView, entity: ResolvedEntity): Promise<PoolOutputs> {
    const current = toPoolOutputs(inputs, view, entity);
    const fields = changedPoolFields(current, inputs as unknown as Record<string, unknown>);
    if (fields.length === 0) return current;
    await sendUpdate(client, view, inputs, fields);
    return toPoolOutputs(inputs, await client.getPool(view.id), entity);
  }
}

export const pool = poolProviderWith(defaultDeps);
