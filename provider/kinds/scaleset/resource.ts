// GarmScaleSet's dynamic-provider methods: check and diff are pure; create, read, update and delete talk to GARM
// through the process-wide client.
import type * as pulumi from "@pulumi/pulumi";
import { isDeepStrictEqual } from "node:util";
import { configure, garmClient, processCancel } from "../../common/connection";
import { GARM_IDENTITY_OUTPUT, garmIdentityOf } from "../../common/garm-identity";
import type { CreateScaleSetParams, GarmClient, ScaleSetView } from "../../garm/client";
import { perClient } from "../../garm/per-client";
import { isGarmError } from "../../garm/errors";
import { isCancelled } from "../../common/cancel";
import { type ChangeWaiter, changeWaiter, scaleSetConcern } from "../../common/events-wait";
import { declarationsFor, lookupsFor } from "../../garm/lookups";
import { logReplacements } from "../../common/replace-line";
import { type KindMethods, alsoUpdating } from "../../common/planned-diff";
import { withoutProviderKey } from "../../common/unknown";
import { createSettlingLostAnswer, partialCreate } from "../../common/lost-answer";
import { notOurs } from "../../common/holder";
import { adoptByName, adoptFound } from "../../common/adopt";
import { briefly } from "../../runners/brief-error";
import { checkScaleSetInputs } from "./check";
import { UPDATABLE, type UpdatableField, changedFields, diffScaleSet, renameBack, updateBody } from "./diff";
import { DrainError, retireScaleSet } from "./drain";
import { drainDepsOf } from "../../runners/drain/retire";
import { drainOptionsFor } from "../../runners/drain/override";
import type { DrainOptions } from "../../runners/drain/options";
import { replaceReasons, updateChanges } from "./change-line";
import { fieldsToRestore, isDrained, liveReader, readGate, restoreLine, withDrainedFields } from "../../runners/drained";
import { makerOf, makerPhrase } from "./provenance";
import { withReferenceChecks } from "../../runners/references";
import { entityLabel, resolveEntity } from "../../runners/entity";
import { runnerCreateFields } from "../../runners/create-fields";
import { type RunnerDeps, runnerDepsFor } from "../../runners/deps";
import type { CheckedInputs } from "./inputs";
import { canonicalLabels, liveName } from "../../runners/naming";
import { type ReadinessDeps, waitForRunners } from "./readiness";
import { type PlannedReplacement, PlannedReplacements, refusedReplacement, replacementBlockers } from "./replacement";
import { EarlyRetirements, readIfPresent, successorOf } from "./succession";
import { createOptions } from "../../common/option-inputs";
import { forgeOf, systemTemplateId } from "../../runners/templates";
import { type ResolvedEntity, storedEntity } from "../../runners/state";
import { type ScaleSetOutputs, describeHolder, isSameScaleSet, readOutputs, toOutputs } from "./state";
import { garmIdOf, settle, unconfirmedId, unconfirmedOutputs } from "./unconfirmed";

/** Collaborators, replaceable in tests. */
export type ScaleSetDeps = RunnerDeps;

const defaultDeps: ScaleSetDeps = runnerDepsFor(garmClient, processCancel);

function inputsOf(props: Record<string, unknown>): CheckedInputs {
  return withoutProviderKey(props) as unknown as CheckedInputs;
}

/**
 * The POST body. GARM's create refuses max_runners 0 (params/requests.go L638, §4.4) where its update accepts it
 * (§4.1), so a scale set asked for at 0 is created disabled at 1, where GARM makes no runner (§7.6), and create then
 * sets it to 0 (parkAfterCreate).
 */
function createBody(inputs: CheckedInputs, name: string): CreateScaleSetParams {
  const asCreated = inputs.maxRunners === 0 ? { ...inputs, maxRunners: 1, minIdleRunners: 0, enabled: false } : inputs;
  const { tags, ...shared } = runnerCreateFields(asCreated);
  return { name, ...shared, labels: tags } as CreateScaleSetParams;
}

/** Said at preview for a create at maxRunners 0: how it is made, since GARM's create cannot take 0 itself. */
export function parkedCreateLine(label: string): string {
  return (
    `${label}: maxRunners 0: GARM refuses max_runners 0 on create (it accepts it on update), so creating it makes it ` +
    "disabled at maxRunners 1, where GARM starts no runner, and then sets maxRunners 0 in the same step (an import creates nothing)"
  );
}

/** Brings a scale set created at 1 for a program that asks for 0 to 0 (createBody). */
async function parkAfterCreate(client: GarmClient, inputs: CheckedInputs, id: number): Promise<void> {
  if (inputs.maxRunners !== 0) return;
  await client.updateScaleSet(id, { max_runners: 0, min_idle_runners: 0, enabled: inputs.enabled });
}

async function findByName(client: GarmClient, entity: ResolvedEntity, name: string): Promise<ScaleSetView | undefined> {
  const all = await client.listEntityScaleSets(entity);
  return all.find((s) => s.name === name);
}

/** Builds the scale-set provider over its collaborators; configure reads the stack config into the process's connection. */
export function scaleSetProviderWith(deps: ScaleSetDeps): pulumi.dynamic.ResourceProvider {
  return { configure, ...scaleSetMethodsWith(deps) };
}

/** The scale-set methods without configure, for a caller that owns its connection (the resource plugin). */
export function scaleSetMethodsWith(deps: ScaleSetDeps): KindMethods {
  /** Reads back by id; list answers lack the instances and the template name (§2.1). */
  const readBack = async (client: GarmClient, inputs: CheckedInputs, id: number, entity: ResolvedEntity) =>
    toOutputs(inputs, await client.getScaleSet(id), entity);
  // One gate for every read planning makes of GARM (check's references, diff's drained fields): one warning at most.
  const gate = readGate({ log: deps.log, timeoutMs: deps.readTimeoutMs ?? 5000 });
  const readLive = liveReader({ client: deps.client, log: deps.log, timeoutMs: deps.readTimeoutMs ?? 5000, gate });
  // Replacements diff planned in this process, for delete to check a delete-first one again (replacement.ts), and for
  // create to retire the generation a create-first one replaces (succession.ts). Kept per GARM client: one dynamic
  // provider process serves the resources of every GARM a program names, and GARM ids repeat from one GARM to another.
  const replacementsIn = perClient((_client: GarmClient) => new PlannedReplacements<ScaleSetOutputs>());
  const retirementsIn = perClient((_client: GarmClient) => new EarlyRetirements());

  return {
    async check(olds, news) {
      const checked = await withReferenceChecks(checkScaleSetInputs(news), olds, news, { client: deps.client, gate });
      const creating = olds === undefined || Object.keys(withoutProviderKey(olds)).length === 0;
      if (creating && checked.failures.length === 0 && checked.inputs.maxRunners === 0) {
        deps.log.info(parkedCreateLine(`GarmScaleSet ${String(checked.inputs.name)}`));
      }
      return checked;
    },

    async diff(id, olds, news) {
      const stored = readOutputs(olds);
      const planned = diffScaleSet(stored, news);
      const garmId = garmIdOf(id, stored);
      const label = `GarmScaleSet ${stored.liveName} (id ${garmId ?? id})`;
      if (planned.replaces?.length) {
        logReplacements(deps.log, label, replaceReasons(stored, withoutProviderKey(news), planned.replaces));
        if (news.maxRunners === 0) deps.log.info(parkedCreateLine(`${label}: its replacement`));
        if (garmId !== undefined) {
          // No client (a setting is wrong, said by the operations that need GARM): no create or delete to remember it for.
          const client = clientIfSet();
          if (client) replacementsIn(client).record(garmId, news, stored);
          if (planned.deleteBeforeReplace) await refuseDoomedReplacement(label, garmId, stored, news);
        }
        return planned;
      }
      if (garmId === undefined) return planned;
      // A delete that stopped part-way left GARM disabled at 0 runners while the state still holds the old values; a
      // state that records it disabled at 0 (parked, as import reads it) is no stopped delete.
      const live = await readLive(garmId);
      if (live.kind === "gone") {
        deps.log.warn(
          `GarmScaleSet ${stored.liveName} (id ${garmId}): GARM no longer has it; run \`pulumi refresh\` to drop it from Pulumi's ` +
            "state, after which `pulumi up` creates it again",
        );
      }
      const restore = live.kind === "found" ? fieldsToRestore(live.view, withoutProviderKey(news), stored) : [];
      if (live.kind === "found" && restore.length > 0) {
        deps.log.info(restoreLine(`GarmScaleSet ${live.view.name} (id ${garmId})`, restore, stored));
        return alsoUpdating(planned, stored, withoutProviderKey(news), restore);
      }
      // The dynamic provider cannot mark fields for the engine (pulumi-behaviour.md §1.2): name them, old → new, here.
      const sent = (Object.keys(planned.fields) as UpdatableField[]).filter((f) => f in UPDATABLE);
      const rename = renameBack(stored, withoutProviderKey(news));
      const renaming = rename === undefined ? [] : [`name ${stored.liveName} → ${rename} (renamed in GARM outside Pulumi; renamed back)`];
      const changes = [...renaming, ...updateChanges(stored, withoutProviderKey(news), sent)];
      if (changes.length > 0) deps.log.info(`${label}: will update ${changes.join(", ")}`);
      return planned;
    },

    async create(props) {
      const inputs = inputsOf(props);
      const client = deps.client();
      const replaced = replacementsIn(client).created(props);
      // GARM does not check the provider exists and would create a scale set that can never run or drain (§4.4, §9.3).
      const [entity, providers] = await Promise.all([
        resolveEntity(client, inputs),
        lookupsFor(client).providersIncluding(inputs.providerName),
      ]);
      const name = liveName(inputs.name, inputs.labels, inputs.providerName, inputs.naming);
      const where = entityLabel(entity);
      if (!providers.some((p) => p.name === inputs.providerName)) {
        const known = providers.map((p) => p.name).join(", ") || "none";
        throw new Error(
          `providerName ${JSON.stringify(inputs.providerName)} is not a provider GARM has loaded (it has: ${known}); ` +
            "add it to GARM's config (a GarmProvider resource does this) and restart GARM",
        );
      }

      if (inputs.adoptExisting) {
        const adopted = await adoptByName(
          {
            find: () => findByName(client, entity, name),
            announce: (existing) =>
              makerOf(existing) === "pulumi-garm"
                ? {
                    warn: true,
                    line:
                      `GarmScaleSet ${name}: adopting the existing scale set ${existing.id} under ${where}, which a pulumi-garm stack made and this ` +
                      "stack has no record of: if another stack still manages it, both now do and either stack's `pulumi destroy` deletes it; " +
                      "hand it over by removing it from that stack (`pulumi state delete <urn>` there)",
                  }
                : { line: `GarmScaleSet ${name}: adopting the existing scale set ${existing.id} under ${where}` },
            bringToInputs: (existing) => updateToMatch(client, inputs, existing, entity),
          },
          deps.log,
        );
        if (adopted) return { id: String(adopted.found.id), outs: adopted.outs };
      }

      const created = await postScaleSet(client, inputs, entity, name, props);
      try {
        await parkAfterCreate(client, inputs, created.id);
        const outs = await readBack(client, inputs, created.id, entity);
        // A retained old generation is never deleted by the engine, so it is not retired here either.
        if (!createOptions().retainOnDelete) retireWhenSucceeded(client, inputs, outs, replaced);
        return { id: String(created.id), outs };
      } catch (err) {
        // The scale set exists: record it (a partial create) so Pulumi tracks it instead of orphaning it.
        const what = isCancelled(err)
          ? "; cancelled before it was read back, so the previous generation is not retired yet: the next `pulumi up` finishes this replacement"
          : ` but reading it back failed: ${(err as Error).message}`;
        throw partialCreate(`GarmScaleSet ${name}: created as GARM id ${created.id}${what}`, String(created.id), {
          ...props,
          ...toOutputs(inputs, created, entity),
        }, (err as Error).message);
      }
    },

    async read(id, props) {
      const olds = readOutputs(props ?? {});
      const client = deps.client();
      let garmId = garmIdOf(id, olds);
      if (garmId === undefined) {
        // An unconfirmed create (unconfirmed.ts) stays in state only if GARM has the scale set it made.
        const found = await settle(client, olds);
        if (found.kind !== "ours") return {};
        garmId = found.view.id;
      }
      try {
        const view = await client.getScaleSet(garmId);
        if (!isSameScaleSet(olds, view, await inRecordedGarm(client, olds))) {
          deps.log.warn(notOurs.dropped(`GarmScaleSet ${olds.liveName} (id ${garmId})`, describeHolder(view)));
          return {};
        }
        const { nameHeldBeforeCreate: _settled, ...kept } = olds as ScaleSetOutputs & { nameHeldBeforeCreate?: boolean };
        // GARM's id becomes the resource id again where an unconfirmed create had left its marker.
        return { id: String(view.id), props: { ...kept, ...toOutputs(olds, view, storedEntity(olds)), __provider: props?.__provider } };
      } catch (err) {
        // Gone from GARM: an empty id makes Pulumi drop it from state (pulumi-behaviour.md §2.5).
        if (isGarmError(err, "not-found")) return {};
        throw err;
      }
    },

    async update(id, oldProps, newProps) {
      const stored = readOutputs(oldProps);
      const garmId = garmIdOf(id, stored);
      if (garmId === undefined) return { outs: await settleCreate(id, stored, newProps) };
      const news = inputsOf(newProps);
      const client = deps.client();
      const live = await client.getScaleSet(garmId);
      const sameGarm = await inRecordedGarm(client, stored);
      // A delete that stopped part-way left GARM disabled at 0 runners; the state does not know (drained.ts).
      const ours = isSameScaleSet(stored, live, sameGarm);
      const olds = ours ? withDrainedFields(stored, live) : stored;
      const fields = changedFields(olds, news);
      // Renamed in GARM behind Pulumi's back (read kept it, state.ts isRenamedBehindPulumi): the update names it back.
      const rename = ours ? renameBack({ liveName: live.name }, news as unknown as Record<string, unknown>) : undefined;
      if (fields.length === 0 && rename === undefined) {
        // Only provider-side options (drain, adoptExisting) changed: nothing to tell GARM.
        return { outs: { ...olds, drain: news.drain, adoptExisting: news.adoptExisting } };
      }
      refuseIfNotOurs(olds, live, sameGarm);
      await sendUpdate(client, live, news, fields, rename);
      return { outs: await readBack(client, news, garmId, storedEntity(olds)) };
    },

    async delete(id, props) {
      const olds = readOutputs(props);
      const client = deps.client();
      let garmId = garmIdOf(id, olds);
      if (garmId === undefined) {
        const found = await settle(client, olds);
        if (found.kind !== "ours") {
          const held = found.kind === "foreign" ? `the scale set of that name (id ${found.view.id}) is not one it made, so it is left alone` : "GARM has no scale set of that name";
          deps.log.info(`GarmScaleSet ${olds.liveName}: its create was never confirmed and ${held}; nothing to delete`);
          return;
        }
        garmId = found.view.id;
      }
      // A delete-first replacement's create must be able to succeed before the old scale set is touched (replacement.ts).
      const replacing = replacementsIn(client).take(garmId);
      if (replacing) {
        const reasons = await replacementBlockers(client, replacing, { id: garmId, liveName: olds.liveName, forgeType: olds.forgeType });
        if (reasons.length > 0) throw refusedReplacement(`GarmScaleSet ${olds.liveName} (id ${garmId})`, reasons, "delete");
      }
      // A create-first replacement's create started retiring this generation once its successor was ready: wait for it.
      const early = await retirementsIn(client).take(garmId);
      if (early?.kind === "failed" && (isCancelled(early.error) || early.error instanceof DrainError)) throw early.error;
      let outcome;
      if (early?.kind === "retired") outcome = early.outcome;
      else {
        // None ran in this process (a pending delete retried by a later run, or a destroy): the successor, if any, first.
        await awaitSuccessorOf(client, olds, garmId);
        outcome = await retireOld(client, garmId, olds);
      }
      const label = `GarmScaleSet ${olds.liveName ?? olds.name} (id ${garmId})`;
      switch (outcome.kind) {
        case "deleted":
          // Pulumi's own row reports a plain delete; a line here closes the drain lines this delete printed.
          if (outcome.drained) deps.log.info(`${label}: drained and deleted from GARM`);
          break;
        case "already-gone":
          deps.log.info(`${label}: already gone from GARM`);
          break;
        case "not-ours":
          deps.log.warn(notOurs.leftAlone(label, describeHolder(outcome.holder)));
          break;
      }
    },
  };

  /**
   * POSTs the scale set. A POST whose answer is lost is looked up by name before it is sent again; when that lookup
   * fails too, it throws a partial create with an unconfirmed id, which update, read and delete settle later.
   */
  async function postScaleSet(
    client: GarmClient,
    inputs: CheckedInputs,
    entity: ResolvedEntity,
    name: string,
    props: Record<string, unknown>,
  ): Promise<ScaleSetView> {
    const where = entityLabel(entity);
    const holder = await holderBefore(client, entity, name);
    // Refuse before the POST: GitHub would refuse it too (§8), but only after GARM called it.
    if (holder) throw isDrained(holder) ? nameHeldByRetiring(name, where, holder.id) : alreadyExists(name, where, holder, true);
    // From here on the name was free at the start of the run, so a scale set found under it later is this create's,
    // unless another run took the name in between (GitHub then refuses this create, handled below).
    const heldBefore = false;
    const outcome = await createSettlingLostAnswer(
      {
        label: `GarmScaleSet ${name}`,
        post: () => client.createScaleSet(entity, createBody(inputs, name)),
        landed: () => findByName(client, entity, name),
        describe: (found) => `id ${found.id}`,
        resend: true,
        async refused(err) {
          // GitHub refuses a second scale set with this name in the runner group (§8); say which one holds it.
          if (!isGarmError(err, "bad-request") && !isGarmError(err, "conflict")) return undefined;
          const holder = await findByName(client, entity, name).catch(() => undefined);
          if (!holder) return undefined;
          return isDrained(holder) ? nameHeldByRetiring(name, where, holder.id) : alreadyExists(name, where, holder, false);
        },
        unsettled: (failure, confirming) =>
          unconfirmedCreate(inputs, entity, name, heldBefore, props, failure.lookup ?? failure.create, confirming),
      },
      deps.log,
    );
    return outcome.view;
  }

  /**
   * The scale set under the entity that already has this name. The process-wide list from the start of the run is
   * asked first; a hit there is checked again, since the holder may have been deleted since (a delete-before-replace).
   */
  async function holderBefore(client: GarmClient, entity: ResolvedEntity, name: string): Promise<ScaleSetView | undefined> {
    const atStart = await lookupsFor(client).scaleSetsAtStart(entity);
    if (!atStart.some((s) => s.name === name)) return undefined;
    return findByName(client, entity, name);
  }

  function alreadyExists(name: string, where: string, holder: ScaleSetView, beforeCreate: boolean): Error {
    const before = beforeCreate ? "; it was there before this resource's create, so this resource did not make it and does not take it over by itself" : "";
    return new Error(
      `a scale set named ${name} already exists under ${where} (GARM id ${holder.id})${before}; ${makerPhrase(holder)}. ` +
        "Choose another name, or set adoptExisting: true to manage it with this resource, but only if no other stack manages it: " +
        "otherwise two stacks manage one scale set and either stack's `pulumi destroy` deletes it",
    );
  }

  /** The name is held by a scale set a stopped delete left disabled: adopting it would not help (see the message). */
  function nameHeldByRetiring(name: string, where: string, id: number): Error {
    return new Error(
      `a scale set named ${name} already exists under ${where} (GARM id ${id}), disabled at 0 runners as a delete that ` +
        "stopped part-way leaves it: probably an earlier generation of this scale set whose delete has not finished (its " +
        "drain is waiting for busy runners, or GARM could not remove it on GitHub). Pulumi retries that delete only after " +
        "this create, so this create cannot take the name: go back to the labels and provider the scale set has now for " +
        "one `pulumi up` (it retries that delete, which finishes once the jobs are done and GitHub answers), then make this " +
        "change again. GARM's values alone cannot tell such a delete from a scale set parked at maxRunners 0 on purpose: if " +
        "it is one of those, choose another name, or set adoptExisting: true to manage it with this resource",
    );
  }

  function unconfirmedCreate(
    inputs: CheckedInputs,
    entity: ResolvedEntity,
    name: string,
    heldBefore: boolean,
    props: Record<string, unknown>,
    cause: unknown,
    confirming: string,
  ): Error {
    const message =
      `GarmScaleSet ${name}: the connection to GARM broke after the create request was sent, so GARM may or may not have ` +
      `created it, and ${confirming} (${briefly(cause)}). Pulumi records it as ${unconfirmedId(name)}: the next \`pulumi up\` looks ` +
      `it up by name under ${entityLabel(entity)} and uses it if this create made it, or creates it if it is absent; ` +
      "`pulumi destroy` deletes it if this create made it";
    return partialCreate(message, unconfirmedId(name), { ...props, ...unconfirmedOutputs(inputs, entity, name, heldBefore) });
  }

  /**
   * Settles an unconfirmed create (unconfirmed.ts) on the next `up`: binds the scale set it made, creates it when it is
   * absent, and refuses one whose name was taken before the create unless adoptExisting is set.
   */
  async function settleCreate(id: string, olds: ScaleSetOutputs, newProps: Record<string, unknown>): Promise<ScaleSetOutputs> {
    const inputs = inputsOf(newProps);
    const client = deps.client();
    const entity = storedEntity(olds);
    const where = entityLabel(entity);
    const found = await settle(client, olds);
    if (found.kind === "foreign" && !inputs.adoptExisting) throw alreadyExists(olds.liveName, where, found.view, true);
    if (found.kind !== "absent") {
      const flow = {
        announce: () => ({ line: `GarmScaleSet ${olds.liveName}: GARM has it (id ${found.view.id}) under ${where}; this resource manages it from now on` }),
        bringToInputs: (view: ScaleSetView) => updateToMatch(client, inputs, view, entity),
      };
      return (await adoptFound(flow, found.view, deps.log)).outs;
    }
    deps.log.info(`GarmScaleSet ${olds.liveName}: the earlier create never reached GARM; creating it now under ${where}`);
    const created = await postScaleSet(client, inputs, entity, olds.liveName, newProps);
    try {
      await parkAfterCreate(client, inputs, created.id);
      return await readBack(client, inputs, created.id, entity);
    } catch (err) {
      throw partialCreate(`GarmScaleSet ${olds.liveName}: created as GARM id ${created.id} but reading it back failed: ${(err as Error).message}`, id, {
        ...newProps,
        ...toOutputs(inputs, created, entity),
      }, (err as Error).message);
    }
  }

  /**
   * Starts retiring the generations a create-first replacement replaces once this one has its idle runners, in this
   * process, outside the engine's slot (succession.ts); the engine's delete of each waits for it.
   */
  function retireWhenSucceeded(client: GarmClient, inputs: CheckedInputs, outs: ScaleSetOutputs, replaced: PlannedReplacement<ScaleSetOutputs>[]): void {
    const wanted = inputs.enabled ? Math.min(inputs.minIdleRunners, inputs.maxRunners) : 0;
    for (const { id, old } of replaced) {
      retirementsIn(client).start(id, async () => {
        await awaitRunners(client, `GarmScaleSet ${outs.liveName} (id ${outs.scaleSetId})`, outs.scaleSetId, wanted, inputs.drain);
        return retireOld(client, id, old);
      });
    }
  }

  /**
   * Before a delete no create of this process started: when another generation of this scale set is enabled (a label
   * or provider change whose run stopped before its delete), waits for its idle runners, while it stays enabled. Only
   * for a scale set that keeps idle runners: retiring one that keeps none takes no warm capacity away (and a destroy of
   * such a scale set makes no extra call).
   */
  async function awaitSuccessorOf(client: GarmClient, olds: ScaleSetOutputs, garmId: number): Promise<void> {
    if (!olds.liveName || !olds.entityId || !olds.enabled || !olds.minIdleRunners) return;
    // The successor of a pending delete existed when this run started; only its state is read fresh.
    const candidates = await lookupsFor(client).scaleSetsAtStart(storedEntity(olds));
    const successor = await successorOf(client, candidates, olds.liveName, garmId);
    if (!successor) return;
    const wanted = Math.min(successor.minIdleRunners, successor.maxRunners);
    const readRunners = async () => {
      const live = await readIfPresent(client, successor.id);
      return live?.enabled ? live.instances : undefined;
    };
    await awaitRunners(client, `GarmScaleSet ${successor.name} (id ${successor.id})`, successor.id, wanted, drainOptionsFor(olds.drain), readRunners);
  }

  /** Waits for `wanted` idle runners of the scale set `id` within the drain's timeout, woken by GARM's events. */
  async function awaitRunners(client: GarmClient, label: string, id: number, wanted: number, drain: DrainOptions, readRunners?: ReadinessDeps["readRunners"]) {
    if (wanted === 0) return;
    const waiter = waiterFor(client, id);
    await waitForRunners(label, id, wanted, drain.timeoutSeconds * 1000, drain.pollSeconds * 1000, {
      client,
      log: deps.log,
      now: deps.now,
      sleep: deps.sleep,
      wait: waiter?.wait,
      readRunners,
    }).finally(() => waiter?.close());
  }

  /** Disables, drains and deletes the scale set `garmId` the outputs describe (drain.ts). */
  async function retireOld(client: GarmClient, garmId: number, olds: ScaleSetOutputs) {
    const sameGarm = await inRecordedGarm(client, olds);
    const target = { id: garmId, liveName: olds.liveName ?? olds.name, owns: (view: ScaleSetView) => isSameScaleSet(olds, view, sameGarm) };
    const waiter = waiterFor(client, garmId);
    return retireScaleSet(target, drainOptionsFor(olds.drain), { client, ...drainDepsOf(deps, waiter) }).finally(() => waiter?.close());
  }

  /** The client, or undefined while a connection setting is wrong or not known yet. */
  function clientIfSet(): GarmClient | undefined {
    try {
      return deps.client();
    } catch {
      return undefined;
    }
  }

  /**
   * At preview and at `up`, before the engine deletes the old scale set of a delete-first replacement: throws when
   * GARM would refuse the new one (replacement.ts). When GARM cannot be read now, says that delete checks again.
   */
  async function refuseDoomedReplacement(label: string, garmId: number, stored: ScaleSetOutputs, news: Record<string, unknown>): Promise<void> {
    const client = clientIfSet();
    if (!client) return; // Connection settings not known: `up` reports them before anything is deleted.

    const old = { id: garmId, liveName: stored.liveName, forgeType: stored.forgeType };
    const read = await gate(() => replacementBlockers(client, news, old, declarationsFor(client)));
    if (read.ok) {
      if (read.value.length > 0) throw refusedReplacement(label, read.value, "preview");
      return;
    }
    deps.log.warn(
      `${label}: could not check what the replacement's create needs (${briefly(read.error ?? "GARM did not answer")}); ` +
        "the delete checks it again and deletes nothing when the create would fail",
    );
  }

  /** Listens for GARM's events about the scale set from now on, when the socket is in use. */
  function waiterFor(client: GarmClient, id: number): ChangeWaiter | undefined {
    const events = deps.events?.(client);
    return events && changeWaiter(events, scaleSetConcern(id), { ...deps.waiter, cancel: deps.cancel });
  }

  /**
   * PUTs the changed fields, and the live name when it was renamed behind Pulumi's back (GARM sends a rename to GitHub,
   * §4.1); an omitted templateId sends GARM's system template for osType on the scale set's forge.
   */
  async function sendUpdate(client: GarmClient, live: ScaleSetView, news: CheckedInputs, fields: UpdatableField[], rename?: string): Promise<void> {
    const omitted = fields.includes("templateId") && news.templateId === undefined;
    const systemTemplate = omitted ? await systemTemplateId(client, forgeOf(live.forgeType), news.osType) : undefined;
    const body = updateBody(news, fields, systemTemplate);
    await client.updateScaleSet(live.id, rename === undefined ? body : { ...body, name: rename });
  }

  /**
   * Whether `client` reaches the GARM the outputs record (garm-behaviour.md §1.8): only then is the id, with the same
   * entity, provider and labels, this scale set under another name. False when either is not known.
   */
  async function inRecordedGarm(client: GarmClient, olds: ScaleSetOutputs): Promise<boolean> {
    const recorded = (olds as unknown as Record<string, unknown>)[GARM_IDENTITY_OUTPUT];
    if (typeof recorded !== "string" || recorded === "") return false;
    return (await garmIdentityOf(client)) === recorded;
  }

  /** Throws, before anything is changed, when the id now names another scale set (a database restore reuses ids). */
  function refuseIfNotOurs(olds: ScaleSetOutputs, view: ScaleSetView, sameGarm: boolean): void {
    if (isSameScaleSet(olds, view, sameGarm)) return;
    throw new Error(notOurs.refused(`GarmScaleSet ${olds.liveName} (id ${view.id})`, describeHolder(view)));
  }

  /** Brings an adopted scale set's updatable fields to the inputs. Labels cannot change (§4.2): refuse a mismatch. */
  async function updateToMatch(client: GarmClient, inputs: CheckedInputs, existing: ScaleSetView, entity: ResolvedEntity) {
    const full = await client.getScaleSet(existing.id);
    const current = toOutputs(inputs, full, entity);
    if (full.providerName !== inputs.providerName) {
      throw new Error(
        `cannot adopt scale set ${full.name} (id ${full.id}): it uses provider ${full.providerName}, not ${inputs.providerName}`,
      );
    }
    const held = canonicalLabels(full.labels);
    const wanted = canonicalLabels(inputs.labels);
    if (!isDeepStrictEqual(held, wanted)) {
      throw new Error(
        `cannot adopt scale set ${full.name} (id ${full.id}): its labels are [${held.join(", ")}], not [${wanted.join(", ")}] as the ` +
          "labels input says, and GARM cannot change labels in place; set labels to match it, or choose another name",
      );
    }
    const fields = changedFields(current, inputs);
    if (fields.length === 0) return current;
    await sendUpdate(client, full, inputs, fields);
    return readBack(client, inputs, full.id, entity);
  }
}

export const scaleSet = scaleSetProviderWith(defaultDeps);
