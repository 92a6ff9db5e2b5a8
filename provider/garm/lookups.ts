// Read-mostly GARM facts shared by the operations of one provider process: the loaded providers and the entities.
// A `pulumi up` of many scale sets would otherwise ask GARM the same question once per resource.
import type { EntityKind, EntityRef, GarmClient, ProviderView, ScaleSetView } from "./client";
import { isGarmError } from "./errors";

interface ResolvedName {
  readonly id: string;
  readonly name: string;
  readonly endpoint: string;
}

/** What the lookups ask GARM. */
export type LookupSource = Pick<GarmClient, "listProviders" | "findEntities" | "listEntityScaleSets" | "getEntity">;

const ENTITY_KINDS: readonly EntityKind[] = ["organization", "repository", "enterprise"];

/**
 * Caches for one client. Concurrent callers share one request. Providers are trusted only when the cached list has the
 * name asked for: a GarmProvider may add one (and restart GARM) during the same run, so a miss is asked again.
 */
export class GarmLookups {
  private providers: Promise<ProviderView[]> | undefined;
  private readonly entities = new Map<string, Promise<ResolvedName[]>>();
  private readonly scaleSets = new Map<string, Promise<ScaleSetView[]>>();
  private readonly byId = new Map<string, Promise<(ResolvedName & { kind: EntityKind }) | undefined>>();

  constructor(private readonly client: LookupSource) {}

  /**
   * The entity's scale sets as they were when first asked in this process: enough to spot generations that existed
   * before the run, never to decide whether a name is free.
   */
  scaleSetsAtStart(entity: EntityRef): Promise<ScaleSetView[]> {
    const key = `${entity.kind}\n${entity.id}`;
    let pending = this.scaleSets.get(key);
    if (!pending) {
      pending = this.client.listEntityScaleSets(entity);
      this.scaleSets.set(key, pending);
      pending.catch(() => this.scaleSets.delete(key));
    }
    return pending;
  }

  /** GARM's providers, fresh unless a cached answer already lists `name`. */
  async providersIncluding(name: string): Promise<ProviderView[]> {
    if (this.providers) {
      const cached = await this.providers.catch(() => undefined);
      if (cached?.some((p) => p.name === name)) return cached;
    }
    const pending = this.client.listProviders();
    this.providers = pending;
    pending.catch(() => {
      if (this.providers === pending) this.providers = undefined;
    });
    return pending;
  }

  /** Entities by exact name; cached for the process, since a run does not create entities. Empty answers are not kept. */
  findEntities(kind: EntityKind, name: string, endpoint?: string): Promise<ResolvedName[]> {
    return keptWhenFound(this.entities, `${kind}\n${name}\n${endpoint ?? ""}`, () => this.client.findEntities(kind, name, endpoint), (l) => l.length > 0);
  }

  /**
   * The organization, repository or enterprise with this id, or undefined when GARM has none (one GET per kind until
   * found, §2.4). Found entities are cached for the process; a miss is asked again, as an entity may be created meanwhile.
   */
  entityById(id: string): Promise<(ResolvedName & { kind: EntityKind }) | undefined> {
    return keptWhenFound(this.byId, id, () => this.askById(id), (found) => found !== undefined);
  }

  private async askById(id: string): Promise<(ResolvedName & { kind: EntityKind }) | undefined> {
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

/**
 * One shared request per key: concurrent callers get the same answer, which stays cached only when `found` says it
 * found something; a miss or a failure is asked again next time.
 */
async function keptWhenFound<T>(cache: Map<string, Promise<T>>, key: string, ask: () => Promise<T>, found: (value: T) => boolean): Promise<T> {
  let pending = cache.get(key);
  if (!pending) {
    pending = ask();
    cache.set(key, pending);
  }
  try {
    const value = await pending;
    if (!found(value)) cache.delete(key);
    return value;
  } catch (err) {
    cache.delete(key);
    throw err;
  }
}

const byClient = new WeakMap<object, GarmLookups>();

/** The lookups shared by everything using this client. */
export function lookupsFor(client: LookupSource): GarmLookups {
  let lookups = byClient.get(client);
  if (!lookups) {
    lookups = new GarmLookups(client);
    byClient.set(client, lookups);
  }
  return lookups;
}

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
