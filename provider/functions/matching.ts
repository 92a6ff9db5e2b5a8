// How a function finds the one object a program asked for among what one GARM answer holds, and the words it fails
// with: what was looked for, what GARM holds nearest to it, or where the several objects of that name live.
import { foldAscii } from "../garm/names";

/** A look-up that names nothing, or more than one thing. The message says what to give instead. */
export class LookupError extends Error {
  override readonly name = "LookupError";
}

export interface Matching<T> {
  /** What is looked for, for messages: "organization", "scale set". */
  readonly what: string;
  readonly nameOf: (item: T) => string;
  /** Names compare as GARM compares them (garm/names.ts). */
  readonly same: (a: string, b: string) => boolean;
  /** Where an item lives, for telling apart items of one name: "endpoint github.com". */
  readonly placeOf?: (item: T) => string;
  /** The arguments that tell items of one name apart: "endpoint". */
  readonly narrowWith?: string;
  /** The filters the program gave, for messages: `on endpoint "ghes"`. */
  readonly scope?: string;
  /** What else to try when nothing matches: "if it is a gitea endpoint, give forge: gitea". */
  readonly missHint?: string;
}

const NEAREST = 5;

/**
 * The one item of `held` named `asked` (after the program's filters: `inScope`), else a LookupError naming what GARM
 * holds nearest to it, among all of `held`, or the places of the several items of that name.
 */
export function pickOne<T>(asked: string, held: readonly T[], inScope: (item: T) => boolean, m: Matching<T>): T {
  const named = held.filter((item) => m.same(m.nameOf(item), asked));
  const found = named.filter(inScope);
  if (found.length === 1) return found[0]!;
  const scope = m.scope ? ` ${m.scope}` : "";
  if (found.length === 0) {
    const hint = m.missHint ? `; ${m.missHint}` : "";
    throw new LookupError(`GARM has no ${m.what} named "${asked}"${scope}; ${nearestText(asked, named.length > 0 ? named : held, m)}${hint}`);
  }
  const places = found.map((item) => describe(item, m)).join(", ");
  const narrow = m.narrowWith ? `: give ${m.narrowWith} to say which` : "";
  throw new LookupError(`GARM holds ${found.length} ${m.what}s named "${asked}"${scope} (${places})${narrow}`);
}

/** "nearest it holds: a (endpoint x), b (endpoint y)", or "it holds none". */
export function nearestText<T>(asked: string, held: readonly T[], m: Pick<Matching<T>, "what" | "nameOf" | "placeOf">): string {
  if (held.length === 0) return `it holds no ${m.what}`;
  const key = foldAscii(asked);
  const ranked = [...held]
    .map((item) => ({ item, distance: editDistance(key, foldAscii(m.nameOf(item))) }))
    .sort((a, b) => a.distance - b.distance || m.nameOf(a.item).localeCompare(m.nameOf(b.item)))
    .slice(0, NEAREST);
  const more = held.length > NEAREST ? ` (of ${held.length})` : "";
  return `nearest it holds${more}: ${ranked.map(({ item }) => describe(item, m)).join(", ")}`;
}

function describe<T>(item: T, m: Pick<Matching<T>, "nameOf" | "placeOf">): string {
  const place = m.placeOf?.(item);
  return place ? `${m.nameOf(item)} (${place})` : m.nameOf(item);
}

/** Levenshtein distance: how many one-character edits turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = row;
  }
  return previous[b.length]!;
}
