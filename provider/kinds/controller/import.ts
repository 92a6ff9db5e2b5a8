// `pulumi import garm:index:GarmController <name> <controller id>`: takes GARM's controller settings as they stand
// under management; every setting GARM holds becomes an input, so the written program previews with no change.
import type { ControllerCalls, ControllerView } from "../../garm/client";
import { CONTROLLER_FIELDS, type ControllerInputs, toOutputs } from "./inputs";

type Props = Record<string, unknown>;

/** Every setting GARM holds, as the inputs that manage it. */
export function importedControllerInputs(info: ControllerView): ControllerInputs {
  return Object.fromEntries(CONTROLLER_FIELDS.filter((f) => info[f] !== "" && info[f] !== undefined).map((f) => [f, info[f]])) as ControllerInputs;
}

/** Reads the controller for import; `id` must be the controller id of the GARM reached. */
export async function importController(client: ControllerCalls, id: string): Promise<{ id: string; props: Props; inputs: Props }> {
  const info = await client.getController();
  if (id !== info.controllerId) {
    throw new Error(`GARM's controller id is ${info.controllerId}, not ${id}: import it with that id (garm-cli controller show prints it)`);
  }
  const inputs = importedControllerInputs(info);
  return { id, props: toOutputs(inputs, info) as unknown as Props, inputs: inputs as Props };
}
