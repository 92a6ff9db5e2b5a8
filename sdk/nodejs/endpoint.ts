// GarmEndpoint: a GitHub or Gitea endpoint in GARM, managed from a Pulumi program.
import * as pulumi from "@pulumi/pulumi";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { endpointProvider } from "./shim";
import type { InGarmArgs } from "./garm-connection";

/** Inputs of a GarmEndpoint. Checked at `pulumi preview`. */
export interface GarmEndpointArgs extends InGarmArgs {
  /** "github" (default) or "gitea". Changing it replaces the endpoint. */
  readonly forge?: pulumi.Input<"github" | "gitea">;
  /** Endpoint name; credentials refer to it. Changing it replaces the endpoint. */
  readonly name: pulumi.Input<string>;
  /** Defaults to "". */
  readonly description?: pulumi.Input<string>;
  /** Web URL of the forge, e.g. https://github.example.com. */
  readonly baseUrl: pulumi.Input<string>;
  /** API URL, e.g. https://github.example.com/api/v3/. Fixed while credentials use the endpoint. */
  readonly apiBaseUrl: pulumi.Input<string>;
  /** Upload URL; GitHub only, required there. Fixed while credentials use the endpoint. */
  readonly uploadBaseUrl?: pulumi.Input<string>;
  /** PEM text of the CA certificates of the forge. Removing it replaces the endpoint. */
  readonly caCertBundle?: pulumi.Input<string>;
  /** Manage an existing endpoint of this name instead of failing. Defaults to false. */
  readonly adoptExisting?: pulumi.Input<boolean>;
}

// Every input comes back as an output of the same name (the registry lists them all; each is passed as a placeholder).
export interface GarmEndpoint extends InputsAsOutputs<GarmEndpointArgs> {}

export class GarmEndpoint extends pulumi.dynamic.Resource {
  /** The endpoint name; pass it to GarmCredentials.endpoint. */
  declare readonly name: pulumi.Output<string>;
  declare readonly forge: pulumi.Output<"github" | "gitea">;
  declare readonly description: pulumi.Output<string>;
  declare readonly baseUrl: pulumi.Output<string>;
  declare readonly apiBaseUrl: pulumi.Output<string>;
  declare readonly uploadBaseUrl: pulumi.Output<string>;
  declare readonly caCertBundle: pulumi.Output<string>;
  /** Version of the state shape this resource wrote. */
  declare readonly stateVersion: pulumi.Output<number>;
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;

  constructor(name: string, args: GarmEndpointArgs, opts?: pulumi.CustomResourceOptions) {
    super(endpointProvider, name, resourceInputs("endpoint", args, opts), resourceOptions("endpoint", opts, args), "garm", "GarmEndpoint");
  }
}
