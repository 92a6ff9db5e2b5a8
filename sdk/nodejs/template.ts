// GarmTemplate: one GARM runner install template, managed from a Pulumi program.
import * as pulumi from "@pulumi/pulumi";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { templateProvider } from "./shim";
import type { InGarmArgs } from "./garm-connection";

/** Inputs of a GarmTemplate. Checked at `pulumi preview`. */
export interface GarmTemplateArgs extends InGarmArgs {
  /** Template name, unique among your templates in GARM. Changes in place. */
  readonly name: pulumi.Input<string>;
  /** Shown by garm-cli template list. Changes in place. Defaults to empty. */
  readonly description?: pulumi.Input<string>;
  /** "linux" (default) or "windows". Changing it replaces the template. */
  readonly osType?: pulumi.Input<string>;
  /** "github" (default) or "gitea". Changing it replaces the template. */
  readonly forgeType?: pulumi.Input<string>;
  /** The runner install template text. Set body or bodyFile. Changes in place. */
  readonly body?: pulumi.Input<string>;
  /** A file holding the template text, read at preview. Set body or bodyFile. */
  readonly bodyFile?: pulumi.Input<string>;
  /** Manage a template of the same name you already have in GARM instead of failing. Defaults to false. */
  readonly adoptExisting?: pulumi.Input<boolean>;
}

// Every input comes back as an output of the same name (the registry lists them all; each is passed as a placeholder).
export interface GarmTemplate extends InputsAsOutputs<GarmTemplateArgs> {}

export class GarmTemplate extends pulumi.dynamic.Resource {
  /** GARM's id of the template; pass it to a scale set's or pool's templateId. */
  declare readonly templateId: pulumi.Output<number>;
  declare readonly name: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string>;
  declare readonly osType: pulumi.Output<string>;
  declare readonly forgeType: pulumi.Output<string>;
  /** The template text as GARM holds it. */
  declare readonly body: pulumi.Output<string>;
  /** The GARM user who owns it. */
  declare readonly owner: pulumi.Output<string>;
  /** Version of the state shape this resource wrote. */
  declare readonly stateVersion: pulumi.Output<number>;
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;

  constructor(name: string, args: GarmTemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super(templateProvider, name, resourceInputs("template", args, opts), resourceOptions("template", opts, args), "garm", "GarmTemplate");
  }
}
