// The plugin's package schema: the same document `make schema` writes (generated from the zod input schemas), with the
// plugin's resource tokens and the provider resource's inputs, so `pulumi package gen-sdk` can build an SDK per language.
import { packageSchema } from "../provider/package-schema";
import { GARM_PROVIDER, SCALE_SET } from "./resources";

/** schema.json's tokens (the dynamic provider's class names) and the plugin's. */
const TOKENS: Record<string, string> = { "garm:index:GarmScaleSet": SCALE_SET, "garm:index:GarmProvider": GARM_PROVIDER };

/** The package schema GetSchema serves. */
export function pluginSchema(version: string): Record<string, unknown> {
  const base = packageSchema(version) as {
    resources: Record<string, unknown>;
    config: { variables: Record<string, Record<string, unknown>> };
  } & Record<string, unknown>;
  const resources = Object.fromEntries(Object.entries(base.resources).map(([token, spec]) => [TOKENS[token] ?? token, spec]));
  const variables = base.config.variables;
  return {
    ...base,
    resources,
    // An explicit provider (`new garm.Provider(...)`) takes the same settings as the stack config.
    provider: {
      description: "The GARM a set of resources is managed in. Settings not given fall back to the GARM_* environment variables.",
      inputProperties: variables,
      properties: Object.fromEntries(Object.entries(variables).filter(([, v]) => v.type === "string")),
    },
    language: {
      // The SDKs carry the schema's version, so a program asks the engine for the plugin of the same version.
      python: { packageName: "pulumi_garm", requires: { pulumi: ">=3.0.0,<4.0.0" }, respectSchemaVersion: true },
      go: { importBasePath: "github.com/pulumi-garm/pulumi-garm/sdk/go/garm", generateResourceContainerTypes: false, respectSchemaVersion: true },
      csharp: { rootNamespace: "PulumiGarm", packageReferences: { Pulumi: "3.*" } },
      nodejs: { packageName: "@pulumi-garm/garm" },
    },
  };
}
