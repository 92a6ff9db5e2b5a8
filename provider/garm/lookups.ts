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
 * Provider and entity names the resources of this run declare for one GARM, recorded by their check. GARM loads a
 * provider only when a GarmProvider is created at `up`, and an entity exists only once `up` creates it, so during preview
 * a scale set naming one would look like it names something GARM lacks; Pulumi checks those resources before a scale set
 * that uses their names. The names are kept per client (one per connection): with two GARMs in one plugin, a name
 * declared for one must not skip the other's check.
 */
export class Declarations {
  private readonly providers = new Set<string>();
  private readonly entities = new Set<string>();

  declareProvider(name: string): void {
    this.providers.add(name);
  }

  isDeclaredProvider(name: string): boolean {
    return this.providers.has(name);
  }

  declareEntity(kind: EntityKind, name: string): void {
    this.entities.add(`${kind}\n${name}`);
  }

  isDeclaredEntity(kind: EntityKind, name: string): boolean {
    return this.entities.has(`${kind}\n${name}`);
  }
}

const declarationsByClient = new WeakMap<object, Declarations>();

/** The names declared for the GARM this client reaches. */
export function declarationsFor(client: object): Declarations {
  let declarations = declarationsByClient.get(client);
  if (!declarations) {
    declarations = new Declarations();
    declarationsByClient.set(client, declarations);
  }
  return declarations;
}

/**
 * Records a declaration for the GARM `client` reaches. Without connection settings nothing is recorded: the reference
 * checks then ask nothing either.
 */
export function declareFor(client: () => object, record: (declarations: Declarations) => void): void {
  let reached: object;
  try {
    reached = client();
  } catch {
    return;
  }
  record(declarationsFor(reached));
}
