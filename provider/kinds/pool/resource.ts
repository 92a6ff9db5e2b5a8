// GarmPool's dynamic-provider methods: check reads GARM only through the planning gate; diff is pure; create, read,
// update and delete talk to GARM through the process-wide client. Delete is the shared drain (../../runners/drain/retire.ts).
import type * as pulumi from "@pulumi/pulumi";
import { configure, garmClient } from "../../common/connection";
import { runnerCreateFields } from "../../runners/create-fields";
import { type RunnerDeps, runnerDepsFor } from "../../runners/deps";
import { retireScaleSetOrPool } from "../../runners/drain/retire";
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
import { checkPoolInputs } from "./check";
import { type PoolUpdatableField, changedPoolFields, diffPool, poolUpdateBody } from "./diff";
import { poolToRetire } from "./drain";
import type { CheckedPoolInputs } from "./inputs";
import { type PoolOutputs, isSamePool, readPoolOutputs, toPoolOutputs } from "./state";

export type PoolDeps = RunnerDeps;

const defaultDeps: PoolDeps = runnerDepsFor(garmClient);

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

export function poolMethodsWith(deps: PoolDeps): Omit<pulumi.dynamic.ResourceProvider, "configure"> {
  const gate = readGate({ log: deps.log, timeoutMs: deps.readTimeoutMs ?? 5000 });

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
      // A delete that stopped part-way left GARM disabled at 0 runners while the state still holds the old values.
      const live = await gate(() => deps.client().getPool(id));
      const restore = live.ok ? fieldsToRestore(live.value, withoutProviderKey(news)) : [];
      if (restore.length > 0) {
        deps.log.info(restoreLine(`GarmPool ${id}`, restore));
        return { ...planned, changes: true };
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
      const created = await client.createPool(entity, createBody(inputs));
      deps.log.info(`GarmPool ${created.id}: created under ${entityLabel(entity)}`);
      try {
        return { id: created.id, outs: toPoolOutputs(inputs, await client.getPool(created.id), entity) };
      } catch (err) {
        // The pool exists: record it (a partial create) so Pulumi tracks it instead of orphaning it.
        throw Object.assign(new Error(`GarmPool ${created.id}: created but reading it back failed: ${(err as Error).message}`), {
          id: created.id,
          properties: { ...props, ...toPoolOutputs(inputs, created, entity) },
          reasons: [(err as Error).message],
        });
      }
    },

    async read(id, props) {
      const olds = readPoolOutputs(props ?? {});
      try {
        const view = await deps.client().getPool(id);
        if (!isSamePool(olds, view)) {
          deps.log.warn(`GarmPool ${id}: GARM's pool of that id is under ${view.entityName || "another entity"} with provider ${view.providerName}, not this one; dropping this one from the stack as gone`);
          return {};
        }
        return { id, props: { ...olds, ...toPoolOutputs(olds, view, storedEntity(olds)), __provider: props?.__provider } };
      } catch (err) {
        if (isGarmError(err, "not-found")) return {};
        throw err;
      }
    },

    async update(id, oldProps, newProps) {
      const stored = readPoolOutputs(oldProps);
      const news = inputsOf(newProps);
      const client = deps.client();
      const live = await client.getPool(id);
      // A delete that stopped part-way left GARM disabled at 0 runners; the state does not know (../../runners/drained.ts).
      const olds = isSamePool(stored, live) ? withDrainedFields(stored, live) : stored;
      const fields = changedPoolFields(olds, news as unknown as Record<string, unknown>);
      if (fields.length === 0) return { outs: dropUndefined({ ...olds, drain: news.drain, adoptPoolId: news.adoptPoolId }) };
      if (!isSamePool(stored, live)) {
        throw new Error(`GarmPool ${id}: GARM's pool of that id is not this one; nothing was changed. Run \`pulumi refresh\` to drop it, then \`pulumi up\` creates it again`);
      }
      await sendUpdate(client, live, news, fields);
      return { outs: toPoolOutputs(news, await client.getPool(id), storedEntity(stored)) };
    },

    async delete(id, props) {
      const olds = readPoolOutputs(props);
      const client = deps.client();
      const target = poolToRetire(id, (view) => isSamePool(olds, view), client);
      const events = deps.events?.(client);
      const waiter = events && changeWaiter(events, poolConcern(id), deps.waiter);
      const outcome = await retireScaleSetOrPool(target, drainOptionsFor(olds.drain), {
        log: deps.log,
        now: deps.now,
        sleep: deps.sleep,
        wait: waiter?.wait,
        cadence: waiter?.cadence,
      }).finally(() => waiter?.close());
      switch (outcome.kind) {
        case "deleted":
          // Pulumi's own row reports a plain delete; a line here closes the drain lines this delete printed.
          if (outcome.drained) deps.log.info(`${target.label}: drained and deleted from GARM`);
          break;
        case "already-gone":
          deps.log.info(`${target.label}: already gone from GARM`);
          break;
        case "not-ours":
          deps.log.warn(`${target.label}: GARM's pool of that id is not this one; treating this one as already deleted and leaving that one alone`);
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

  /** Takes over an existing pool: it must be under the entity and use the provider, which GARM cannot change. */
  async function adopt(client: GarmClient, inputs: CheckedPoolInputs, poolId: string, entity: ResolvedEntity): Promise<PoolOutputs> {
    let view: PoolView;
    try {
      view = await client.getPool(poolId);
    } catch (err) {
      if (isGarmError(err, "not-found")) throw new Error(`adoptPoolId ${poolId}: GARM has no pool of that id; remove adoptPoolId to create a new pool`);
      throw err;
    }
    if (view.entity?.id.toLowerCase() !== entity.id.toLowerCase() || view.providerName !== inputs.providerName) {
      throw new Error(
        `cannot adopt pool ${poolId}: it is under ${view.entityName || "another entity"} with provider ${view.providerName}, not ${entityLabel(entity)} ` +
          `with provider ${inputs.providerName}, and GARM cannot change either in place`,
      );
    }
    deps.log.info(`GarmPool ${poolId}: adopting the existing pool under ${entityLabel(entity)}`);
    const current = toPoolOutputs(inputs, view, entity);
    const fields = changedPoolFields(current, inputs as unknown as Record<string, unknown>);
    if (fields.length === 0) return current;
    await sendUpdate(client, view, inputs, fields);
    return toPoolOutputs(inputs, await client.getPool(poolId), entity);
  }
}

export const pool = poolProviderWith(defaultDeps);
