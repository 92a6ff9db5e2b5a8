// Adopting an object GARM already holds under the resource's name (adoptExisting): find it the way the kind is keyed,
// refuse it when it differs in what GARM cannot change in place, say so in one line, and bring what GARM can change to
// the inputs. One flow for every kind that adopts by name; each kind says how it finds, refuses and updates.
import type { Logger } from "./log";

export interface AdoptByName<V, O> {
  /** GARM's object that holds the name, or undefined when none does. */
  find(): Promise<V | undefined>;
  /** Why `found` cannot become this resource (a field GARM cannot change in place); undefined when it can. */
  refusal?(found: V): string | undefined;
  /** The line saying what is adopted; a warning when adopting it may be a mistake. */
  announce(found: V): { readonly line: string; readonly warn?: boolean };
  /** Sends what differs from the inputs and returns the resource's outputs. */
  bringToInputs(found: V): Promise<O>;
}

export interface Adopted<V, O> {
  readonly found: V;
  readonly outs: O;
}

/** Adopts the object holding the name, or returns undefined when none does (the caller then creates it). */
export async function adoptByName<V, O>(flow: AdoptByName<V, O>, log: Logger): Promise<Adopted<V, O> | undefined> {
  const found = await flow.find();
  return found === undefined ? undefined : adoptFound(flow, found, log);
}

/** Adopts an object already found (by a look-up the caller needed anyway, or after a lost create answer). */
export async function adoptFound<V, O>(flow: Omit<AdoptByName<V, O>, "find">, found: V, log: Logger): Promise<Adopted<V, O>> {
  const refused = flow.refusal?.(found);
  if (refused !== undefined) throw new Error(refused);
  const { line, warn } = flow.announce(found);
  if (warn) log.warn(line);
  else log.info(line);
  return { found, outs: await flow.bringToInputs(found) };
}
