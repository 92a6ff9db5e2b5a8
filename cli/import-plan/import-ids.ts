// The one table of what import-plan writes per kind: the plugin token, the id `pulumi import` takes, the prefix of the
// logical name, and whether the kind's importer has landed. Adjust an id form here and nowhere else.
import type { CredentialsView, EndpointView, EntityKind, EntityView, PoolView, ProviderView, ScaleSetView, TemplateView } from "../../provider/garm/client";
import { type KindKey, kindRow, tokenOf } from "../../provider/registry/kinds";

/** Every object import-plan can list, as GARM's list answers give it. */
export type Listed =
  | { readonly kind: "endpoint"; readonly view: EndpointView; readonly ambiguous: boolean }
  | { readonly kind: "credentials"; readonly view: CredentialsView; readonly ambiguous: boolean }
  | { readonly kind: EntityKind; readonly view: EntityView }
  | { readonly kind: "template"; readonly view: TemplateView }
  | { readonly kind: "pool"; readonly view: PoolView }
  | { readonly kind: "scaleSet"; readonly view: ScaleSetView }
  | { readonly kind: "garmProvider"; readonly view: ProviderView }
  | { readonly kind: "controller"; readonly view: { readonly controllerId: string } };

export type ListedKind = Listed["kind"];

interface IdForm<K extends ListedKind> {
  /** The id `pulumi import <token> <name> <id>` takes for the object. */
  readonly id: (o: Listed & { readonly kind: K }) => string;
  /** The first word of the object's logical name. */
  readonly prefix: string;
  /** False while the kind's importer is still to land (the plugin answers "not importable" until then). */
  readonly importer: boolean;
}

/** `forge/name` only where GitHub and Gitea both hold the name, as the endpoint importer asks. */
const forgeQualified = (o: { view: { forge: string; name: string }; ambiguous: boolean }) => (o.ambiguous ? `${o.view.forge}/${o.view.name}` : o.view.name);

export const IMPORT_IDS: { readonly [K in ListedKind]: IdForm<K> } = {
  endpoint: { id: forgeQualified, prefix: "endpoint", importer: true },
  // Assumed until the credentials importer lands: by name, forge-qualified where both forges hold it.
  credentials: { id: forgeQualified, prefix: "credentials", importer: false },
  organization: { id: (o) => o.view.id, prefix: "org", importer: false },
  repository: { id: (o) => o.view.id, prefix: "repo", importer: false },
  enterprise: { id: (o) => o.view.id, prefix: "enterprise", importer: false },
  template: { id: (o) => String(o.view.id), prefix: "template", importer: true },
  pool: { id: (o) => o.view.id, prefix: "pool", importer: true },
  scaleSet: { id: (o) => String(o.view.id), prefix: "scaleset", importer: true },
  garmProvider: { id: (o) => o.view.name, prefix: "provider", importer: false },
  controller: { id: (o) => o.view.controllerId, prefix: "controller", importer: true },
};

/** The registry key of a listed kind (entities are one registry row per entity kind). */
export function registryKey(kind: ListedKind): KindKey {
  return kind;
}

/** `garm:index:GarmScaleSet` etc.: the plugin token `pulumi import --file` takes. */
export function tokenFor(kind: ListedKind): string {
  return tokenOf(kindRow(registryKey(kind)));
}

export function importIdOf(o: Listed): string {
  return (IMPORT_IDS[o.kind] as IdForm<ListedKind>).id(o);
}
