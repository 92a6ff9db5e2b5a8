// What an SDK class hands pulumi.dynamic.Resource, from the registry row of its kind: Pulumi makes an Output only for
// a key the constructor passes, so every output the row lists goes in as a placeholder (undefined, which is not sent)
// unless the program gives it, and the row's secrets go in as Pulumi secrets and come back marked secret.
import * as pulumi from "@pulumi/pulumi";
import { GARM_INPUT, IMPORT_INPUT, RETAIN_INPUT, type KindKey, kindRow } from "../../provider/registry/kinds";

/**
 * The properties for `kind`: a placeholder per output, then `args`, with the kind's secret inputs wrapped. An `import`
 * option's id goes in as an input: the dynamic provider cannot be reached by Pulumi's own import, so its create adopts
 * the object instead (provider/dynamic-import.ts). A `retainOnDelete` option goes in too, for create to know
 * (provider/common/option-inputs.ts).
 */
export function resourceInputs(kind: KindKey, args: object, opts?: pulumi.CustomResourceOptions): Record<string, unknown> {
  const row = kindRow(kind);
  const inputs: Record<string, unknown> = { ...Object.fromEntries(row.outputs.map((key) => [key, undefined])), ...args };
  for (const key of row.secrets) if (inputs[key] !== undefined) inputs[key] = pulumi.secret(inputs[key]);
  // A resource's own GARM (sdk/nodejs/garm-connection.ts) holds a password: all of it is kept encrypted.
  if (inputs[GARM_INPUT] !== undefined) inputs[GARM_INPUT] = pulumi.secret(inputs[GARM_INPUT]);
  if (opts?.import !== undefined) inputs[IMPORT_INPUT] = opts.import;
  if (opts?.retainOnDelete === true) inputs[RETAIN_INPUT] = true;
  return inputs;
}

/**
 * `opts` without the `import` option (resourceInputs carries it), and with the kind's secrets (and the resource's own
 * GARM connection, when `args` give one) added to its secret outputs.
 */
export function resourceOptions(kind: KindKey, opts: pulumi.CustomResourceOptions | undefined, args?: object): pulumi.CustomResourceOptions | undefined {
  const secrets: string[] = [...kindRow(kind).secrets];
  if (args && (args as Record<string, unknown>)[GARM_INPUT] !== undefined) secrets.push(GARM_INPUT);
  const { import: _carriedAsInput, ...rest } = opts ?? {};
  if (secrets.length === 0) return opts?.import === undefined ? opts : rest;
  return { ...rest, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secrets] };
}

/**
 * A class's arguments as the Outputs it exposes (each input comes back as GARM holds it). A class merges this with its
 * own declarations of the computed outputs: `export interface GarmPool extends InputsAsOutputs<GarmPoolArgs> {}`.
 */
export type InputsAsOutputs<A> = { readonly [K in Exclude<keyof A, typeof GARM_INPUT>]-?: pulumi.Output<pulumi.Unwrap<NonNullable<A[K]>>> };
