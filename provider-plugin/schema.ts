// The plugin's package schema, the document `make schema` writes: the registry's resources (provider/package-schema.ts)
// with the provider resource's inputs, where the plugin is published and the per-language settings, so the SDK
// generators (`make sdks`) can build an SDK per language.
import { packageSchema } from "../provider/package-schema";

/**
 * Where the project is published: the GitHub repository whose releases hold the plugin archives
 * (`pulumi-resource-garm-v<version>-<os>-<arch>.tar.gz`, provider-plugin/build.sh) and whose path is the Go SDK's module
 * path. package.json names no repository, so this is the one place that chooses it (docs/other-languages.md).
 */
export const PUBLISHED_REPOSITORY = { owner: "pulumi-garm", name: "pulumi-garm" } as const;

const repositoryPath = `github.com/${PUBLISHED_REPOSITORY.owner}/${PUBLISHED_REPOSITORY.name}`;
/** The CLI downloads a plugin from the release tagged v<version> of the repository a github:// URL names. */
export const PLUGIN_DOWNLOAD_URL = `github://api.github.com/${PUBLISHED_REPOSITORY.owner}/${PUBLISHED_REPOSITORY.name}`;
/** The Go SDK's module (sdk/go/go.mod) and the import path of its package garm. */
export const GO_MODULE_PATH = `${repositoryPath}/sdk/go`;
export const GO_IMPORT_PATH = `${GO_MODULE_PATH}/garm`;

/** The Python package's description on its index page (pulumi_garm/README.md, and sdk/python/README.md for pyproject). */
const PYTHON_README = [
  "# pulumi_garm: the GARM resource plugin's Python SDK",
  "",
  "Manage GARM (GitHub Actions Runner Manager) v0.2.1 from Pulumi Python programs: scale sets, pools, templates, provider",
  "entries, the controller, endpoints, credentials, organizations, repositories and enterprises. The resources are served",
  "by the `garm` resource plugin (pulumi-resource-garm), which Pulumi fetches from the project's releases.",
  "",
  `Documentation: https://${repositoryPath}/blob/main/` + "docs/other-languages.md#python",
  "",
].join("\n");

/** The package schema GetSchema serves. */
export function pluginSchema(version: string): Record<string, unknown> {
  const base = packageSchema(version) as { config: { variables: Record<string, Record<string, unknown>> } } & Record<string, unknown>;
  const variables = base.config.variables;
  return {
    ...base,
    repository: `https://${repositoryPath}`,
    // Written into every SDK's pulumi-plugin.json, so a program's engine fetches the plugin from the releases.
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    // Pulumi's current SDK layout: the Go generator writes sdk/go/go.mod (module GO_MODULE_PATH), and the SDKs carry the
    // schema's version.
    meta: { supportPack: true },
    // An explicit provider (`new garm.Provider(...)`) takes the same settings as the stack config.
    provider: {
      description: "The GARM a set of resources is managed in. Settings not given fall back to the GARM_* environment variables.",
      inputProperties: variables,
      properties: Object.fromEntries(Object.entries(variables).filter(([, v]) => v.type === "string")),
    },
    language: {
      // The SDKs carry the schema's version, so a program asks the engine for the plugin of the same version.
      // No `requires`: the generator then asks for the pulumi package its code needs (>=3.231.0,<4.0.0 at v3.248.0).
      python: { packageName: "pulumi_garm", respectSchemaVersion: true, pyproject: { enabled: true }, readme: PYTHON_README },
      go: { importBasePath: GO_IMPORT_PATH, generateResourceContainerTypes: false, respectSchemaVersion: true },
      csharp: { rootNamespace: "PulumiGarm", packageReferences: { Pulumi: "3.*" } },
      nodejs: { packageName: "@pulumi-garm/garm", respectSchemaVersion: true },
    },
  };
}
