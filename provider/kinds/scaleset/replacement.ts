// A delete-first replacement (naming "exact" with a label or provider change: the new scale set takes the old one's
// name, so the old one goes first, §8) must not delete the team's scale set for a create that can be known to fail
// (issue 34 item 4b). The engine calls diff, then delete with the old outputs only, then create (pulumi-behaviour.md
// §2.3), all in one provider process (§2.1 of that page). So diff checks what the create needs and records the new
// inputs under the old scale set's GARM id, and delete checks them again, freshly read, before it sends anything.
//
// What is checked is what GARM's create refuses or what makes the scale set useless (§4.4): the entity resolves to
// exactly one organization, repository or enterprise; the provider is loaded (§9.3); the template exists and fits the
// OS and forge (GARM's findTemplate, runner/repositories.go L208-244); no other scale set of the entity holds the name.
// Not checked, because only GitHub knows: the runner group exists, and GitHub accepts the scale set.
import { isDeepStrictEqual } from "node:util";
import type { GarmClient } from "../../garm/client";
import type { Declarations } from "../../garm/lookups";
import { isGarmError } from "../../garm/errors";
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { liveName } from "../../runners/naming";
import { type TemplateForge, systemTemplateId } from "../../runners/templates";
import type { CheckedInputs } from "./inputs";

export type PreflightClient = Pick<GarmClient, "findEntities" | "getEntity" | "listProviders" | "listEntityScaleSets" | "getTemplate" | "listTemplates">;

/** The old scale set the replacement deletes first. */
export interface Replaced {
  readonly id: number;
  readonly liveName: string;
  readonly forgeType?: TemplateForge;
}

const ENTITY_KINDS = ["organization", "repository", "enterprise"] as const;

/**
 * Why the replacement's create would fail, one reason per problem; empty when nothing known says so. A value not known
 * yet (preview) is not checked: the check in delete, at `up`, sees every value. Read errors are thrown.
 */
export async function replacementBlockers(
  client: PreflightClient,
  props: Record<string, unknown>,
  old: Replaced,
  /**
   * At preview: the provider and entity names resources of this run declare (../../garm/lookups.ts), which GARM has
   * only once `up` made them. They are skipped then; delete, after those resources' steps, checks them in GARM.
   */
  declared?: Pick<Declarations, "isDeclaredProvider" | "isDeclaredEntity">,
): Promise<string[]> {
  const news = withoutProviderKey(props) as unknown as CheckedInputs;
  const reasons: string[] = [];
  const known = (v: unknown) => v !== undefined && !containsUnknown(v);

  let entity: { kind: (typeof ENTITY_KINDS)[number]; id: string } | undefined;
  if (known(news.entityId)) {
    entity = await entityById(client, news.entityId!);
    if (!entity) reasons.push(`entityId ${news.entityId} is not an organization, repository or enterprise known to GARM`);
  } else {
    const kind = ENTITY_KINDS.find((k) => news[k] !== undefined);
    const name = kind && news[kind];
    if (kind && known(name) && (news.endpoint === undefined || known(news.endpoint)) && !declared?.isDeclaredEntity(kind, name as string)) {
      const found = await client.findEntities(kind, name as string, news.endpoint);
      const where = news.endpoint ? ` under endpoint ${news.endpoint}` : "";
      if (found.length === 0) reasons.push(`${kind} ${name}${where} is not known to GARM`);
      else if (found.length > 1) {
        reasons.push(`${kind} ${name} exists under several GARM endpoints (${found.map((e) => e.endpoint).join(", ")}): set the endpoint input to choose one`);
      } else entity = { kind, id: found[0].id };
    }
  }

  if (known(news.providerName) && !declared?.isDeclaredProvider(news.providerName)) {
    const providers = await client.listProviders();
    if (!providers.some((p) => p.name === news.providerName)) {
      reasons.push(`providerName ${JSON.stringify(news.providerName)} is not a provider GARM has loaded (it has: ${providers.map((p) => p.name).join(", ") || "none"})`);
    }
  }

  const osType = news.osType ?? "linux";
  const forge: TemplateForge = old.forgeType ?? "github";
  if (known(news.templateId) && known(osType)) {
    try {
      const template = await client.getTemplate(news.templateId!);
      if (template.osType !== osType || template.forgeType !== forge) {
        reasons.push(`templateId ${news.templateId} is a ${template.forgeType} ${template.osType} template; this scale set needs a ${forge} ${osType} one`);
      }
    } catch (err) {
      if (!isGarmError(err, "not-found")) throw err;
      reasons.push(`templateId ${news.templateId} is not a template GARM has`);
    }
  } else if (news.templateId === undefined && known(osType)) {
    try {
      await systemTemplateId(client, forge, osType);
    } catch (err) {
      if (isGarmError(err)) throw err;
      reasons.push((err as Error).message);
    }
  }

  if (entity && !news.adoptExisting && [news.name, news.labels, news.providerName, news.naming].every((v) => !containsUnknown(v))) {
    const name = liveName(news.name, news.labels, news.providerName, news.naming === "exact" ? "exact" : "hashed");
    const holder = (await client.listEntityScaleSets(entity)).find((s) => s.name === name && s.id !== old.id);
    if (holder) reasons.push(`another scale set, GARM id ${holder.id}, already holds the name ${name} under this ${entity.kind}`);
  }
  return reasons;
}

async function entityById(client: PreflightClient, id: string): Promise<{ kind: (typeof ENTITY_KINDS)[number]; id: string } | undefined> {
  for (const kind of ENTITY_KINDS) {
    try {
      const found = await client.getEntity(kind, id);
      return { kind, id: found.id };
    } catch (err) {
      if (!isGarmError(err, "not-found") && !isGarmError(err, "bad-request")) throw err;
    }
  }
  return undefined;
}

/** The refusal: nothing was deleted, and why the create would fail. */
export function refusedReplacement(label: string, reasons: readonly string[], when: "preview" | "delete"): Error {
  const stage = when === "preview" ? "so this plan would delete it and then fail" : "so it was not deleted";
  return new Error(
    `${label}: this replacement deletes the scale set before it creates the new one (naming "exact" keeps the name), ` +
      `and GARM would refuse the new one: ${reasons.join("; ")}; ${stage}. Nothing was sent to GARM. Fix that, then run ` +
      "`pulumi up` again",
  );
}

/** A replacement diff planned: the old scale set's GARM id, its stored outputs, and the new inputs. */
export interface PlannedReplacement<Old> {
  readonly id: number;
  readonly old: Old;
  readonly news: Record<string, unknown>;
}

/**
 * The replacements diff planned in this process, by the old scale set's GARM id. Create takes out the entries of the
 * inputs it made (a create-first replacement, whose old generation it then retires, succession.ts), so one still held
 * when delete runs is a delete that comes first, whether the diff or the `deleteBeforeReplace` resource option asked
 * for it.
 */
export class PlannedReplacements<Old = unknown> {
  private readonly byId = new Map<number, PlannedReplacement<Old>>();

  record(id: number, news: Record<string, unknown>, old: Old): void {
    this.byId.set(id, { id, old, news: withoutProviderKey(news) });
  }

  /** A create of `props` ran: the replacements it makes, taken out (delete needs no check for them). */
  created(props: Record<string, unknown>): PlannedReplacement<Old>[] {
    const made = withoutProviderKey(props);
    const replaced = [...this.byId.values()].filter((r) => isDeepStrictEqual(r.news, made));
    for (const r of replaced) this.byId.delete(r.id);
    return replaced;
  }

  /** The new inputs of a replacement whose create has not run yet in this process, taken out. */
  take(id: number): Record<string, unknown> | undefined {
    const planned = this.byId.get(id);
    this.byId.delete(id);
    return planned?.news;
  }
}
