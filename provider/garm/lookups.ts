// Read-mostly GARM facts shared by the operations of one provider process: the loaded providers and the entities.
// A `pulumi up` of many scale sets would otherwise ask GARM the same question once per resource.
import type { EntityKind, EntityRef, GarmClient, ProviderView, ScaleSetView } from "./client";
import { isGarmError } from "./errors";
import { SharedAnswers, perClient } from "./per-client";

interface ResolvedName {
  readonly id: string;
  readonly name: string;
  readonly endpoint: string;
}

type FoundById = ResolvedName & { kind: EntityKind };

/** What the lookups ask GARM. */
export type LookupSource = Pick<GarmClient, "listProviders" | "findEntities" | "listEntityScaleSets" | "getEntity">;

const ENTITY_KINDS: readonly EntityKind[] = ["organization", "repository", "enterprise"];
const ALL = "";

/**
 * Caches for one client. Concurrent callers share one request. Providers are trusted only when the cached list has the
 * name asked for: a GarmProvider may add one (and restart GARM) during the same run, so a miss is asked again.
 */
export class GarmLookups {
  private readonly providers = new SharedAnswers<ProviderView[]>();
  /** Kept when found: a run does not create entities, but one may be created meanwhile. */
  private readonly entities = new SharedAnswers<ResolvedName[]>((found) => found.length > 0);
  private readonly scaleSets = new SharedAnswers<ScaleSetView[]>();
  private readonly byId = new SharedAnswers<FoundById | undefined>((found) => found !== undefined);

  constructor(private readonly client: LookupSource) {}

  /**
   * The entity's scale sets as they were when first asked in this process: enough to spot generations that existed
   * before the run, never to decide whether a name is free.
   */
  scaleSetsAtStart(entity: EntityRef): Promise<ScaleSetView[]> {
    return this.scaleSets.get(`${entity.kind}\n${entity.id}`, () => this.client.listEntityScaleSets(entity));
  }

  /** GARM's providers, fresh unless a cached answer already lists `name`. */
  async providersIncluding(name: string): Promise<ProviderView[]> {
    const held = this.providers.peek(ALL);
    if (held) {
      const cached = await held.catch(() => undefined);
      if (cached?.some((p) => p.name === name)) return cached;
    }
    return this.providers.renew(ALL, () => this.client.listProviders());
  }

  /** Entities by exact name; cached for the process, since a run does not create entities. Empty answers are not kept. */
  findEntities(kind: EntityKind, name: string, endpoint?: string): Promise<ResolvedName[]> {
    return this.entities.get(`${kind}\n${name}\n${endpoint ?? ""}`, () => this.client.findEntities(kind, name, endpoint));
  }

  /**
   * The organization, repository or enterprise with this id, or undefined when GARM has none (one GET per kind until
   * found, §2.4). Found entities are cached for the process; a miss is asked again, as an entity may be created meanwhile.
   */
  entityById(id: string): Promise<FoundById | undefined> {
    return this.byId.get(id, () => this.askById(id));
  }

  private async askById(id: string): Promise<FoundById | undefined> {
    for (const kind of ENTITY_KINDS) {
      try {
        const entity = await this.client.getEntity(kind, id);
        return { kind, id: entity.id, name: entity.name, endpoint: entity.endpoint };
      } catch (err) {
        if (!isGarmError(err, "not-found")) throw err;
      }
    }
    return undefined;
  }
}

/** The lookups shared by everything using this client. */
export const lookupsFor: (client: LookupSource) => GarmLookups = perClient((client: LookupSource) => new GarmLookups(client));

/**
 * Provider names the GarmProviders of this run declare, recorded by their check. GARM loads a provider only when one is
 * created at `up`, so during preview a scale set naming it would look like it names a provider GARM lacks. Both
 * resource types run in one provider process, and Pulumi checks a GarmProvider before a scale set that uses its name.
 */
const declaredProviders = new Set<string>();

export function declareProvider(name: string): void {
  declaredProviders.add(name);
}

export function isDeclaredProvider(name: string): boolean {
  return declaredProviders.has(name);
}

/**
 * Entity names the GarmOrganization, GarmRepository and GarmEnterprise resources of this run declare, recorded by their
 * check, so a scale set naming one that `up` has yet to create is not refused at preview (scaleset/references.ts).
 */
const declaredEntities = new Set<string>();

export function declareEntity(kind: EntityKind, name: string): void {
  declaredEntities.add(`${kind}\n${name}`);
}

export function isDeclaredEntity(kind: EntityKind, name: string): boolean {
  return declaredEntities.has(`${kind}\n${name}`);
}
