// Finds the GARM scale sets and pools that use something being deleted (a provider, a template); removing a provider
// they still name would leave them undrainable (garm-behaviour.md §9.3).

/** The scale-set fields the guard reads (a subset of the client's ScaleSetView). */
export interface ScaleSetRef {
  id: number;
  name: string;
  providerName: string;
  templateId?: number;
  entityName?: string;
  entity?: { kind?: string; name?: string; id?: string };
}

/** The pool fields the guard reads (a subset of the client's PoolView). */
export interface PoolRef {
  id: string;
  providerName: string;
  templateId?: number;
  entityName?: string;
}

export interface ProviderUser {
  kind: "scale set" | "pool";
  id: string;
  name?: string;
  entity: string;
}

export interface UsageSource {
  listScaleSets(): Promise<ScaleSetRef[]>;
  listPools(): Promise<PoolRef[]>;
}

function entityOf(ref: { entityName?: string; entity?: { kind?: string; name?: string; id?: string } }): string {
  if (ref.entity && (ref.entity.name || ref.entity.id)) {
    return `${ref.entity.kind ?? "entity"} ${ref.entity.name || ref.entity.id}`;
  }
  return ref.entityName ? ref.entityName : "unknown entity";
}

/** Every scale set and pool whose provider is `provider`, across all entities (not only this stack's). */
export function providerUsers(provider: string, source: UsageSource): Promise<ProviderUser[]> {
  return usersWhere((ref) => ref.providerName === provider, source);
}

/** Every scale set and pool, across all entities, that `uses` says uses the thing being deleted. */
export async function usersWhere(uses: (ref: ScaleSetRef | PoolRef) => boolean, source: UsageSource): Promise<ProviderUser[]> {
  const [scaleSets, pools] = await Promise.all([source.listScaleSets(), source.listPools()]);
  return [
    ...scaleSets.filter(uses).map((s): ProviderUser => ({ kind: "scale set", id: String(s.id), name: s.name, entity: entityOf(s) })),
    ...pools.filter(uses).map((p): ProviderUser => ({ kind: "pool", id: p.id, entity: entityOf(p) })),
  ];
}

/** e.g. `scale set "ci-small" (id 3, organization acme), pool 7f3c0e2a (acme/app)` */
export function describeUsers(users: ProviderUser[]): string {
  return users
    .map((u) => (u.name ? `${u.kind} "${u.name}" (id ${u.id}, ${u.entity})` : `${u.kind} ${u.id} (${u.entity})`))
    .join(", ");
}
