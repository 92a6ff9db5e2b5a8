// `pulumi import garm:index:GarmEndpoint <name> <endpoint name>` (or `<forge>/<endpoint name>`, needed where GitHub and
// Gitea both have one of that name): reads an endpoint GARM holds and states the inputs that describe it. The id it
// gives the resource is always `<forge>/<name>` (id.ts).
import type { EndpointView, Forge, GarmClient } from "../../garm/client";
import { isGarmError } from "../../garm/errors";
import { FORGES } from "../../common/forges";
import { endpointId, parseEndpointId } from "./id";
import { type EndpointInputs, toEndpointOutputs, withDefaults } from "./inputs";

type Props = Record<string, unknown>;

/** The inputs that reproduce `view`, GARM's defaults left out. */
export function importedEndpointInputs(view: EndpointView): EndpointInputs {
  return {
    ...(view.forge !== "github" ? { forge: view.forge } : {}),
    name: view.name,
    ...(view.description ? { description: view.description } : {}),
    baseUrl: view.baseUrl,
    apiBaseUrl: view.apiBaseUrl,
    ...(view.uploadBaseUrl ? { uploadBaseUrl: view.uploadBaseUrl } : {}),
    ...(view.caCertBundle ? { caCertBundle: view.caCertBundle } : {}),
  };
}

/** Reads the endpoint for import: its outputs as create would have stored them, and the inputs behind them. */
export async function importEndpoint(client: GarmClient, id: string): Promise<{ id: string; props: Props; inputs: Props }> {
  const { forge: prefix, name: rest } = parseEndpointId(id);
  if (prefix === undefined && id.includes("/")) {
    throw new Error(`endpoint id "${id}": give the endpoint's name, or ${FORGES.map((f) => `${f}/<name>`).join(" or ")}`);
  }
  const forges: Forge[] = prefix ? [prefix] : [...FORGES];
  const found = (await Promise.all(forges.map((forge) => client.getEndpoint(forge, rest).catch((err: unknown) => (isGarmError(err, "not-found") ? undefined : Promise.reject(err)))))).filter(
    (view) => view !== undefined,
  );
  if (found.length === 0) throw new Error(`GARM has no ${prefix ?? FORGES.join(" or ")} endpoint named ${rest}`);
  if (found.length > 1) throw new Error(`GitHub and Gitea both have an endpoint named ${rest} in GARM: import github/${rest} or gitea/${rest}`);
  const [view] = found;
  const inputs = importedEndpointInputs(view);
  return { id: endpointId(view.forge, view.name), props: toEndpointOutputs(withDefaults(inputs)) as unknown as Props, inputs: inputs as Props };
}
