// Builds the Pulumi package schema (schema.json) from the registry of kinds: each row's zod input schema, documented
// outputs, secrets and legacy tokens, so the documentation, the checks and the plugin have one source.
import { z } from "zod";
import { BOUND_KINDS, type KindImplementation } from "./registry/implementations";
import { type KindRow, TOKEN_PREFIX, tokenOf } from "./registry/kinds";
import { resourceDescription } from "./registry/descriptions";
import { SECRET_JSON_KEY } from "./common/secret-inputs";
import { FUNCTIONS } from "./functions";
import type { GarmFunction } from "./functions/define";

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

const TOKEN = (type: string) => `${TOKEN_PREFIX}${type}`;

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
    Object.entries(schema.properties ?? {}).map(([k, v]) => {
      const spec = propertySpec(v, `${typeName}${capitalise(k)}`, types);
      // A top-level secret is marked from the registry row (withSecrets); a nested one from its schema.
      return [k, (v as Record<string, unknown>)[SECRET_JSON_KEY] === true ? { ...spec, secret: true } : spec];
    }),
  );
  return { type: "object", description: schema.description ?? typeName, properties, ...(schema.required?.length ? { required: schema.required } : {}) };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

function resourceSpec(name: string, impl: KindImplementation, types: Record<string, unknown>) {
  const inputs = jsonSchemaOf(impl.inputSchema);
  const outputs = jsonSchemaOf(impl.computed);
  const inputProperties = Object.fromEntries(
    Object.entries(inputs.properties ?? {}).map(([k, v]) => {
      const spec = propertySpec(v, `${name}${capitalise(k)}`, types);
      return [k, impl.replaceOnChanges.includes(k) ? { ...spec, willReplaceOnChanges: true } : spec];
    }),
  );
  const computedProperties = Object.fromEntries(
    Object.entries(outputs.properties ?? {}).map(([k, v]) => [k, propertySpec(v, `${name}${capitalise(k)}`, types)]),
  );
  return {
    description: resourceDescription(name),
    inputProperties,
    requiredInputs: inputs.required ?? [],
    properties: { ...inputProperties, ...computedProperties },
    required: [...new Set([...(inputs.required ?? []), ...Object.keys(computedProperties)])],
  };
}

/** Marks the row's secrets, inputs and outputs alike, so generated SDKs wrap them (the Node SDK reads the row itself). */
function withSecrets(names: readonly string[], spec: ReturnType<typeof resourceSpec>) {
  const mark = (props: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(props).map(([k, v]) => [k, names.includes(k) ? { ...(v as object), secret: true } : v]));
  return { ...spec, inputProperties: mark(spec.inputProperties), properties: mark(spec.properties) };
}

/**
 * A row's resources: the current token, aliased to the legacy ones so a program moving to the new class keeps its
 * state, and each legacy token as a deprecated copy, so SDK classes and programs that name it keep working.
 */
function rowResources(row: KindRow & { impl: KindImplementation }, types: Record<string, unknown>): [string, unknown][] {
  const spec = withSecrets(row.secrets, resourceSpec(row.sdkClass, row.impl, types));
  const token = tokenOf(row);
  const current: [string, unknown] = [token, row.legacyTokens.length ? { ...spec, aliases: row.legacyTokens.map((type) => ({ type })) } : spec];
  const legacy = row.legacyTokens.map((old): [string, unknown] => [
    old,
    { ...spec, deprecationMessage: `${old} is the earlier name of ${token}; use ${row.sdkClass}, which keeps this resource's state through its alias.` },
  ]);
  return [current, ...legacy];
}

/** A function's `inputs` and `outputs` object types, their nested types named after the function (`GetRunnersRunnersItem`). */
function functionSpec(fn: GarmFunction, types: Record<string, unknown>) {
  const typeName = capitalise(fn.name);
  const objectOf = (schema: JsonSchema) => {
    const { description: _type, ...spec } = objectType(schema, typeName, types);
    return spec;
  };
  const inputs = jsonSchemaOf(fn.args);
  const outputs = jsonSchemaOf(fn.result);
  return {
    description: fn.description,
    ...(Object.keys(inputs.properties ?? {}).length > 0 ? { inputs: objectOf(inputs) } : {}),
    // Every result property is always answered.
    outputs: { ...objectOf(outputs), required: Object.keys(outputs.properties ?? {}) },
  };
}

/** The whole schema.json document. */
export function packageSchema(version: string): Record<string, unknown> {
  const types: Record<string, unknown> = {};
  const resources = Object.fromEntries(BOUND_KINDS.flatMap((row) => rowResources(row, types)));
  const functions = Object.fromEntries(Object.values(FUNCTIONS).map((fn) => [`${TOKEN_PREFIX}${fn.name}`, functionSpec(fn as unknown as GarmFunction, types)]));
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
    functions,
  };
}
