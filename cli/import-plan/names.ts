// Logical names for the plan: derived from GARM's names, unique, and the same for the same GARM whatever order its lists
// come in; a name two objects would share gets a suffix taken from each one's GARM id, never from its position.
import { importedInputs } from "../../provider/kinds/scaleset/import";
import { IMPORT_IDS, type Listed, importIdOf } from "./import-ids";

/** `Acme/App_1` → `acme-app-1`: lower case words joined by dashes, which every Pulumi language turns into an identifier. */
export function nameWords(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "unnamed";
}

/** What the object is called in GARM, before the kind's prefix. */
function garmWords(o: Listed): string {
  switch (o.kind) {
    case "endpoint":
    case "credentials":
      return o.ambiguous ? `${o.view.forge}-${o.view.name}` : o.view.name;
    case "organization":
    case "repository":
    case "enterprise":
    case "template":
    case "garmProvider":
      return o.view.name;
    case "pool":
      // Pools have no name in GARM: their entity and what they run.
      return `${o.view.entityName}-${o.view.image}-${o.view.flavor}`;
    case "scaleSet":
      // A hashed live name gives back the base name a program writes.
      return importedInputs(o.view).name;
    case "controller":
      return "";
  }
}

/** A short, stable part of the object's GARM id, told apart from its siblings'. */
function idSuffix(o: Listed, full: boolean): string {
  const id = o.kind === "endpoint" || o.kind === "credentials" ? `${o.view.forge}` : importIdOf(o);
  return nameWords(full || /^\d+$/.test(id) ? id : id.slice(0, 8));
}

/** One logical name per object, in the objects' order. */
export function logicalNames(objects: readonly Listed[]): string[] {
  const base = objects.map((o) => [IMPORT_IDS[o.kind].prefix, garmWords(o)].filter((w) => w !== "").map(nameWords).join("-"));
  let names = suffixClashes(base, (i) => `${base[i]}-${idSuffix(objects[i], false)}`);
  names = suffixClashes(names, (i) => `${base[i]}-${idSuffix(objects[i], true)}`);
  // Two objects alike down to their whole id (credentials of one name on one forge cannot be): number them by id.
  const order = objects.map((o, i) => i).sort((a, b) => importIdOf(objects[a]).localeCompare(importIdOf(objects[b])));
  const taken = new Set<string>();
  const final = [...names];
  for (const i of order) {
    let candidate = names[i];
    for (let n = 2; taken.has(candidate); n++) candidate = `${names[i]}-${n}`;
    taken.add(candidate);
    final[i] = candidate;
  }
  return final;
}

/** Renames every member of each group sharing a name, so no member keeps the bare name and the order does not matter. */
function suffixClashes(names: readonly string[], rename: (i: number) => string): string[] {
  const count = new Map<string, number>();
  for (const n of names) count.set(n, (count.get(n) ?? 0) + 1);
  return names.map((n, i) => (count.get(n)! > 1 ? rename(i) : n));
}
