// What an SDK class hands pulumi.dynamic.Resource, from the registry row of its kind: Pulumi makes an Output only for
// a key the constructor passes, so every output the row lists goes in as a placeholder (undefined, which is not sent)
// unless the program gives it, and the row's secrets go in as Pulumi secrets and come back marked secret.
import * as pulumi from "@pulumi/pulumi";
import { type KindKey, kindRow } from "../../provider/registry/kinds";

/** The properties for `kind`: a placeholder per output, then `args`, with the kind's secret inputs wrapped. */
export function resourceInputs(kind: KindKey, args: object): Record<string, unknown> {
  const row = kindRow(kind);
  const inputs: Record<string, unknown> = { ...Object.fromEntries(row.outputs.map((key) => [key, undefined])), ...args };
  for (const key of row.secrets) if (inputs[key] !== undefined) inputs[key] = pulumi.secret(inputs[key]);
  return inputs;
}

/** `opts` with the kind's secrets added to its secret outputs. */
export function resourceOptions(kind: KindKey, opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions | undefined {
  const { secrets } = kindRow(kind);
  if (secrets.length === 0) return opts;
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secrets] };
}

/**
 * A class's arguments as the Outputs it exposes (each input comes back as GARM holds it). A class merges this with its
 * own declarations of the computed outputs: `export interface GarmPool extends InputsAsOutputs<GarmPoolArgs> {}`.
 */
export type InputsAsOutputs<A> = { readonly [K in keyof A]-?: pulumi.Output<pulumi.Unwrap<NonNullable<A[K]>>> };
