// A GARM named by the program: a resource's `garm` input and a function's `garm` option, instead of the stack's
// `garm:*` config, so one program manages several GARMs (docs/concepts/several-garms.md).
import type * as pulumi from "@pulumi/pulumi";

/** How to reach one GARM: the settings the stack config's `garm:*` keys give, for one resource or function call. */
export interface GarmConnectionArgs {
  /** GARM's base URL, e.g. https://garm-eu.example.com:9997 (without /api/v1). */
  readonly url: pulumi.Input<string>;
  /** A GARM admin user. */
  readonly username: pulumi.Input<string>;
  /** Its password: give it as a secret (`config.requireSecret`); the whole connection is kept encrypted in state. */
  readonly password: pulumi.Input<string>;
  /** A PEM bundle file to trust for GARM's TLS certificate, read by the provider from the project directory. */
  readonly caCertFile?: pulumi.Input<string>;
  /** The same bundle as PEM text, instead of caCertFile. */
  readonly caCert?: pulumi.Input<string>;
  /** true allows plain http:// to a host other than localhost (the password would travel in clear text). */
  readonly insecure?: pulumi.Input<boolean>;
}

/** The argument every resource takes to live in a GARM of its own. */
export interface InGarmArgs {
  /**
   * The GARM this resource lives in, instead of the stack's `garm:url`, `garm:username` and `garm:password`. A new URL
   * or password for the same GARM is stored without touching GARM; another GARM is refused, naming both.
   */
  readonly garm?: pulumi.Input<GarmConnectionArgs>;
}
