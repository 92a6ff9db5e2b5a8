// The plan: GARM's objects as Pulumi's bulk import file (`pulumi import --file`), every object or those under chosen
// entities. GARM's own objects (its system templates and default github.com endpoint) are left for programs to refer to.
import type { EntityKind } from "../../provider/garm/client";
import { sameEndpointName, sameEntityName } from "../../provider/garm/names";
import { DEFAULT_ENDPOINT } from "../../provider/kinds/endpoint/inputs";
import { SYSTEM_OWNER } from "../../provider/kinds/template/state";
import { type Listed, type ListedKind, importIdOf, planned, tokenFor } from "./import-ids";
import type { Inventory } from "./inventory";
import { logicalNames } from "./names";

/** One entry of the import file's `resources` (Pulumi v3.248.0 pkg/cmd/pulumi/operations/import.go, importSpec). */
export interface ImportSpec {
  readonly type: string;
  readonly name: string;
  readonly id: string;
  /** The logical name of the entry this one uses (its `parent`), so a destroy deletes this one first. */
  readonly parent?: string;
}

export interface ImportFile {
  readonly resources: ImportSpec[];
}

/** Entities chosen by name (repositories as owner/name) or GARM id; none chosen means the whole GARM. */
export type Selection = { readonly [K in EntityKind]?: readonly string[] };

/** One object of the plan: what GARM listed and the entry of the import file naming it. */
export interface PlanEntry {
  readonly object: Listed;
  readonly spec: ImportSpec;
}

export interface Plan {
  readonly file: ImportFile;
  /** The file's entries with the objects behind them, in the same order: what the TypeScript writer declares. */
  readonly entries: PlanEntry[];
  /**
   * Kinds of the GARM the file leaves out: with no importer in this version (`pulumi import --file` would refuse the
   * whole file for one such entry), or provider entries when GARM's config file was not given. The entries keep them,
   * for the TypeScript writer's comments.
   */
  readonly waiting: ListedKind[];
  /** GARM's own objects the plan leaves out, for the progress lines. */
  readonly referenced: string[];
}

const isDefaultEndpoint = (e: { forge: string; name: string }) => e.forge === "github" && sameEndpointName(e.name, DEFAULT_ENDPOINT);

/** The objects to import, in the order a program declares them (what is referred to first). */
export function selectObjects(inv: Inventory, selection: Selection = {}, garmConfigPath?: string): { objects: Listed[]; referenced: string[] } {
  const chosen = chosenEntities(inv, selection);
  const under = (entity: { id: string } | undefined) => chosen === undefined || (entity !== undefined && chosen.has(entity.id));
  const entities = inv.entities.filter((e) => under(e.view));
  const pools = inv.pools.filter((p) => under(p.entity));
  const scaleSets = inv.scaleSets.filter((s) => under(s.entity));
  const runners = [...pools, ...scaleSets];
  const usedTemplates = new Set(runners.map((r) => r.templateId));
  const usedProviders = new Set(runners.map((r) => r.providerName));
  const usedCredentials = new Set(entities.map((e) => `${e.view.endpoint}\n${e.view.credentials}`));
  const usedEndpoints = new Set(entities.map((e) => e.view.endpoint));

  const referenced: string[] = [];
  const endpoints = inv.endpoints.filter((e) => {
    if (isDefaultEndpoint(e)) return void referenced.push(`GARM's default endpoint ${e.name}`), false;
    return chosen === undefined || usedEndpoints.has(e.name);
  });
  const templates = inv.templates.filter((t) => {
    if (t.owner === SYSTEM_OWNER) return void referenced.push(`system template ${t.name} (id ${t.id})`), false;
    return chosen === undefined || usedTemplates.has(t.id);
  });
  const credentials = inv.credentials.filter((c) => chosen === undefined || usedCredentials.has(`${c.endpoint}\n${c.name}`));
  const providers = inv.providers.filter((p) => chosen === undefined || usedProviders.has(p.name));
  const twice = (list: { name: string }[]) => (name: string) => list.filter((x) => x.name === name).length > 1;
  const endpointTwice = twice(inv.endpoints);
  const credentialsTwice = twice(inv.credentials);

  const objects: Listed[] = [
    ...endpoints.map((view) => ({ kind: "endpoint" as const, view, ambiguous: endpointTwice(view.name) })),
    ...credentials.map((view) => ({ kind: "credentials" as const, view, ambiguous: credentialsTwice(view.name) })),
    ...providers.map((view) => ({ kind: "garmProvider" as const, view, ...(garmConfigPath !== undefined ? { garmConfigPath } : {}) })),
    ...templates.map((view) => ({ kind: "template" as const, view })),
    ...entities.map(({ kind, view }) => ({ kind, view })),
    ...pools.map((view) => ({ kind: "pool" as const, view })),
    ...scaleSets.map((view) => ({ kind: "scaleSet" as const, view })),
    ...(chosen === undefined && inv.controller.controllerId ? [{ kind: "controller" as const, view: inv.controller }] : []),
  ];
  return { objects, referenced };
}

/** The import file for `inv` (the importable objects) and every object behind it; throws naming the flag when a chosen entity is not in GARM. */
export function buildPlan(inv: Inventory, selection: Selection = {}, garmConfigPath?: string): Plan {
  const { objects, referenced } = selectObjects(inv, selection, garmConfigPath);
  const names = logicalNames(objects);
  const parents = parentsOf(objects);
  const entries = objects.map((object, i) => {
    const parent = parents[i];
    return { object, spec: { type: tokenFor(object.kind), name: names[i], id: importIdOf(object), ...(parent !== undefined && planned(objects[parent]) ? { parent: names[parent] } : {}) } };
  });
  const waiting = [...new Set(objects.filter((o) => !planned(o)).map((o) => o.kind))];
  return { file: { resources: entries.filter((e) => planned(e.object)).map((e) => e.spec) }, entries, waiting, referenced };
}

/**
 * The object each one uses, by index, as its parent in the import file: credentials their endpoint, an entity its
 * credentials, a pool or scale set its entity. Pulumi's `import --file` codegen writes references only while no two
 * imported objects share a name (two organizations acme under two endpoints, GitHub and Gitea credentials of one name):
 * each one's `name` would refer to the other's, and on that circular reference it writes the whole program with no
 * reference at all (pkg/importer/language.go GenerateLanguageDefinitions, pulumi-behaviour.md §2.6). A parent is kept
 * either way, and Pulumi deletes children before their parent, so one `pulumi destroy` goes in GARM's order.
 */
function parentsOf(objects: readonly Listed[]): (number | undefined)[] {
  const find = (match: (o: Listed) => boolean) => {
    const found = objects.findIndex(match);
    return found < 0 ? undefined : found;
  };
  return objects.map((o) => {
    switch (o.kind) {
      case "credentials":
        return find((e) => e.kind === "endpoint" && e.view.forge === o.view.forge && sameEndpointName(e.view.name, o.view.endpoint));
      case "organization":
      case "repository":
      case "enterprise":
        return find((c) => c.kind === "credentials" && c.view.name === o.view.credentials && sameEndpointName(c.view.endpoint, o.view.endpoint));
      case "pool":
      case "scaleSet": {
        const entityId = o.view.entity?.id;
        return entityId === undefined ? undefined : find((e) => (e.kind === "organization" || e.kind === "repository" || e.kind === "enterprise") && e.view.id === entityId);
      }
      default:
        return undefined;
    }
  });
}

const FLAG: Record<EntityKind, string> = { organization: "--org", repository: "--repo", enterprise: "--enterprise" };

/** The GARM ids of the chosen entities, or undefined when none were chosen. */
function chosenEntities(inv: Inventory, selection: Selection): Set<string> | undefined {
  const asked = (Object.entries(selection) as [EntityKind, readonly string[]][]).filter(([, l]) => l.length > 0);
  if (asked.length === 0) return undefined;
  const ids = new Set<string>();
  for (const [kind, wanted] of asked) {
    for (const want of wanted) {
      const found = inv.entities.filter((e) => e.kind === kind && (e.view.id.toLowerCase() === want.toLowerCase() || sameEntityName(e.view.name, want)));
      if (found.length === 0) throw new Error(`${FLAG[kind]} ${want}: GARM has no ${kind} of that name or id (garm-cli ${kind === "organization" ? "org" : kind === "repository" ? "repo" : kind} list shows them)`);
      if (found.length > 1) {
        throw new Error(`${FLAG[kind]} ${want}: GARM has ${found.length} ${kind}s of that name on endpoints ${found.map((e) => e.view.endpoint).join(", ")}: give the GARM id of the one you mean`);
      }
      ids.add(found[0].view.id);
    }
  }
  return ids;
}
