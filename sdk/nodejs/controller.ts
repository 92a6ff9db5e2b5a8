// GarmController: GARM's controller settings (metadata, callback and webhook URLs, job back-off) from a Pulumi program.
// A singleton: create takes over GARM's one controller record; delete leaves its settings as they are.
import * as pulumi from "@pulumi/pulumi";
import { type InputsAsOutputs, resourceInputs, resourceOptions } from "./resource-inputs";
import { controllerProvider } from "./shim";
import type { InGarmArgs } from "./garm-connection";

/** Inputs of a GarmController. An omitted one is left as GARM holds it. */
export interface GarmControllerArgs extends InGarmArgs {
  /** e.g. https://garm.example.com/api/v1/metadata */
  readonly metadataUrl?: pulumi.Input<string>;
  /** e.g. https://garm.example.com/api/v1/callbacks */
  readonly callbackUrl?: pulumi.Input<string>;
  /** Webhook base URL, e.g. https://garm.example.com/webhooks; GARM adds its controller id. */
  readonly webhookUrl?: pulumi.Input<string>;
  /** Seconds GARM waits after a job is queued before it spins up a runner for it. */
  readonly minimumJobAgeBackoff?: pulumi.Input<number>;
}

// Every input comes back as an output of the same name (the registry lists them all; each is passed as a placeholder).
export interface GarmController extends InputsAsOutputs<GarmControllerArgs> {}

export class GarmController extends pulumi.dynamic.Resource {
  /** GARM's controller id (also the Pulumi id). */
  declare readonly controllerId: pulumi.Output<string>;
  declare readonly metadataUrl: pulumi.Output<string>;
  declare readonly callbackUrl: pulumi.Output<string>;
  declare readonly webhookUrl: pulumi.Output<string>;
  /** The URL GitHub delivers this controller's webhooks to: webhookUrl plus the controller id. */
  declare readonly controllerWebhookUrl: pulumi.Output<string>;
  declare readonly minimumJobAgeBackoff: pulumi.Output<number>;
  /** GARM's version, e.g. v0.2.1. */
  declare readonly version: pulumi.Output<string>;
  /** The settings this resource manages (the inputs given). */
  declare readonly managed: pulumi.Output<string[]>;
  declare readonly stateVersion: pulumi.Output<number>;
  /** Controller id of the GARM the object lives in. */
  declare readonly garmControllerId: pulumi.Output<string>;

  constructor(name: string, args: GarmControllerArgs, opts?: pulumi.CustomResourceOptions) {
    super(controllerProvider, name, resourceInputs("controller", args, opts), resourceOptions("controller", opts, args), "garm", "GarmController");
  }
}
