// GarmTemplate's dynamic-provider methods: check and diff are pure (check reads a bodyFile); create, read, update and
// delete talk to GARM through the process-wide client. GARM's own system templates are never managed.
import type * as pulumi from "@pulumi/pulumi";
import { configure, garmClient } from "../../common/connection";
import type { GarmClient, TemplateDetailView } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { type RefusalWords, refuseWhileUsed, refusalOf, runnerGroupsWhere } from "../../common/dependents";
import { type Logger, consoleLogger } from "../../common/log";
import { logReplacements, replacementsFrom } from "../../common/replace-line";
import { withoutProviderKey } from "../../common/unknown";
import { type ReadBody, checkTemplateInputs, readBodyFile } from "./check";
import { REPLACE_REASONS, changedTemplateFields, diffTemplate, templateUpdateBody } from "./diff";
import type { CheckedTemplateInputs } from "./inputs";
import { SYSTEM_OWNER, type TemplateOutputs, readTemplateOutputs, toTemplateOutputs } from "./state";
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

export function templateMethodsWith(deps: TemplateDeps): Omit<pulumi.dynamic.ResourceProvider, "configure"> {
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
      if (inputs.adoptExisting) {
        const existing = await findOwnByName(client, inputs.name);
        if (existing) {
          deps.log.info(`${label(inputs.name, existing.id)}: adopting the existing template`);
          return { id: String(existing.id), outs: await updateToMatch(client, inputs, existing) };
        }
      }
      let created: TemplateDetailView;
      try {
        created = await client.createTemplate({
          name: inputs.name,
          description: inputs.description,
          os_type: inputs.osType,
          forge_type: inputs.forgeType,
          data: base64(inputs.body),
        });
      } catch (err) {
        // The name is unique per user (database/sql/models.go L96-97, templates.go L180-183).
        if (isGarmError(err, "conflict")) {
          const held = await findOwnByName(client, inputs.name).catch(() => undefined);
          const id = held ? ` (id ${held.id})` : "";
          throw new Error(
            `${label(inputs.name)}: GARM already has a template named ${JSON.stringify(inputs.name)}${id}; nothing was created. ` +
              "Set adoptExisting: true to manage it from this stack, or choose another name",
          );
        }
        throw err;
      }
      return { id: String(created.id), outs: toTemplateOutputs(inputs, created) };
    },

    async read(id, props) {
      const olds = readTemplateOutputs(props ?? {});
      const client = deps.client();
      try {
        const view = await client.getTemplate(Number(id));
        // A database restore can give the id to a system template; this resource never manages one.
        if (view.owner === SYSTEM_OWNER) {
          deps.log.warn(`${label(olds.name, view.id)}: GARM id ${view.id} now holds its system template ${view.name}; dropping this one from the stack as gone`);
          return {};
        }
        return { id: String(view.id), props: { ...olds, ...toTemplateOutputs(olds, view), __provider: props?.__provider } };
      } catch (err) {
        if (isGarmError(err, "not-found")) return {};
        throw err;
      }
    },

    async update(id, oldProps, newProps) {
      const olds = readTemplateOutputs(oldProps);
      const news = inputsOf(newProps);
      const fields = changedTemplateFields(olds, news as unknown as Record<string, unknown>);
      if (fields.length === 0) return { outs: { ...olds, bodyFile: news.bodyFile, adoptExisting: news.adoptExisting } };
      let view: TemplateDetailView;
      try {
        view = await deps.client().updateTemplate(Number(id), templateUpdateBody(news, fields));
      } catch (err) {
        if (fields.includes("name") && isGarmError(err, "server-error")) {
          const holder = await nameHolder(deps.client(), news.name, Number(id)).catch(() => undefined);
          if (holder) throw nameTakenError(label(olds.name, Number(id)), "a template named", news.name, holder);
        }
        throw err;
      }
      return { outs: toTemplateOutputs(news, view) };
    },

    async delete(id, props) {
      const olds = readTemplateOutputs(props);
      const client = deps.client();
      const templateId = Number(id);
      const name = label(olds.name, templateId);
      let view: TemplateDetailView;
      try {
        view = await client.getTemplate(templateId);
      } catch (err) {
        if (isGarmError(err, "not-found")) return deps.log.info(`${name}: already gone from GARM`);
        throw err;
      }
      if (view.owner === SYSTEM_OWNER) {
        deps.log.warn(`${name}: GARM id ${templateId} now holds its system template ${view.name}, which is left alone; treating this one as deleted`);
        return;
      }
      // Name every user before GARM refuses with a message that names none (database/sql/templates.go L265-267).
      await refuseWhileUsed(runnerGroupsWhere(client, (ref) => ref.templateId === templateId), inUseWords(name));
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

/** The caller's own template of that name; GARM's system templates are never adopted. */
async function findOwnByName(client: GarmClient, name: string): Promise<TemplateDetailView | undefined> {
  const all = await client.listTemplates(undefined, undefined, name);
  const own = all.filter((t) => sameTemplateName(t.name, name) && t.owner !== SYSTEM_OWNER);
  if (own.length === 0) {
    if (all.some((t) => sameTemplateName(t.name, name))) {
      throw new Error(
        `template ${JSON.stringify(name)} is a GARM system template, which a stack never manages or deletes; reference it by ` +
          "id in templateId instead, or give this GarmTemplate another name",
      );
    }
    return undefined;
  }
  return client.getTemplate(own[0]!.id);
}

/** Brings an adopted template to the inputs; its OS and forge type cannot change (params/requests.go L910-914). */
async function updateToMatch(client: GarmClient, inputs: CheckedTemplateInputs, existing: TemplateDetailView): Promise<TemplateOutputs> {
  if (existing.osType !== inputs.osType || existing.forgeType !== inputs.forgeType) {
    throw new Error(
      `cannot adopt template ${existing.name} (id ${existing.id}): it is for ${existing.forgeType} ${existing.osType}, not ` +
        `${inputs.forgeType} ${inputs.osType}, and GARM cannot change that in place; set osType and forgeType to match it, or choose another name`,
    );
  }
  const current = toTemplateOutputs(inputs, existing);
  const fields = changedTemplateFields(current, inputs as unknown as Record<string, unknown>);
  if (fields.length === 0) return current;
  return toTemplateOutputs(inputs, await client.updateTemplate(existing.id, templateUpdateBody(inputs, fields)));
}

export const template = templateProviderWith(defaultDeps);
