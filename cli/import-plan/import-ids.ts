// The one table of what import-plan writes per kind: the plugin token, the id `pulumi import` takes, the prefix of the
// logical name. Adjust an id form here and nowhere else; whether a kind imports at all is the registry's `importable`.
import type { ControllerView, CredentialsView, EndpointView, EntityKind, EntityView, PoolView, ProviderView, ScaleSetView, TemplateView } from "../../provider/garm/client";
import { type KindKey, kindRow, tokenOf } from "../../provider/registry/kinds";
import { credentialsImportId } from "../../provider/kinds/credentials/import";
import { entityImportId } from "../../provider/kinds/entity/import";
import { garmProviderId } from "../../provider/kinds/garm-provider/import";

/** Every object import-plan can list, as GARM's list answers give it. */
export type Listed =
  | { readonly kind: "endpoint"; readonly view: EndpointView; readonly ambiguous: boolean }
  | { readonly kind: "credentials"; readonly view: CredentialsView; readonly ambiguous: boolean }
  | { readonly kind: EntityKind; readonly view: EntityView }
  | { readonly kind: "template"; readonly view: TemplateView }
  | { readonly kind: "pool"; readonly view: PoolView }
  | { readonly kind: "scaleSet"; readonly view: ScaleSetView }
  /** `garmConfigPath` is the file GARM loaded it from (`--garm-config`): GARM's API does not say which. */
  | { readonly kind: "garmProvider"; readonly view: ProviderView; readonly garmConfigPath?: string }
  | { readonly kind: "controller"; readonly view: ControllerView };

export type ListedKind = Listed["kind"];

interface IdForm<K extends ListedKind> {
  /** The id `pulumi import <token> <name> <id>` takes for the object. */
  readonly id: (o: Listed & { readonly kind: K }) => string;
  /** The first word of the object's logical name. */
  readonly prefix: string;
}

/** `forge/name` only where GitHub and Gitea both hold the name, as the endpoint importer asks. */
const forgeQualified = (o: { view: { forge: string; name: string }; ambiguous: boolean }) => (o.ambiguous ? `${o.view.forge}/${o.view.name}` : o.view.name);

export const IMPORT_IDS: { readonly [K in ListedKind]: IdForm<K> } = {
  endpoint: { id: forgeQualified, prefix: "endpoint" },
  // The importers' own forms: <forge>/<id> for credentials (each forge numbers its own), the GARM id for entities.
  credentials: { id: (o) => credentialsImportId(o.view), prefix: "credentials" },
  organization: { id: (o) => entityImportId(o.view), prefix: "org" },
  repository: { id: (o) => entityImportId(o.view), prefix: "repo" },
  enterprise: { id: (o) => entityImportId(o.view), prefix: "enterprise" },
  template: { id: (o) => String(o.view.id), prefix: "template" },
  pool: { id: (o) => o.view.id, prefix: "pool" },
  scaleSet: { id: (o) => String(o.view.id), prefix: "scaleset" },
  // The entry is read from GARM's config file: without the file the name alone, which the plan leaves out (planned).
  garmProvider: { id: (o) => (o.garmConfigPath ? garmProviderId(o.garmConfigPath, o.view.name) : o.view.name), prefix: "provider" },
  controller: { id: (o) => o.view.controllerId, prefix: "controller" },
};

/** The registry key of a listed kind (entities are one registry row per entity kind). */
export function registryKey(kind: ListedKind): KindKey {
  return kind;
}

/** `garm:index:GarmScaleSet` etc.: the plugin token `pulumi import --file` takes. */
export function tokenFor(kind: ListedKind): string {
  return tokenOf(kindRow(registryKey(kind)));
}

/** The plugin serves `pulumi import` for the kind (until then it answers "not importable"). */
export function hasImporter(kind: ListedKind): boolean {
  return kindRow(registryKey(kind)).importable === true;
}

/** The object goes into the import file: its kind has an importer, and a provider entry's config file is known. */
export function planned(o: Listed): boolean {
  return hasImporter(o.kind) && (o.kind !== "garmProvider" || o.garmConfigPath !== undefined);
}

export function importIdOf(o: Listed): string {
  return (IMPORT_IDS[o.kind] as IdForm<ListedKind>).id(o);
}
