// GarmController: GARM's one controller record, as a singleton resource. Create adopts it and sets the given fields;
// delete leaves GARM's settings as they are (GARM cannot unset them, and runners depend on them).
import type * as pulumi from "@pulumi/pulumi";
import { configure, garmClient } from "../../common/connection";
import { type KindMethods, plannedDiff } from "../../common/planned-diff";
import type { ControllerCalls, ControllerView, UpdateControllerParams } from "../../garm/client";
import { type Failure, type InputCheck, checkInputs } from "../../common/input-check";
import { type Logger, consoleLogger } from "../../common/log";
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { type HookMoveCalls, hookedEntities, movingHooks } from "./hooks";
import {
  CONTROLLER_FIELDS,
  type ControllerField,
  type ControllerInputs,
  REQUEST_KEY,
  controllerInputSchema,
  readOutputs,
  toOutputs,
} from "./inputs";

export interface ControllerDeps {
  /** The controller calls, and the entities' webhook calls a new webhook URL needs (./hooks.ts). */
  readonly client: () => ControllerCalls & HookMoveCalls;
  readonly log: Logger;
}

const URL_FIELDS = ["metadataUrl", "callbackUrl", "webhookUrl"] as const;

/** GARM wants a scheme and a host in each URL (params/requests.go L560-590); a bad one is refused at preview here. */
function urlFailures(inputs: Partial<ControllerInputs>): Failure[] {
  return URL_FIELDS.flatMap((field) => {
    const value = inputs[field];
    if (value === undefined) return [];
    try {
      const url = new URL(value);
      if ((url.protocol === "http:" || url.protocol === "https:") && url.host !== "") return [];
    } catch {
      // reported below
    }
    return [{ property: field, reason: `${field} ${JSON.stringify(value)} must be an http or https URL with a host, e.g. https://garm.example.com/webhooks` }];
  });
}

const CONTROLLER_CHECK: InputCheck<ControllerInputs> = { schema: controllerInputSchema, resource: "GarmController", rules: [urlFailures] };

/** Fields given in `news` whose value differs from GARM's. */
export function changedControllerFields(held: Pick<ControllerView, ControllerField>, news: Record<string, unknown>): ControllerField[] {
  return CONTROLLER_FIELDS.filter((f) => news[f] !== undefined && (containsUnknown(news[f]) || news[f] !== held[f]));
}

export function controllerMethodsWith(deps: ControllerDeps): KindMethods {
  async function apply(inputs: ControllerInputs, held: ControllerView): Promise<ControllerView> {
    const fields = changedControllerFields(held, inputs as Record<string, unknown>);
    if (fields.length === 0) return held;
    const body: UpdateControllerParams = Object.fromEntries(fields.map((f) => [REQUEST_KEY[f], inputs[f]]));
    const update = () => deps.client().updateController(body);
    // GARM leaves every hook at the old URL, and could not remove one there after the change: they move with it. A
    // GARM without a webhook URL, or not yet initialised with its URLs (it then answers entity lists 409
    // urls_required), has installed no hook to move.
    const hooksMayExist = held.webhookUrl !== "" && held.metadataUrl !== "" && held.callbackUrl !== "";
    const info = fields.includes("webhookUrl") && hooksMayExist
      ? await movingHooks(deps.client(), await hookedEntities(deps.client(), held.controllerWebhookUrl, deps.log), deps.log, update, (i) => i.controllerWebhookUrl)
      : await update();
    deps.log.info(`GarmController ${info.controllerId}: set ${fields.join(", ")}`);
    return info;
  }

  return {
    async check(_olds, news) {
      return checkInputs(CONTROLLER_CHECK, news);
    },

    async diff(_id, olds, news) {
      const stored = readOutputs(olds);
      const given = withoutProviderKey(news);
      const fields = changedControllerFields(stored, given);
      // A setting taken into or out of this resource's hands changes what it manages, though GARM gets nothing.
      const managed = new Set(stored.managed ?? []);
      const handedOver = CONTROLLER_FIELDS.filter((f) => (given[f] !== undefined) !== managed.has(f));
      if (fields.includes("webhookUrl")) {
        deps.log.info(
          `GarmController ${stored.controllerId}: webhookUrl ${JSON.stringify(stored.webhookUrl)} → ${containsUnknown(given.webhookUrl) ? "a value known after the update" : JSON.stringify(given.webhookUrl)} moves the webhooks GARM installed for its organizations and repositories to the new URL`,
        );
      }
      return plannedDiff({ olds: stored, news: given, updates: [...fields, ...handedOver], replaces: [] });
    },

    async create(props) {
      const inputs = withoutProviderKey(props) as ControllerInputs;
      const info = await apply(inputs, await deps.client().getController());
      return { id: info.controllerId, outs: toOutputs(inputs, info) };
    },

    async read(id, props) {
      const olds = readOutputs(props ?? {});
      const info = await deps.client().getController();
      // The controller cannot be deleted; a new id means GARM's database was replaced.
      if (info.controllerId !== id) {
        deps.log.warn(`GarmController ${id}: GARM now has controller ${info.controllerId}; dropping this one from the stack as gone`);
        return {};
      }
      return { id, props: { ...olds, ...info, __provider: props?.__provider } };
    },

    async update(_id, _olds, news) {
      const inputs = withoutProviderKey(news) as ControllerInputs;
      const info = await apply(inputs, await deps.client().getController());
      return { outs: toOutputs(inputs, info) };
    },

    async delete(id) {
      deps.log.info(`GarmController ${id}: removed from Pulumi state only; GARM keeps its controller settings as they are (they cannot be unset, and runners use them)`);
    },
  };
}

export const controller: pulumi.dynamic.ResourceProvider = {
  configure,
  ...controllerMethodsWith({ client: garmClient, log: consoleLogger }),
};
