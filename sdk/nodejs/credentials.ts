// GarmCredentials: a token or GitHub App credentials in GARM, bound to an endpoint.
import * as pulumi from "@pulumi/pulumi";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { credentialsProvider } from "./shim";
import type { InGarmArgs } from "./garm-connection";

/** Inputs of GarmCredentials. Checked at `pulumi preview`. Set token, or appId, installationId and privateKey. */
export interface GarmCredentialsArgs extends InGarmArgs {
  /** "github" (default) or "gitea". Changing it replaces the credentials. */
  readonly forge?: pulumi.Input<"github" | "gitea">;
  /** Credentials name; organizations, repositories and enterprises refer to it. Changed in place. */
  readonly name: pulumi.Input<string>;
  /** Defaults to "". */
  readonly description?: pulumi.Input<string>;
  /** Endpoint name: a GarmEndpoint's `name` output, or "github.com". Changing it replaces the credentials. */
  readonly endpoint: pulumi.Input<string>;
  /** Personal access token (GitHub) or access token (Gitea). Stored as a Pulumi secret; rotating it updates in place. */
  readonly token?: pulumi.Input<string>;
  /** Through the garm plugin only (what `pulumi import` writes): the `garm:` stack config key holding the token. */
  readonly tokenFromConfig?: pulumi.Input<string>;
  /** GitHub App id. */
  readonly appId?: pulumi.Input<number>;
  /** GitHub App installation id. */
  readonly installationId?: pulumi.Input<number>;
  /** GitHub App private key (PEM, PKCS#1 RSA). Stored as a Pulumi secret; rotating it updates in place. */
  readonly privateKey?: pulumi.Input<string>;
  /** Through the garm plugin only (what `pulumi import` writes): the `garm:` stack config key holding the private key. */
  readonly privateKeyFromConfig?: pulumi.Input<string>;
  /** Manage existing credentials of this name instead of failing; their secret is set from the inputs. Defaults to false. */
  readonly adoptExisting?: pulumi.Input<boolean>;
}

// Every input comes back as an output of the same name (the registry lists them all; each is passed as a placeholder).
export interface GarmCredentials extends InputsAsOutputs<GarmCredentialsArgs> {}

export class GarmCredentials extends pulumi.dynamic.Resource {
  /** GARM's id of the credentials (also the Pulumi id). */
  declare readonly credentialsId: pulumi.Output<number>;
  /** The credentials name; pass it to an organization, repository or enterprise. */
  declare readonly name: pulumi.Output<string>;
  declare readonly forge: pulumi.Output<"github" | "gitea">;
  declare readonly endpoint: pulumi.Output<string>;
  /** "pat" (a token) or "app". */
  declare readonly authType: pulumi.Output<"pat" | "app">;
  declare readonly description: pulumi.Output<string>;
  /** Slow salted digest (scrypt) of the token or private key, so a rotation is seen as a change; a Pulumi secret. */
  declare readonly secretDigest: pulumi.Output<string>;
  /** Salt of secretDigest; a Pulumi secret. */
  declare readonly secretSalt: pulumi.Output<string>;
  /** Version of the state shape this resource wrote. */
  declare readonly stateVersion: pulumi.Output<number>;
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;

  constructor(name: string, args: GarmCredentialsArgs, opts?: pulumi.CustomResourceOptions) {
    // The secrets go in as Pulumi secrets, so the state keeps its copy of the inputs encrypted.
    super(credentialsProvider, name, resourceInputs("credentials", args, opts), resourceOptions("credentials", opts, args), "garm", "GarmCredentials");
  }
}
