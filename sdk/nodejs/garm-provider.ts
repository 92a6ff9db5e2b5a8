// GarmProvider: one [[provider]] entry in GARM's config file, managed from a Pulumi program.
import * as pulumi from "@pulumi/pulumi";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { providerFor } from "./shim";
import type { InGarmArgs } from "./garm-connection";

/** An SSH login, in the shape of @pulumi/command's remote Connection; a bastion has the same fields but no proxy. */
export interface GarmSshLoginArgs {
  /** Host name or address. */
  readonly host: pulumi.Input<string>;
  /** SSH port. Defaults to 22. */
  readonly port?: pulumi.Input<number>;
  /** User to log in as. Defaults to "root". */
  readonly user?: pulumi.Input<string>;
  /** Private key text (OpenSSH or PEM). Kept as a secret. */
  readonly privateKey?: pulumi.Input<string>;
  /** Passphrase of privateKey. Kept as a secret. */
  readonly privateKeyPassword?: pulumi.Input<string>;
  /** Password to log in with. Kept as a secret. */
  readonly password?: pulumi.Input<string>;
  /** ssh-agent socket. Defaults to SSH_AUTH_SOCK. */
  readonly agentSocketPath?: pulumi.Input<string>;
  /** The host's public key ("ssh-ed25519 AAAA...") or fingerprint ("SHA256:..."); an unknown host key is refused. */
  readonly hostKey?: pulumi.Input<string>;
  /** An OpenSSH known_hosts file on the machine running Pulumi to look the host key up in. */
  readonly knownHostsFile?: pulumi.Input<string>;
  /** Connect without verifying the host key (logged as a warning). */
  readonly insecureSkipHostKeyVerification?: pulumi.Input<boolean>;
  /** Seconds one connection attempt may take. Defaults to 15. */
  readonly perDialTimeout?: pulumi.Input<number>;
  /** Connection attempts before an unreachable host is given up on. Defaults to 10. */
  readonly dialErrorLimit?: pulumi.Input<number>;
}

/** The SSH login to the machine GARM runs on. */
export interface GarmProviderConnectionArgs extends GarmSshLoginArgs {
  /** A bastion host to connect through. */
  readonly proxy?: pulumi.Input<GarmSshLoginArgs>;
  /** Edit the config file and run restartCommand through `sudo -n`. Defaults to false. */
  readonly sudo?: pulumi.Input<boolean>;
}

/** Inputs of a GarmProvider. Checked at `pulumi preview`. */
export interface GarmProviderArgs extends InGarmArgs {
  /** GARM provider name; scale sets refer to it. Changing it replaces the entry (new entry first). */
  readonly name: pulumi.Input<string>;
  /** Shown by GET /providers. */
  readonly description?: pulumi.Input<string>;
  /** Absolute path of the external provider executable on the GARM host. */
  readonly executable: pulumi.Input<string>;
  /** Absolute path of the provider's own config file, passed to it by GARM. */
  readonly configFile?: pulumi.Input<string>;
  /** Environment variable name prefixes GARM forwards to the provider, e.g. ["PATH", "OS_"]. */
  readonly environmentVariables?: pulumi.Input<pulumi.Input<string>[]>;
  /** External provider interface version: "v0.1.0" (default) or "v0.1.1". */
  readonly interfaceVersion?: pulumi.Input<string>;
  /** The GARM config file this resource edits, on the machine `connection` reaches (else the one running Pulumi). */
  readonly garmConfigPath: pulumi.Input<string>;
  /** Shell command that restarts GARM so it loads the change, e.g. "systemctl restart garm". */
  readonly restartCommand: pulumi.Input<string>;
  /** Seconds to wait for GARM to answer with the change after a restart. Defaults to 60. */
  readonly restartTimeoutSeconds?: pulumi.Input<number>;
  /**
   * SSH login to the machine GARM runs on: garmConfigPath is edited and restartCommand run there. Kept as a secret in
   * state. Without it, both are on the machine running Pulumi.
   */
  readonly connection?: pulumi.Input<GarmProviderConnectionArgs>;
}

// Every input comes back as an output of the same name (the registry lists them all; each is passed as a placeholder).
export interface GarmProvider extends InputsAsOutputs<GarmProviderArgs> {}

export class GarmProvider extends pulumi.dynamic.Resource {
  /** The GARM provider name; pass it to GarmScaleSet.providerName. */
  declare readonly name: pulumi.Output<string>;
  /** The GARM config file holding the entry. */
  declare readonly garmConfigPath: pulumi.Output<string>;
  /** The stack and resource recorded as the block's owner. */
  declare readonly owner: pulumi.Output<{ project: string; stack: string; resource: string }>;
  /** The random token recorded in the block when this resource wrote it: its delete removes only a block recording it. */
  declare readonly generation: pulumi.Output<string | undefined>;
  /** Version of the state shape this resource wrote. */
  declare readonly stateVersion: pulumi.Output<number>;
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;

  constructor(name: string, args: GarmProviderArgs, opts?: pulumi.CustomResourceOptions) {
    // Recorded in the block, so another stack or resource cannot take over a GARM provider of the same name.
    const owner = { project: pulumi.getProject(), stack: pulumi.getStack(), resource: name };
    super(providerFor("garmProvider"), name, resourceInputs("garmProvider", { ...args, owner }, opts), resourceOptions("garmProvider", opts, args), "garm", "GarmProvider");
  }
}
