// Who made a scale set, as far as GARM lets anyone tell. GARM v0.2.1 keeps no free-form tag on a scale set, and
// extra_specs goes to the external provider, which may reject keys it does not know, so nothing is stored for this.
// What IS knowable:
// - a hashed live name (`<name>-<8 hex>`) whose hash equals generationHash(its labels, its provider) was made by
//   pulumi-garm with naming "hashed": by some stack, this one or another. Which stack is not recorded anywhere in GARM.
// - this stack's own scale sets are the ones in its state (GARM ids), and its partial creates are recorded as
//   `unconfirmed:<live name>` with whether the name was free before (unconfirmed.ts).
// What is not: a name without such a hash (naming "exact", garm-cli, another tool) says nothing about its maker, and a
// pulumi-garm scale set that is in no stack's state any more (a `pulumi state delete`) looks the same as a managed one.
import type { ScaleSetView } from "../../garm/client";
import { generationHash } from "../../runners/naming";

export type Maker = "pulumi-garm" | "unknown";

export function makerOf(view: Pick<ScaleSetView, "name" | "labels" | "providerName">): Maker {
  const match = /-([0-9a-f]{8})$/.exec(view.name);
  return match !== null && match[1] === generationHash(view.labels, view.providerName) ? "pulumi-garm" : "unknown";
}

/** A phrase for messages: what the name says about who made the scale set. */
export function makerPhrase(view: Pick<ScaleSetView, "name" | "labels" | "providerName">): string {
  return makerOf(view) === "pulumi-garm"
    ? "its name carries the hash pulumi-garm gives its labels and provider, so a pulumi-garm stack made it, most likely another stack that still manages it"
    : "its name does not show who made it (garm-cli, another tool, or a stack using naming \"exact\")";
}
