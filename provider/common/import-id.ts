// Import ids as GARM prints them, parsed strictly for every kind: `pulumi import` records the id it is given, so a
// second spelling of one object (` 3`, `3.0`, `0x3`, `+3`, `03`, `3e0`, which Number() reads as 3) would be a second
// id for it in Pulumi's state; each is refused with the form expected.

/** GARM's integer ids (sqlite's uint primary keys): decimal digits, no sign, no leading zero, at least 1. */
const DECIMAL = /^[1-9][0-9]*$/;
/** GARM's UUIDs as it prints them (8-4-4-4-12 hex); Go's uuid.Parse also reads braces, urn:uuid: and bare hex. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The integer an import id names; `what` names it in the message ("template id"), `listedBy` the command showing it. */
export function numericImportId(id: string, what: string, listedBy: string): number {
  const value = DECIMAL.test(id) ? Number(id) : NaN;
  if (Number.isSafeInteger(value)) return value;
  throw new Error(
    `${what} ${JSON.stringify(id)} is not a GARM id: give the number as ${listedBy} shows it, in decimal digits only ` +
      "(no sign, spaces, leading zeros, decimal point or hex), e.g. 3",
  );
}

/** The UUID an import id names, lower-cased as GARM prints it. */
export function uuidImportId(id: string, what: string, listedBy: string): string {
  if (UUID.test(id)) return id.toLowerCase();
  throw new Error(
    `${what} ${JSON.stringify(id)} is not a GARM id: give the UUID as ${listedBy} shows it, ` +
      "8-4-4-4-12 hex digits with no spaces, braces or prefix, e.g. 0b5a6f0e-2d7e-4a0e-8f5c-3c1d2a9b7e61",
  );
}
