// GarmTemplate's dynamic-provider methods: check and diff are pure (check reads a bodyFile); create, read, update and
// delete talk to GARM through the process-wide client. GARM's own system templates are never managed.
import type * as pulumi from "@pulumi/pulumi";
import { configure, garmClient } from "../../common/connection";
import type { KindMethods } from "../../common/planned-diff";
import type { GarmClient, TemplateDetailView, TemplateView } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { type RefusalWords, refuseWhileUsed, refusalOf, scaleSetsAndPoolsWhere } from "../../common/dependents";
import { type Logger, consoleLogger } from "../../common/log";
import { logReplacements, replacementsFrom } from "../../common/replace-line";
import { withoutProviderKey } from "../../common/unknown";
import { adoptFound } from "../../common/adopt";
import { notOurs } from "../../common/holder";
import { createSettlingLostAnswer, partialCreate, unconfirmedId } from "../../common/lost-answer";
import { briefly } from "../../runners/brief-error";
import { type ReadBody, checkTemplateInputs, readBodyFile } from "./check";
import { REPLACE_REASONS, changedTemplateFields, diffTemplate, templateUpdateBody } from "./diff";
import type { CheckedTemplateInputs } from "./inputs";
import {
  SYSTEM_OWNER,
  type TemplateOutputs,
  describeTemplateHolder,
  isSameTemplate,
  readTemplateOutputs,
  templateIdOf,
  toTemplateOutputs,
  unconfirmedTemplateOutputs,
} from "./state";
import { sameTemplateName } from "../../garm/names";
import { type NameHolder, nameTakenError, nameTakenFailure, renamedTo } from "../../common/name-clash";
import { readGate } from "../../runners/drained";

export interface TemplateDeps {
  readonly client: () => GarmClient;
  readonly log: Logger;
  readonly readBody: ReadBody;
}

const defaultDeps: TemplateDeps = { client: garmClient, log: consoleLogger, readBody: readBodyFile };

const inputsOf = (props: Record<string, unknown>) => withoutProviderKey(props) as unknown as CheckedTemplateInputs;
const label = (name: string, id?: number) => `GarmTemplate ${name}${id === undefined ? "" : ` (id ${id})`}`;
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

export function templateProviderWith(deps: TemplateDeps): pulumi.dynamic.ResourceProvider {
  return { configure, ...templateMethodsWith(deps) };
}

export function templateMethodsWith(deps: TemplateDeps): KindMethods {
  const gate = readGate({ log: deps.log, timeoutMs: 5000 });
  return {
    async check(olds, news) {
      const checked = checkTemplateInputs(news, deps.readBody);
      const name = renamedTo(olds, withoutProviderKey(news), sameTemplateName);
      if (name === undefined || checked.failures.length > 0) return checked;
      // Ours still has the old name, so any own template holding the new one is another.
      const read = await gate(() => nameHolder(deps.client(), name));
      if (!read.ok || read.value === undefined) return checked;
      return { ...checked, failures: [nameTakenFailure("a template named", name, read.value)] };
    },

    async diff(_id, olds, news) {
      const stored = readTemplateOutputs(olds);
      const planned = diffTemplate(stored, news);
      logReplacements(deps.log, label(stored.name, stored.templateId), replacementsFrom(planned.replaces ?? [], REPLACE_REASONS));
      return planned;
    },

    async create(props) {
      const inputs = inputsOf(props);
      const client = deps.client();
      // Asked first: the name is unique per user (database/sql/models.go L96-97), so a template found under it after a
      // lost answer can only be this create's.
      const holder = await ownByName(client, inputs.name);
      if (holder && inputs.adoptExisting) {
        const adopted = await adoptFound(adoptFlow(client, inputs), holder, deps.log);
        return { id: String(holder.id), outs: adopted.outs };
      }
      if (inputs.adoptExisting) refuseSystemTemplate(await client.listTemplates(undefined, undefined, inputs.name), inputs.name);
      if (holder) throw nameTaken(inputs.name, holder.id);
      const created = await postTemplate(client, inputs, props);
      return { id: String(created.id), outs: toTemplateOutputs(inputs, created) };
    },

    async read(id, props) {
      const olds = readTemplateOutputs(props ?? {});
      const client = deps.client();
      let templateId = templateIdOf(id, olds);
      if (templateId === undefined) {
        // An unconfirmed create stays in state only if GARM has the template it made.
        const found = await madeBy(client, olds);
        if (!found) return {};
        templateId = found.id;
      }
      let view: TemplateDetailView;
      try {
        view = await client.getTemplate(templateId);
      } catch (err) {
        if (isGarmError(err, "not-found")) return {};
        throw err;
      }
      // A database restore gives a deleted template's id to the next template made, whoever makes it.
      if (!isSameTemplate(olds, view)) {
        deps.log.warn(notOurs.dropped(label(olds.name, templateId), describeTemplateHolder(view)));
        return {};
      }
      const { nameHeldBeforeCreate: _settled, ...kept } = olds as TemplateOutputs & { nameHeldBeforeCreate?: boolean };
      return { id: String(view.id), props: { ...kept, ...toTemplateOutputs(olds, view), __provider: props?.__provider } };
    },

    async update(id, oldProps, newProps) {
      const olds = readTemplateOutputs(oldProps);
      const news = inputsOf(newProps);
      const client = deps.client();
      const templateId = templateIdOf(id, olds);
      if (templateId === undefined) return { outs: await settleCreate(client, olds, news, newProps) };
      const fields = changedTemplateFields(olds, news as unknown as Record<string, unknown>);
      if (fields.length === 0) return { outs: { ...olds, bodyFile: news.bodyFile, adoptExisting: news.adoptExisting } };
      const live = await client.getTemplate(templateId);
      if (!isSameTemplate(olds, live)) throw new Error(notOurs.refused(label(olds.name, templateId), describeTemplateHolder(live)));
      let view: TemplateDetailView;
      try {
        view = await client.updateTemplate(templateId, templateUpdateBody(news, fields));
      } catch (err) {
        if (fields.includes("name") && isGarmError(err, "server-error")) {
          const holder = await nameHolder(client, news.name, templateId).catch(() => undefined);
          if (holder) throw nameTakenError(label(olds.name, templateId), "a template named", news.name, holder);
        }
        throw err;
      }
      return { outs: toTemplateOutputs(news, view) };
    },

    async delete(id, props) {
      const olds = readTemplateOutputs(props);
      const client = deps.client();
      let templateId = templateIdOf(id, olds);
      if (templateId === undefined) {
        const found = await madeBy(client, olds);
        if (!found) return deps.log.info(`${label(olds.name)}: its create was never confirmed and GARM has no template it made; nothing to delete`);
        templateId = found.id;
      }
      const name = label(olds.name, templateId);
      let view: TemplateDetailView;
      try {
        view = await client.getTemplate(templateId);
      } catch (err) {
        if (isGarmError(err, "not-found")) return deps.log.info(`${name}: already gone from GARM`);
        throw err;
      }
      if (!isSameTemplate(olds, view)) return deps.log.warn(notOurs.leftAlone(name, describeTemplateHolder(view)));
      // Name every user before GARM refuses with a message that names none (database/sql/templates.go L265-267).
      await refuseWhileUsed(scaleSetsAndPoolsWhere(client, (ref) => ref.templateId === templateId), inUseWords(name));
      try {
        await client.deleteTemplate(templateId);
      } catch (err) {
        if (isGarmError(err, "bad-request") && /in use/.test(err.details)) {
          throw refusalOf({ found: [{ kind: "a scale set or pool", id: "made meanwhile" }], unlisted: [] }, inUseWords(name))!;
        }
        throw err;
      }
      deps.log.info(`${name}: deleted from GARM`);
    },
  };

  /**
   * POSTs the template, whose name was free just before. A lost answer is looked up by name before sending it again;
   * when that fails too, it throws a partial create with an unconfirmed id, which read, update and delete settle.
   */
  async function postTemplate(client: GarmClient, inputs: CheckedTemplateInputs, props: Record<string, unknown>): Promise<TemplateDetailView> {
    const outcome = await createSettlingLostAnswer(
      {
        label: label(inputs.name),
        post: () =>
          client.createTemplate({
            name: inputs.name,
            description: inputs.description,
            os_type: inputs.osType,
            forge_type: inputs.forgeType,
            data: base64(inputs.body),
          }),
        async landed() {
          const found = await ownByName(client, inputs.name);
          if (!found) {
            deps.log.warn(`${label(inputs.name)}: GARM's answer to the create was lost and GARM has no template of that name: the create did not land, so it is sent once more`);
            return undefined;
          }
          const differing = differsFromSent(found, inputs);
          // The name is unique per user: a template holding it that is not what this create sent is another's, made
          // between the look-up before the create and the create, whose POST GARM then refused or never saw.
          if (differing.length > 0) throw notThisCreates(inputs.name, found, differing);
          return found;
        },
        describe: (found) => `id ${found.id}`,
        resend: true,
        async refused(err) {
          // Taken between the look-up above and the POST (database/sql/templates.go L180-183).
          if (!isGarmError(err, "conflict")) return undefined;
          return nameTaken(inputs.name, (await ownByName(client, inputs.name).catch(() => undefined))?.id);
        },
        unsettled(failure, confirming) {
          if (failure.lookup instanceof NotThisCreates) return failure.lookup;
          const message =
            `${label(inputs.name)}: the connection to GARM broke after the create request was sent, so GARM may or may not have created it, ` +
            `and ${confirming} (${briefly(failure.lookup ?? failure.create)}). Pulumi records it as ${unconfirmedId(inputs.name)}: the next ` +
            "`pulumi up` looks it up by name and uses it if this create made it, or creates it if it is absent; `pulumi destroy` deletes it if this create made it";
          return partialCreate(message, unconfirmedId(inputs.name), { ...props, ...unconfirmedTemplateOutputs(inputs) });
        },
      },
      deps.log,
    );
    return outcome.view;
  }

  /** Settles an unconfirmed create on the next `up`: binds the template it made, or creates it when it is absent. */
  async function settleCreate(client: GarmClient, olds: TemplateOutputs, news: CheckedTemplateInputs, newProps: Record<string, unknown>): Promise<TemplateOutputs> {
    // The name was free when the create was sent (unconfirmedTemplateOutputs): the template of that name is its
    // when it holds what the create sent; another template holding the name makes the create below refused by name.
    const found = await madeBy(client, olds);
    if (found) return (await adoptFound({ ...adoptFlow(client, news), announce: () => ({ line: `${label(olds.name, found.id)}: GARM has the template the earlier create made; this resource manages it from now on` }) }, found, deps.log)).outs;
    deps.log.info(`${label(olds.name)}: the earlier create never reached GARM; creating it now`);
    return toTemplateOutputs(news, await postTemplate(client, news, newProps));
  }

  /** Adopting a template: its OS and forge type cannot change (params/requests.go L910-914); the rest is updated. */
  function adoptFlow(client: GarmClient, inputs: CheckedTemplateInputs) {
    return {
      refusal: (existing: TemplateDetailView) =>
        existing.osType !== inputs.osType || existing.forgeType !== inputs.forgeType
          ? `cannot adopt template ${existing.name} (id ${existing.id}): it is for ${existing.forgeType} ${existing.osType}, not ` +
            `${inputs.forgeType} ${inputs.osType}, and GARM cannot change that in place; set osType and forgeType to match it, or choose another name`
          : undefined,
      announce: (existing: TemplateDetailView) => ({ line: `${label(inputs.name, existing.id)}: adopting the existing template` }),
      async bringToInputs(existing: TemplateDetailView): Promise<TemplateOutputs> {
        const current = toTemplateOutputs(inputs, existing);
        const fields = changedTemplateFields(current, inputs as unknown as Record<string, unknown>);
        if (fields.length === 0) return current;
        return toTemplateOutputs(inputs, await client.updateTemplate(existing.id, templateUpdateBody(inputs, fields)));
      },
    };
  }
}

/** The fields in which GARM's template differs from what a create of `sent` makes, as GARM echoes them. */
export function differsFromSent(view: TemplateDetailView, sent: Pick<CheckedTemplateInputs, "name" | "description" | "osType" | "forgeType" | "body">): string[] {
  const held = { name: view.name, description: view.description, osType: view.osType, forgeType: view.forgeType, body: view.body };
  const differing: string[] = [];
  if (view.owner === SYSTEM_OWNER) differing.push("owner");
  if (!sameTemplateName(held.name, sent.name)) differing.push("name");
  for (const field of ["description", "osType", "forgeType", "body"] as const) if (held[field] !== sent[field]) differing.push(field);
  return differing;
}

/** A lost create's look-up found the name held by a template this create did not make. */
class NotThisCreates extends Error {}

function notThisCreates(name: string, found: TemplateDetailView, differing: readonly string[]): Error {
  return new NotThisCreates(
    `${label(name)}: GARM's answer to the create was lost, and the template now named ${JSON.stringify(found.name)} (id ${found.id}) is not ` +
      `what this create sent (its ${differing.join(", ")} differ): another stack or user made it, so it is left alone and nothing was created. ` +
      "Choose another name, or set adoptExisting: true to manage that template from this stack",
  );
}

/** The template an unconfirmed create made: the own template of its name holding every field it sent. */
async function madeBy(client: GarmClient, sent: Pick<CheckedTemplateInputs, "name" | "description" | "osType" | "forgeType" | "body">): Promise<TemplateDetailView | undefined> {
  const found = await ownByName(client, sent.name);
  return found && differsFromSent(found, sent).length === 0 ? found : undefined;
}

function nameTaken(name: string, id: number | undefined): Error {
  return new Error(
    `${label(name)}: GARM already has a template named ${JSON.stringify(name)}${id === undefined ? "" : ` (id ${id})`}; nothing was created. ` +
      "Set adoptExisting: true to manage it from this stack, or choose another name",
  );
}

function inUseWords(label: string): RefusalWords {
  return {
    label,
    why: "GARM refuses to delete a template still in use",
    remedy: "Point them at another template (templateId) or delete them first, then run again; Pulumi keeps the template in its state until then",
  };
}

/** Another own template holding this name for the user: the unique index (name, user) refuses a second (models.go L96-97). */
async function nameHolder(client: GarmClient, name: string, selfId?: number): Promise<NameHolder | undefined> {
  const all = await client.listTemplates(undefined, undefined, name);
  return all.find((t) => sameTemplateName(t.name, name) && t.owner !== SYSTEM_OWNER && t.id !== selfId);
}

/** The caller's own template of that name (GARM's system templates are never anyone's), with its body. */
async function ownByName(client: GarmClient, name: string): Promise<TemplateDetailView | undefined> {
  const own = (await client.listTemplates(undefined, undefined, name)).filter((t) => sameTemplateName(t.name, name) && t.owner !== SYSTEM_OWNER);
  return own.length === 0 ? undefined : client.getTemplate(own[0]!.id);
}

/** adoptExisting with a system template's name: say that it is never adopted. */
function refuseSystemTemplate(all: readonly TemplateView[], name: string): void {
  if (!all.some((t) => sameTemplateName(t.name, name) && t.owner === SYSTEM_OWNER)) return;
  throw new Error(
    `template ${JSON.stringify(name)} is a GARM system template, which a stack never manages or deletes; reference it by ` +
      "id in templateId instead, or give this GarmTemplate another name",
  );
}

export const template = templateProviderWith(defaultDeps);
