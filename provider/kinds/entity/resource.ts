// The dynamic-provider methods of GarmOrganization, GarmRepository and GarmEnterprise: one implementation, told which
// kind it serves. check and diff's decision are pure; create, read, update and delete talk to GARM.
import type * as pulumi from "@pulumi/pulumi";
import type { ConfigLookup } from "../../common/secrets-from-config";
import { configure, garmClient } from "../../common/connection";
import type { KindMethods } from "../../common/planned-diff";
import type { EntityCalls, EntityKind, EntityView } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { declareFor } from "../../garm/lookups";
import { type Logger, consoleLogger } from "../../common/log";
import { type Replacement, logReplacements } from "../../common/replace-line";
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { createSettlingLostAnswer, partialCreate } from "../../common/lost-answer";
import { adoptFound } from "../../common/adopt";
import { type ForgeCredentials, credentialsNamed } from "./credentials";
import { checkEntityInputs } from "./check";
import { changedFields, diffEntity, updateBody, webhookChange, webhookFollows } from "./diff";
import { listDependents, refusalOf } from "../../common/dependents";
import { entityRefusalWords, entityUsers } from "./guard";
import type { CheckedEntityInputs } from "./inputs";
import { KIND_SPECS } from "./kinds";
import { type EntityOutputs, readOutputs, toOutputs, withObserved } from "./state";
import { digestSecret } from "../../common/secret-digest";
import { followWebhookUrl, installWebhook, removeWebhook, replaceWebhook, webhookPresent } from "./webhook";
import { sameCredentialsName, sameEndpointName, sameEntityName } from "../../garm/names";

export interface EntityDeps {
  readonly client: () => EntityCalls;
  readonly log: Logger;
  /** Bound on planning's look-ups of credentials (check of a new entity, diff of new credentials). @default 5000 */
  readonly diffReadTimeoutMs?: number;
  /** Stack config by full key, for a webhook secret named by a key; the plugin's Configure gives it. */
  readonly config?: ConfigLookup;
}

const defaultDeps: EntityDeps = { client: garmClient, log: consoleLogger };

function inputsOf(props: Record<string, unknown>): CheckedEntityInputs {
  return withoutProviderKey(props) as unknown as CheckedEntityInputs;
}

function splitName(kind: EntityKind, name: string): { owner?: string; name: string } {
  if (kind !== "repository") return { name };
  const [owner, repo] = name.split("/", 2) as [string, string];
  return { owner, name: repo };
}

/** The entity methods for one kind, without configure (the resource plugin owns its connection). */
export function entityMethodsWith(kind: EntityKind, deps: EntityDeps): KindMethods {
  const spec = KIND_SPECS[kind];
  const labelOf = (name: string, id?: string) => `${spec.resource} ${name}${id ? ` (id ${id})` : ""}`;
  const api = () => deps.client();

  /**
   * The credentials the create names: undefined when GARM has none of the name (the POST then says so,
   * runner/organizations.go L52-54). A name both forges hold is refused: GARM needs the forge then (runner/common.go
   * L21-22), and nothing in the inputs says which one is meant.
   */
  async function credentialsFor(inputs: CheckedEntityInputs): Promise<ForgeCredentials | undefined> {
    const found = await credentialsNamed(api(), kind, inputs.credentials);
    if (found.length > 1) throw new Error(`${labelOf(inputs.name)}: ${ambiguity(inputs.credentials, found)}`);
    return found[0];
  }

  function ambiguity(credentials: string, found: readonly ForgeCredentials[]): string {
    const where = found.map((c) => `${c.forge === "github" ? "GitHub" : "Gitea"} (endpoint ${c.endpoint})`).join(" and ");
    return `GARM has credentials named ${JSON.stringify(credentials)} on both ${where}, so it cannot tell which this ${kind} uses; rename one of them (a GarmCredentials' name) and pass that name here`;
  }

  /**
   * At preview, a new entity whose credentials name both forges hold already: the create would be refused. A read that
   * fails or takes too long says nothing; the create asks again. An existing entity keeps its forge (GARM's update
   * looks credentials up on it), so only creates are checked.
   */
  async function ambiguousCredentials(olds: Record<string, unknown>, inputs: Record<string, unknown>): Promise<string | undefined> {
    const credentials = inputs.credentials;
    if (Object.keys(withoutProviderKey(olds)).length > 0 || typeof credentials !== "string" || containsUnknown(credentials)) return undefined;
    // Inside the promise: a process without a connection yet throws at api(), which must not fail the check either.
    const read = Promise.resolve().then(() => credentialsNamed(api(), kind, credentials));
    const found = await withTimeout(read, deps.diffReadTimeoutMs ?? 5000).catch(() => []);
    return found.length > 1 ? ambiguity(credentials, found) : undefined;
  }

  /**
   * The entity GARM's duplicate check would find: this name, ignoring case, under the endpoint of the given credentials
   * (runner/organizations.go L56-63). GARM's `?name=` filter is exact, so the endpoint's entities are listed instead.
   */
  async function findByName(inputs: CheckedEntityInputs, known?: ForgeCredentials): Promise<EntityView | undefined> {
    const endpoint = (known ?? (await credentialsFor(inputs)))?.endpoint;
    if (endpoint === undefined) return undefined;
    const found = await api().listEntities(kind, { endpoint });
    return found.find((e) => sameEntityName(e.name, inputs.name) && sameEndpointName(e.endpoint, endpoint));
  }

  /**
   * The outputs of an entity GARM now has, with the webhook the inputs ask for installed. When that fails the entity
   * is still recorded, with webhookInstalled false, so the next `up` installs the webhook instead of making a second
   * entity or refusing an existing one.
   */
  async function withWebhook(outs: EntityOutputs, inputs: CheckedEntityInputs, provider: unknown): Promise<{ id: string; outs: EntityOutputs }> {
    if (!inputs.installWebhook) return { id: outs.entityId, outs };
    try {
      await installWebhook(api(), kind, outs.entityId, labelOf(inputs.name, outs.entityId));
      return { id: outs.entityId, outs: { ...outs, webhookInstalled: true } };
    } catch (err) {
      throw partialCreate((err as Error).message, outs.entityId, { ...outs, webhookInstalled: false, __provider: provider });
    }
  }

  /** Adopts an entity found under the name: by adoptExisting, or as the one a create whose answer was lost made. */
  async function adopt(existing: EntityView, inputs: CheckedEntityInputs): Promise<EntityOutputs> {
    const label = labelOf(inputs.name, existing.id);
    const flow = {
      announce: () => ({ line: `${label}: adopting the existing ${kind} ${existing.name} under endpoint ${existing.endpoint}` }),
      bringToInputs: () => bringToInputs(existing, inputs, label),
    };
    return (await adoptFound(flow, existing, deps.log)).outs;
  }

  async function bringToInputs(existing: EntityView, inputs: CheckedEntityInputs, label: string): Promise<EntityOutputs> {
    const observed = toOutputs(kind, inputs, existing, { digest: "", salt: "" }, false);
    // GARM never shows the secret it holds, so an adopted entity always gets this program's.
    const fields = [...new Set([...(await changedFields(observed, inputs as unknown as Record<string, unknown>)), "webhookSecret" as const])];
    const view = await api().updateEntity(kind, existing.id, updateBody(inputs, fields));
    // Its webhook is withWebhook's: a hook already there carries the secret GARM held before, and is made again.
    return toOutputs(kind, inputs, view, await digestSecret(inputs.webhookSecret), false);
  }

  /**
   * Where the new credentials of an existing entity are. GARM's update looks them up on the entity's own forge
   * (database/sql/util.go L1166-1176), so credentials of the name under the entity's endpoint are the ones it takes,
   * whatever the other forge holds under the same name.
   */
  async function newCredentialsEndpoint(name: string, entityEndpoint: string): Promise<string | undefined> {
    const found = await credentialsNamed(api(), kind, name);
    return (found.find((c) => sameEndpointName(c.endpoint, entityEndpoint)) ?? found[0])?.endpoint;
  }

  function createFailure(err: unknown, inputs: CheckedEntityInputs): Error {
    const label = labelOf(inputs.name);
    if (isGarmError(err, "conflict") && inputs.adoptExisting) {
      // GARM's duplicate check found an entity its list did not show: nothing here can adopt it.
      return new Error(
        `${label}: GARM refused the create as a duplicate (${err.details}), yet lists no ${kind} of that name under the endpoint of credentials ${JSON.stringify(inputs.credentials)} to adopt; check the name and the credentials, then run again`,
      );
    }
    if (isGarmError(err, "conflict")) {
      return new Error(
        `${label}: GARM already has this ${kind} (${err.details}); set adoptExisting: true to manage it from this stack, or choose another name`,
      );
    }
    if (isGarmError(err, "bad-request") && /credentials .* not defined/.test(err.details)) {
      return new Error(
        `${label}: GARM has no credentials named ${JSON.stringify(inputs.credentials)}; create them first (a GarmCredentials resource, passing its name output here, or garm-cli github credentials add)`,
      );
    }
    return new Error(`${label}: creating it in GARM failed: ${(err as Error).message}`);
  }

  return {
    async check(olds, news) {
      const checked = checkEntityInputs(kind, news, deps.config);
      if (checked.failures.length === 0) {
        const reason = await ambiguousCredentials(olds, checked.inputs);
        if (reason) return { inputs: checked.inputs, failures: [{ property: "credentials", reason }] };
      }
      // A scale set of this run may name the entity before it exists (scaleset/references.ts).
      if (checked.failures.length === 0 && typeof checked.inputs.name === "string" && !containsUnknown(checked.inputs.name)) {
        const name = checked.inputs.name;
        declareFor(deps.client, (d) => d.declareEntity(kind, name));
      }
      return checked;
    },

    async diff(_id, oldsWithProvider, newsWithProvider) {
      const olds = readOutputs(kind, oldsWithProvider);
      const news = withoutProviderKey(newsWithProvider);
      let endpoint: string | undefined;
      if (typeof news.credentials === "string" && !containsUnknown(news.credentials) && !sameCredentialsName(news.credentials, olds.credentials)) {
        endpoint = await withTimeout(newCredentialsEndpoint(news.credentials, olds.endpointName), deps.diffReadTimeoutMs ?? 5000).catch(() => undefined);
      }
      const planned = await diffEntity(olds, news, endpoint);
      const label = labelOf(olds.name, olds.entityId);
      const replacements: Replacement[] = [];
      if (planned.replaces?.includes("name")) {
        replacements.push({ field: "name", why: `GARM cannot rename a ${kind}: ${JSON.stringify(olds.name)} → ${JSON.stringify(news.name)}` });
      }
      if (planned.replaces?.includes("credentials")) {
        const why = `${JSON.stringify(news.credentials)} belong to endpoint ${endpoint}, not ${olds.endpointName}, and GARM cannot move a ${kind} between endpoints`;
        replacements.push({ field: "credentials", why });
      }
      logReplacements(deps.log, label, replacements);
      return planned;
    },

    async create(props) {
      const inputs = inputsOf(props);
      const credentials = await credentialsFor(inputs);
      // Asked first, so that an entity found under the name after a lost answer can only be this create's.
      const existing = await findByName(inputs, credentials);
      if (existing && inputs.adoptExisting) return withWebhook(await adopt(existing, inputs), inputs, props.__provider);
      if (existing) {
        throw new Error(
          `${labelOf(inputs.name, existing.id)}: GARM already has this ${kind} under endpoint ${existing.endpoint}; set adoptExisting: true to manage it from this stack, or choose another name`,
        );
      }
      const { owner, name } = splitName(kind, inputs.name);
      // A POST whose answer was lost may have been carried out: GARM refuses any second entity of this name
      // (runner/organizations.go L56-63) and none had it above, so one found now under the name is this create's.
      const created = await createSettlingLostAnswer(
        {
          label: labelOf(inputs.name),
          post: () =>
            api().createEntity(kind, {
              name,
              ...(owner === undefined ? {} : { owner }),
              credentials_name: inputs.credentials,
              // Named, so that GARM does not resolve the name itself, which fails when both forges hold it.
              ...(credentials && kind !== "enterprise" ? { forge_type: credentials.forge } : {}),
              webhook_secret: inputs.webhookSecret,
              pool_balancer_type: inputs.poolBalancerType,
              ...(inputs.agentMode ? { agent_mode: true } : {}),
            }),
          landed: () => findByName(inputs, credentials),
          describe: (found) => `id ${found.id}`,
          resend: false,
          unsettled: (failure) => createFailure(failure.create, inputs),
          failed: (err) => createFailure(err, inputs),
        },
        deps.log,
      );
      if (created.found) return withWebhook(await adopt(created.view, inputs), inputs, props.__provider);
      const view = created.view;
      const secret = await digestSecret(inputs.webhookSecret);
      deps.log.info(`${labelOf(inputs.name, view.id)}: created under endpoint ${view.endpoint}`);
      return withWebhook(toOutputs(kind, inputs, view, secret, false), inputs, props.__provider);
    },

    async read(id, props) {
      const olds = readOutputs(kind, props ?? {});
      let view: EntityView;
      try {
        view = await api().getEntity(kind, id);
      } catch (err) {
        // Gone from GARM: an empty id makes Pulumi drop it from state.
        if (isGarmError(err, "not-found")) return {};
        throw err;
      }
      let installed = olds.webhookInstalled ?? false;
      if (olds.installWebhook) {
        const present = await webhookPresent(api(), kind, id);
        if (present === undefined) deps.log.warn(`${labelOf(view.name, id)}: could not ask GARM whether its webhook is installed; keeping what the state says`);
        else installed = present;
      }
      return { id, props: { ...withObserved(olds, view), webhookInstalled: installed, __provider: props?.__provider } };
    },

    async update(id, oldsWithProvider, newsWithProvider) {
      const olds = readOutputs(kind, oldsWithProvider);
      const inputs = inputsOf(newsWithProvider);
      const news = withoutProviderKey(newsWithProvider);
      const label = labelOf(inputs.name, id);
      const fields = await changedFields(olds, news);
      let view: EntityView;
      try {
        view = fields.length > 0 ? await api().updateEntity(kind, id, updateBody(inputs, fields)) : await api().getEntity(kind, id);
      } catch (err) {
        if (isGarmError(err, "bad-request") && /endpoint mismatch/.test(err.details)) {
          throw new Error(`${label}: credentials ${JSON.stringify(inputs.credentials)} are on another endpoint than the ${kind} (${olds.endpointName}); GARM cannot move it: run \`pulumi up\` again to replace it, or use credentials of endpoint ${olds.endpointName}`);
        }
        throw new Error(`${label}: updating it in GARM failed: ${(err as Error).message}`);
      }
      const rotated = fields.includes("webhookSecret");
      // Made afresh on every write, so state of version 1 moves to the current form without counting as a rotation.
      const secret = await digestSecret(inputs.webhookSecret);
      let installed = olds.webhookInstalled ?? false;
      const hook = webhookChange(olds, news);
      if (hook === "remove") {
        await removeWebhook(api(), kind, id, label);
        installed = false;
      } else if (hook === "install") {
        await installWebhook(api(), kind, id, label);
        installed = true;
      } else if (rotated && installed) {
        // GitHub keeps signing with the secret the hook was made with; GARM never edits a hook, so make it again.
        await replaceWebhook(api(), kind, id, label);
      } else if (webhookFollows(olds, news) && inputs.installWebhook) {
        // GARM's webhook URL changed: its controller's update moved the hook, or nothing did (garm-behaviour.md §2.4).
        if (await followWebhookUrl(api(), kind, id, label)) deps.log.info(`${label}: installed its webhook at GARM's webhook URL`);
        installed = true;
      }
      if (fields.length > 0) deps.log.info(`${label}: updated ${fields.join(", ")}`);
      return { outs: toOutputs(kind, inputs, view, secret, installed) };
    },

    async delete(id, props) {
      const olds = readOutputs(kind, props);
      const label = labelOf(olds.name, id);
      const dependents = await listDependents(entityUsers(api(), kind, id));
      // A list answered 404 because the entity itself is gone: the DELETE below says so.
      const unlisted = dependents.unlisted.filter((u) => !isGarmError(u.error, "not-found"));
      const refused = refusalOf({ found: dependents.found, unlisted }, entityRefusalWords(label, kind));
      if (refused) throw refused;
      const ownHook = Boolean(olds.installWebhook && olds.webhookInstalled);
      if (ownHook && olds.keepWebhookOnDelete) deps.log.info(`${label}: leaving its webhook in GitHub (keepWebhookOnDelete)`);
      const removeHook = ownHook && !olds.keepWebhookOnDelete;
      try {
        // GARM removes the hook inside its own delete, after its pool and scale-set checks (runner/organizations.go
        // L138-174), so a delete GARM refuses or never receives leaves the entity with its hook. Removing it here first
        // would strand the entity without one while the state says installed. A hook this resource did not install
        // stays (keepWebhook=true).
        await api().deleteEntity(kind, id, !removeHook);
        // GARM only logs a failure to remove the hook (organizations.go L167-172), so the line cannot promise more.
        deps.log.info(`${label}: deleted from GARM${removeHook ? ", with GARM asked to remove its webhook from GitHub" : ""}`);
      } catch (err) {
        if (isGarmError(err, "not-found")) {
          deps.log.info(`${label}: already gone from GARM`);
          return;
        }
        if (isGarmError(err, "bad-request") && /has (scale sets|pools) defined/.test(err.details)) {
          const now = await listDependents(entityUsers(api(), kind, id));
          throw refusalOf(now, entityRefusalWords(label, kind)) ?? new Error(`${label}: GARM refused the delete: ${err.details}`);
        }
        throw err;
      }
    },
  };
}

function withTimeout<T>(pending: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out")), ms);
    pending.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** The dynamic provider of one entity kind, over the process's connection. */
export function entityProvider(kind: EntityKind, deps: EntityDeps = defaultDeps): pulumi.dynamic.ResourceProvider {
  return { configure, ...entityMethodsWith(kind, deps) };
}

export const organization = entityProvider("organization");
export const repository = entityProvider("repository");
export const enterprise = entityProvider("enterprise");
