// Who may write a managed block: the owner it records, or the same resource under its previous owner (a renamed stack
// or resource); a block that records no owner (written before owners were recorded) goes to the first writer.
import type { GarmProviderOwner } from "./inputs";

export function sameOwner(a: GarmProviderOwner | undefined, b: GarmProviderOwner | undefined): boolean {
  return a !== undefined && b !== undefined && a.project === b.project && a.stack === b.stack && a.resource === b.resource;
}

/** e.g. `Pulumi project "garm-infra", stack "prod", resource "openstack"`. */
export function describeOwner(o: GarmProviderOwner): string {
  return `Pulumi project ${JSON.stringify(o.project)}, stack ${JSON.stringify(o.stack)}, resource ${JSON.stringify(o.resource)}`;
}

/**
 * The block's recorded owner when it is someone else's; undefined when the resource owned by `me` (formerly by
 * `previous`) may write the block.
 */
export function foreignOwner(
  recorded: GarmProviderOwner | undefined,
  me: GarmProviderOwner | undefined,
  previous?: GarmProviderOwner,
): GarmProviderOwner | undefined {
  if (!recorded || sameOwner(recorded, me) || sameOwner(recorded, previous)) return undefined;
  return recorded;
}

/** What to do about another owner's block, for messages. */
export const TAKE_OVER_HINT =
  'choose another name, or remove that resource from its stack first (if that stack no longer exists, delete the block\'s "# pulumi-garm owner:" line to take it over)';
