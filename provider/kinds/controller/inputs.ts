// The GarmController input schema and its state: GARM's controller settings (params.UpdateControllerParams,
// params/requests.go L548-558) that a program manages. An omitted input is left as GARM holds it.
import { z } from "zod";
import type { ControllerView, UpdateControllerParams } from "../../garm/client";
import { type StateStamp, readableStateVersion, stateStamp } from "../../common/state-version";

export const STATE_VERSION = 1;

export const controllerInputSchema = z
  .object({
    metadataUrl: z.string().describe("URL runners fetch their metadata from, e.g. https://garm.example.com/api/v1/metadata. Left as GARM holds it when omitted."),
    callbackUrl: z.string().describe("URL runners report their status to, e.g. https://garm.example.com/api/v1/callbacks. Left as GARM holds it when omitted."),
    webhookUrl: z.string().describe("Base URL GitHub delivers webhooks to, e.g. https://garm.example.com/webhooks; GARM adds its controller id. Left as GARM holds it when omitted."),
    minimumJobAgeBackoff: z.number().int().min(0).describe("Seconds GARM waits after a job is queued before it spins up a runner for it. Left as GARM holds it when omitted."),
  })
  .partial()
  .strict();

export type ControllerInputs = z.output<typeof controllerInputSchema>;
export const CONTROLLER_FIELDS = ["metadataUrl", "callbackUrl", "webhookUrl", "minimumJobAgeBackoff"] as const;
export type ControllerField = (typeof CONTROLLER_FIELDS)[number];

/** The request keys of UpdateControllerParams. */
export const REQUEST_KEY: Record<ControllerField, keyof UpdateControllerParams> = {
  metadataUrl: "metadata_url",
  callbackUrl: "callback_url",
  webhookUrl: "webhook_url",
  minimumJobAgeBackoff: "minimum_job_age_backoff",
};

export interface ControllerOutputs extends StateStamp {
  /** The fields this program sets; the others are not managed. */
  managed: ControllerField[];
  controllerId: string;
  metadataUrl: string;
  callbackUrl: string;
  webhookUrl: string;
  controllerWebhookUrl: string;
  minimumJobAgeBackoff: number;
  version: string;
}

export function toOutputs(inputs: ControllerInputs, info: ControllerView): ControllerOutputs {
  return { ...stateStamp(STATE_VERSION), managed: CONTROLLER_FIELDS.filter((f) => inputs[f] !== undefined), ...info };
}

export function readOutputs(props: Record<string, unknown>): ControllerOutputs {
  readableStateVersion("GarmController", props, STATE_VERSION);
  const { __provider: _p, ...rest } = props;
  return rest as unknown as ControllerOutputs;
}
