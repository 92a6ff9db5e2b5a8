// Whether the object GARM holds under a stored id is the one the state describes. An id alone never says so: sqlite's
// counters come back with a restored database file, so a deleted object's integer id is handed to the next object
// of its kind, whoever makes it; and GARM numbers GitHub and Gitea credentials in separate tables. Every kind names the
// fields that identify its objects (what no update of this resource changes, or what the state follows), and read,
// update and delete treat a holder that differs in any of them as someone else's: dropped from the stack, never
// changed, never deleted.

/** The identifying fields of one object, already in the form GARM compares them (e.g. UUIDs lower-cased). */
export type Identity = Readonly<Record<string, string | number | undefined>>;

/**
 * The identifying fields in which `held` differs from `recorded`. A field the state never recorded (undefined or "",
 * state written before it was kept) is not compared.
 */
export function identityMismatch(recorded: Identity, held: Identity): string[] {
  return Object.keys(recorded).filter((field) => {
    const want = recorded[field];
    return want !== undefined && want !== "" && want !== held[field];
  });
}

export function isOurHolder(recorded: Identity, held: Identity): boolean {
  return identityMismatch(recorded, held).length === 0;
}

/**
 * The lines for a holder that is not ours. `label` names this resource ("GarmTemplate ci (id 5)"), `holder` the other
 * object ("GARM id 5 now holds template other of user bob").
 */
export const notOurs = {
  /** Refresh drops this resource, as if deleted outside Pulumi; the holder is not touched. */
  dropped: (label: string, holder: string) => `${label}: ${holder}, not this one; dropping this one from the stack as gone`,
  /** Update changes nothing. */
  refused: (label: string, holder: string) =>
    `${label}: ${holder}, not this one; nothing was changed. Run \`pulumi refresh\` to drop this one from the stack, then \`pulumi up\` creates it again`,
  /** Delete deletes nothing. */
  leftAlone: (label: string, holder: string) => `${label}: ${holder}, not this one; treating this one as already deleted and leaving that one alone`,
};
