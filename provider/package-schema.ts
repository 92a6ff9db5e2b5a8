// Builds the Pulumi package schema (schema.json) from the zod input schemas the resources validate with, so the
// documentation and the checks have one source. Dynamic resources need no schema; it is the published contract.
import { z } from "zod";
import { credentialsInputSchema } from "./kinds/credentials/inputs";
import { endpointInputSchema } from "./kinds/endpoint/inputs";
import { controllerInputSchema } from "./kinds/controller/inputs";
import { entityInputSchema } from "./kinds/entity/inputs";
import { garmProviderInputSchema } from "./kinds/garm-provider/inputs";
import { poolInputSchema } from "./kinds/pool/inputs";
import { scaleSetInputSchema } from "./kinds/scaleset/inputs";
import { templateInputSchema } from "./kinds/template/inputs";

type JsonSchema = {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};
type PropertySpec = Record<string, unknown>;

/** Computed outputs beyond the inputs, documented here because they have no input schema. */
const scaleSetComputed = z.object({
  scaleSetId: z.number().int().describe("GARM's id of the scale set; also the resource id."),
  liveName: z.string().describe("The name GARM and GitHub see, e.g. ci-small-42e04976."),
  labels: z.array(z.string()).describe("Labels as GARM holds them: trimmed, lower-cased, sorted."),
  enabled: z.boolean().describe("Whether GARM runs the scale set."),
  githubScaleSetId: z.number().int().describe("GitHub's id of the scale set; GARM may change it when it re-creates the GitHub side."),
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
  entityKind: z.enum(["organization", "repository", "enterprise"]).describe("Kind of the GARM entity that owns the scale set."),
  entityId: z.string().describe("GARM id of the owning entity."),
  entityName: z.string().describe("Name of the owning entity (owner/name for repositories)."),
  endpointName: z.string().describe("GARM endpoint of the owning entity."),
  runnerPrefix: z.string().describe("Prefix of runner names as GARM holds it."),
  runnerGroup: z.string().describe("GitHub runner group as GARM holds it."),
  runnerBootstrapTimeout: z.number().int().describe("Bootstrap timeout in minutes as GARM holds it."),
  enableShell: z.boolean().describe("Whether GARM's agent shell is allowed."),
});

const garmProviderComputed = z.object({
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
});

const endpointComputed = z.object({
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
});

const credentialsComputed = z.object({
  credentialsId: z.number().int().describe("GARM's id of the credentials; also the resource id."),
  authType: z.enum(["pat", "app"]).describe('"pat" for a token, "app" for a GitHub App.'),
  secretDigest: z.string().describe("Salted SHA-256 of the token or private key, so a rotation is seen as a change; the secret itself is never an output."),
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
});

const entityComputed = z.object({
  entityId: z.string().describe("GARM's id of the entity; also the resource id. A GarmScaleSet takes it as entityId."),
  entityKind: z.enum(["organization", "repository", "enterprise"]).describe("Kind of the GARM entity."),
  endpointName: z.string().describe("GARM endpoint the entity lives under (its credentials' endpoint)."),
  webhookSecretHash: z.string().describe("Salted sha256 of the webhook secret, to detect a rotation; never the secret."),
  webhookSecretSalt: z.string().describe("Salt of webhookSecretHash."),
  webhookInstalled: z.boolean().describe("Whether GARM reports its webhook installed in GitHub."),
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
});

const controllerComputed = z.object({
  controllerId: z.string().describe("GARM's controller id; also the resource id."),
  controllerWebhookUrl: z.string().describe("The URL GitHub delivers this controller's webhooks to: webhookUrl plus the controller id."),
  version: z.string().describe("GARM's version."),
  managed: z.array(z.string()).describe("The settings this resource manages (the inputs given)."),
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
});

const ENTITY_DESCRIPTION = (what: string) =>
  `A GARM ${what}. A new name, or credentials on another endpoint, replace it; credentials, webhook secret, pool balancer and agent mode update in place. Its delete is refused, naming them, while scale sets or pools use it.`;

const templateComputed = z.object({
  templateId: z.number().int().describe("GARM's id of the template; also the resource id. Pass it to a scale set's or pool's templateId."),
  owner: z.string().describe("The GARM user who owns the template."),
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
});

const poolComputed = z.object({
  poolId: z.string().describe("GARM's id of the pool; also the resource id."),
  labels: z.array(z.string()).describe("Labels as GARM holds them: trimmed, lower-cased, sorted."),
  enabled: z.boolean().describe("Whether GARM runs the pool."),
  entityKind: z.enum(["organization", "repository", "enterprise"]).describe("Kind of the GARM entity that owns the pool."),
  entityId: z.string().describe("GARM id of the owning entity."),
  entityName: z.string().describe("Name of the owning entity (owner/name for repositories)."),
  stateVersion: z.number().int().describe("Version of the state shape this resource wrote."),
});

const TOKEN = (type: string) => `garm:index:${type}`;

/** Converts one JSON Schema property to a Pulumi propertySpec; nested objects become named types. */
function propertySpec(schema: JsonSchema, typeName: string, types: Record<string, unknown>): PropertySpec {
  const doc = schema.description ? { description: schema.description } : {};
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const specs = variants.map((v, i) => propertySpec(v, `${typeName}${i}`, types));
    return { oneOf: specs, ...doc };
  }
  if (schema.enum) return { type: "string", ...doc };
  switch (schema.type) {
    case "string":
    case "boolean":
    case "integer":
    case "number":
      return { type: schema.type, ...doc };
    case "array":
      return { type: "array", items: propertySpec(schema.items ?? {}, `${typeName}Item`, types), ...doc };
    case "object":
      if (schema.properties) {
        types[TOKEN(typeName)] = objectType(schema, typeName, types);
        return { $ref: `#/types/${TOKEN(typeName)}`, ...doc };
      }
      return { type: "object", additionalProperties: { $ref: "pulumi.json#/Any" }, ...doc };
    default:
      return { $ref: "pulumi.json#/Any", ...doc };
  }
}

function objectType(schema: JsonSchema, typeName: string, types: Record<string, unknown>) {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, v]) => [k, propertySpec(v, `${typeName}${capitalise(k)}`, types)]),
  );
  return { type: "object", description: schema.description ?? typeName, properties, ...(schema.required?.length ? { required: schema.required } : {}) };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

function resourceSpec(name: string, description: string, input: z.ZodType, computed: z.ZodObject, replaceOnChanges: string[], types: Record<string, unknown>) {
  const inputs = jsonSchemaOf(input);
  const outputs = jsonSchemaOf(computed);
  const inputProperties = Object.fromEntries(
    Object.entries(inputs.properties ?? {}).map(([k, v]) => {
      const spec = propertySpec(v, `${name}${capitalise(k)}`, types);
      return [k, replaceOnChanges.includes(k) ? { ...spec, willReplaceOnChanges: true } : spec];
    }),
  );
  const computedProperties = Object.fromEntries(
    Object.entries(outputs.properties ?? {}).map(([k, v]) => [k, propertySpec(v, `${name}${capitalise(k)}`, types)]),
  );
  return {
    description,
    inputProperties,
    requiredInputs: inputs.required ?? [],
    properties: { ...inputProperties, ...computedProperties },
    required: [...new Set([...(inputs.required ?? []), ...Object.keys(computedProperties)])],
  };
}

/** Marks inputs as secret, so generated SDKs wrap them (the dynamic SDK class does so itself). */
function withSecretInputs(names: string[], spec: ReturnType<typeof resourceSpec>) {
  const mark = (props: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(props).map(([k, v]) => [k, names.includes(k) ? { ...(v as object), secret: true } : v]));
  return { ...spec, inputProperties: mark(spec.inputProperties), properties: mark(spec.properties) };
}

/** The whole schema.json document. */
export function packageSchema(version: string): Record<string, unknown> {
  const types: Record<string, unknown> = {};
  const resources = {
    [TOKEN("GarmScaleSet")]: resourceSpec(
      "GarmScaleSet",
      "A GARM scale set. A change of labels, provider, name or entity replaces it, the new generation first; deleting it disables and drains it without interrupting running jobs.",
      scaleSetInputSchema,
      scaleSetComputed,
      ["name", "organization", "repository", "enterprise", "entityId", "endpoint", "providerName", "labels", "naming"],
      types,
    ),
    [TOKEN("GarmProvider")]: resourceSpec(
      "GarmProvider",
      "A GARM external provider entry in GARM's config file; GARM is restarted to load it, and it is never removed while a scale set or pool names it.",
      garmProviderInputSchema,
      garmProviderComputed,
      ["name", "garmConfigPath"],
      types,
    ),
    [TOKEN("GarmEndpoint")]: resourceSpec(
      "GarmEndpoint",
      "A GARM forge endpoint (GitHub or Gitea). A change of name or forge, or removing the CA bundle, replaces it; GARM's default github.com endpoint is left in GARM on delete. Deleting one still used by credentials or entities fails and names them.",
      endpointInputSchema,
      endpointComputed,
      ["forge", "name"],
      types,
    ),
    [TOKEN("GarmCredentials")]: withSecretInputs(["token", "privateKey"], resourceSpec(
      "GarmCredentials",
      "GARM credentials for an endpoint: a token, or a GitHub App. A rotated token or key is updated in place; a change of endpoint, forge or auth type replaces them. Deleting credentials still used by an entity fails and names it.",
      credentialsInputSchema,
      credentialsComputed,
      ["forge", "endpoint"],
      types,
    )),
    [TOKEN("GarmOrganization")]: withSecretInputs(["webhookSecret"], resourceSpec("GarmOrganization", ENTITY_DESCRIPTION("organization"), entityInputSchema("organization"), entityComputed, ["name"], types)),
    [TOKEN("GarmRepository")]: withSecretInputs(["webhookSecret"], resourceSpec("GarmRepository", ENTITY_DESCRIPTION("repository"), entityInputSchema("repository"), entityComputed, ["name"], types)),
    [TOKEN("GarmEnterprise")]: withSecretInputs(["webhookSecret"], resourceSpec("GarmEnterprise", ENTITY_DESCRIPTION("enterprise"), entityInputSchema("enterprise"), entityComputed, ["name"], types)),
    [TOKEN("GarmController")]: resourceSpec(
      "GarmController",
      "GARM's controller settings (a singleton): create takes over GARM's controller and sets the given fields; delete leaves them as they are.",
      controllerInputSchema,
      controllerComputed,
      [],
      types,
    ),
    [TOKEN("GarmPool")]: resourceSpec(
      "GarmPool",
      "A GARM classic pool. Its labels and runner settings change in place; a provider or entity change replaces it, the new pool first; deleting it disables and drains it without interrupting running jobs.",
      poolInputSchema,
      poolComputed,
      ["organization", "repository", "enterprise", "entityId", "endpoint", "providerName"],
      types,
    ),
    [TOKEN("GarmTemplate")]: resourceSpec(
      "GarmTemplate",
      "A GARM runner install template. Its name, description and body change in place; an OS or forge type change replaces it. It is never deleted while a scale set or pool uses it, and GARM's system templates are never managed.",
      templateInputSchema,
      templateComputed,
      ["osType", "forgeType"],
      types,
    ),
  };
  return {
    name: "garm",
    displayName: "GARM",
    version,
    description: "Manage GARM (GitHub Actions Runner Manager) scale sets and providers from Pulumi.",
    keywords: ["garm", "github-actions", "runners", "category/infrastructure"],
    license: "Apache-2.0",
    config: {
      variables: {
        url: { type: "string", description: "GARM base URL, e.g. https://garm.example.com:9997 (or GARM_URL)." },
        username: { type: "string", description: "GARM admin username (or GARM_USERNAME)." },
        password: { type: "string", secret: true, description: "GARM admin password (or GARM_PASSWORD); set it with --secret." },
        caCertFile: { type: "string", description: "PEM file of the CA that signed GARM's certificate." },
        insecure: { type: "boolean", description: "Allow plain http to a host that is not loopback. Defaults to false." },
      },
    },
    types,
    resources,
  };
}
