// One short clause for a failure quoted inside a longer message: a GARM error's request and answer without its remedy,
// which the surrounding message replaces with the one that fits.
import { GarmApiError } from "../garm/errors";

export function briefly(err: unknown): string {
  if (err instanceof GarmApiError) {
    const answer = [err.status, err.label].filter((part) => part !== undefined && part !== "").join(" ") || err.kind;
    return `${err.request} failed with ${answer}${err.details ? `: ${err.details}` : ""}`;
  }
  return err instanceof Error ? err.message : String(err);
}
