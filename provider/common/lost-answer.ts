// A create whose answer was lost, for every kind: the POST went out and no answer came back, so GARM may or may not
// have carried it out. Pulumi keeps nothing of a failed create (pulumi-behaviour.md §2.8), so a create that
// landed unseen would be made a second time by the next `up` and the first would be left unmanaged. The flow: look for
// what only this create can have made (each kind says how it recognises that), use it when found, send once more when
// the kind allows and it was not found, and otherwise fail with the kind's error: a partial create recorded under an
// unconfirmed id (below), which read, update and delete settle later, or a plain failure.
import { isGarmError } from "../garm/errors";
import type { Logger } from "./log";

const UNCONFIRMED = "unconfirmed:";

/** The Pulumi id of a create whose outcome is unknown: never numeric and never a UUID, so it cannot pass for GARM's. */
export function unconfirmedId(key: string): string {
  return `${UNCONFIRMED}${key}`;
}

export function isUnconfirmedId(id: string): boolean {
  return id.startsWith(UNCONFIRMED);
}

/**
 * A create failure that Pulumi records anyway (a partial create): the resource is kept under `id` with `properties`,
 * and the next `up` calls update on it instead of create; `reason` is what the state keeps as its init error.
 */
export function partialCreate(message: string, id: string, properties: Record<string, unknown>, reason = message): Error {
  return Object.assign(new Error(message), { id, properties, reasons: [reason] });
}

export interface LostAnswerCreate<V> {
  /** How log lines name the resource, e.g. "GarmPool (under organization acme)". */
  readonly label: string;
  /** Sends the create. */
  post(): Promise<V>;
  /** What GARM holds that only this create can have made; undefined when it holds nothing of the kind. */
  landed(): Promise<V | undefined>;
  /** How the log line names what was found, e.g. "id 4". */
  describe(found: V): string;
  /** Whether to send the create once more when the look-up found nothing. */
  readonly resend: boolean;
  /** The error a refused create means, checked before the outcome; undefined to go on. */
  refused?(err: unknown): Promise<Error | undefined>;
  /**
   * The error when the outcome stays unknown: the create's failure, the look-up's when it failed too, and what was
   * tried to confirm it ("looking it up failed too").
   */
  unsettled(failure: { readonly create: unknown; readonly lookup?: unknown }, confirming: string): Error;
  /** The error for any other failure of the create. @default the failure itself */
  failed?(err: unknown): Error;
}

export interface CreateOutcome<V> {
  readonly view: V;
  /** True when the create's answer was lost and `view` was found by the look-up. */
  readonly found: boolean;
}

/** Sends the create and settles a lost answer as the kind says (see the file's opening). */
export async function createSettlingLostAnswer<V>(create: LostAnswerCreate<V>, log: Logger): Promise<CreateOutcome<V>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { view: await create.post(), found: false };
    } catch (err) {
      const refused = await create.refused?.(err);
      if (refused) throw refused;
      if (!isGarmError(err) || !err.outcomeUnknown) throw create.failed ? create.failed(err) : err;
      let landed: V | undefined;
      try {
        landed = await create.landed();
      } catch (lookupErr) {
        throw create.unsettled({ create: err, lookup: lookupErr }, "looking it up failed too");
      }
      if (landed !== undefined) {
        log.warn(`${create.label}: GARM's answer to the create was lost, but GARM has it (${create.describe(landed)}); continuing with it`);
        return { view: landed, found: true };
      }
      if (!create.resend) throw create.unsettled({ create: err }, "it was not found afterwards");
      if (attempt === 2) throw create.unsettled({ create: err }, "so did sending it again after it was not found");
    }
  }
}
