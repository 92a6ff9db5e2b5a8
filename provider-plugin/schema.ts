// The plugin's package schema, the document `make schema` writes: the registry's resources (provider/package-schema.ts)
// with the provider resource's inputs and the per-language settings, so `pulumi package gen-sdk` can build an SDK per
// language.
import { packageSchema } from "../provider/package-schema";

/** The package schema GetSchema serves. */
export function pluginSchema(version: string): Record<string, unknown> {
  const base = packageSchema(version) as { config: { variables: Record<string, Record<string, unknown>> } } & Record<string, unknown>;
  const variables = base.config.variables;
  return {
    ...base,
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
