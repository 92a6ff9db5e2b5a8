// GarmEndpoint's input schema (the documentation source for schema.json and the SDK args) and the state it writes.
import { z } from "zod";
import { readableStateVersion, stateStamp, type StateStamp } from "../../common/state-version";
import { FORGES } from "../../common/forges";


/** Version of the output shape; readers migrate older shapes to this one. */
export const STATE_VERSION = 1;

/** GARM's default endpoint, created on first start (database/sql/sql.go L287-310). */
export const DEFAULT_ENDPOINT = "github.com";

export const endpointInputSchema = z
  .object({
    forge: z.enum(FORGES).optional().describe('The forge: "github" (GitHub or GitHub Enterprise Server) or "gitea". Defaults to "github". Changing it replaces the endpoint.'),
    name: z.string().describe("Endpoint name; credentials and entities refer to it. At most 64 characters. Changing it replaces the endpoint."),
    description: z.string().optional().describe('Description GARM shows. Defaults to "".'),
    baseUrl: z.string().describe("Web URL of the forge, e.g. https://github.example.com."),
    apiBaseUrl: z.string().describe("API URL of the forge, e.g. https://github.example.com/api/v3/. GARM cannot change it while credentials use the endpoint."),
    uploadBaseUrl: z
      .string()
      .optional()
      .describe("Upload URL (GitHub only, required there), e.g. https://github.example.com/api/uploads/. GARM cannot change it while credentials use the endpoint."),
    caCertBundle: z
      .string()
      .optional()
      .describe("PEM text of the CA certificates that sign the forge's TLS certificates. GARM cannot clear it in place: removing it replaces the endpoint."),
    adoptExisting: z.boolean().optional().describe("Manage an existing endpoint of this name instead of failing. Defaults to false."),
  })
  .describe("A GARM forge endpoint (GitHub or Gitea).");

export type EndpointInputs = z.infer<typeof endpointInputSchema>;

/** Inputs after check: defaults filled in. */
export interface CheckedEndpointInputs {
  forge: (typeof FORGES)[number];
  name: string;
  description: string;
  baseUrl: string;
  apiBaseUrl: string;
  uploadBaseUrl: string;
  caCertBundle: string;
  adoptExisting: boolean;
}

export type EndpointOutputs = CheckedEndpointInputs & StateStamp;

export function withDefaults(i: EndpointInputs): CheckedEndpointInputs {
  return {
    forge: i.forge ?? "github",
    name: i.name,
    description: i.description ?? "",
    baseUrl: i.baseUrl,
    apiBaseUrl: i.apiBaseUrl,
    uploadBaseUrl: i.uploadBaseUrl ?? "",
    caCertBundle: i.caCertBundle ?? "",
    adoptExisting: i.adoptExisting ?? false,
  };
}

/** Stored outputs in the current shape; throws for a shape a newer pulumi-garm wrote. */
export function readEndpointOutputs(props: Record<string, unknown>): EndpointOutputs {
  readableStateVersion("GarmEndpoint", props, STATE_VERSION);
  const p = props as Partial<EndpointOutputs>;
  return {
    ...withDefaults({ ...(p as EndpointInputs), name: p.name ?? "", baseUrl: p.baseUrl ?? "", apiBaseUrl: p.apiBaseUrl ?? "" }),
    ...stateStamp(STATE_VERSION),
  };
}

export function toEndpointOutputs(inputs: CheckedEndpointInputs): EndpointOutputs {
  return { ...inputs, ...stateStamp(STATE_VERSION) };
}
