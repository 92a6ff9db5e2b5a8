// The table of resource kinds as data: key, tokens, SDK class, the properties a program reads, secrets, importability.
// The Node SDK reads it in the user's program, so it imports nothing: the implementation of each kind is bound to its
// row in implementations.ts, which only the front doors (provider/index.ts, provider-plugin/) and the schema load.

/**
 * Token naming: every kind's plugin token is `garm:index:<SDK class>`, e.g. `garm:index:GarmScaleSet`, and the dynamic
 * provider's type is the same class under module `garm` (`pulumi-nodejs:dynamic/garm:GarmScaleSet`). Pulumi's convention
 * drops the package prefix (`garm:index:ScaleSet`), but one kind cannot follow it: a GARM provider entry named
 * `garm:index:Provider` collides with the `Provider` class every generated SDK already has (the package's own provider
 * resource), so it would need a third word. Keeping the prefix gives one name per kind in every language and in both
 * front doors' state, the names the TypeScript SDK published from the start, with no exception to explain. Tokens an
 * earlier version wrote into state stay served: each is a `legacyTokens` entry, an alias in the schema and the plugin.
 */
export const TOKEN_PREFIX = "garm:index:";

/**
 * The input that carries Pulumi's `import` option from a TypeScript class to the dynamic provider, whose create adopts
 * the object (provider/dynamic-import.ts); Pulumi's own import cannot reach a dynamic provider (pulumi-behaviour.md §10).
 */
export const IMPORT_INPUT = "__import";

/**
 * The input that carries Pulumi's `retainOnDelete` option from a TypeScript class to the dynamic provider, whose entry
 * hands it to the kind's create (provider/common/option-inputs.ts); the dynamic provider is never told of options.
 */
export const RETAIN_INPUT = "__retainOnDelete";

/**
 * The input a TypeScript resource names its own GARM in (url, username, password, TLS), instead of the stack's `garm:*`
 * config: the dynamic provider's entry runs each method in that GARM (provider/resource-garm.ts). Kept secret.
 */
export const GARM_INPUT = "garm";

export interface KindRow<K extends string = string> {
  /** The key `pulumi-garm/provider` exports the kind's implementation under: state written by every version names it. */
  readonly key: K;
  /** The SDK class, also the type name of both front doors' tokens. */
  readonly sdkClass: string;
  /** Plugin tokens older versions wrote into state: still served, and aliases of the current token. */
  readonly legacyTokens: readonly string[];
  /** Every property a program can read from the resource: its inputs as held and what GARM computes. */
  readonly outputs: readonly string[];
  /** Properties kept as Pulumi secrets: the SDK wraps the inputs among them and marks all of them secret outputs. */
  readonly secrets: readonly string[];
  /** `pulumi import` reads the object from GARM; otherwise the words saying how to take it over instead. */
  readonly importable: true | { readonly instead: string };
}

const RUNNER_SETTINGS = [
  "organization",
  "repository",
  "enterprise",
  "entityId",
  "endpoint",
  "providerName",
  "image",
  "flavor",
  "osType",
  "osArch",
  "labels",
  "maxRunners",
  "minIdleRunners",
  "enabled",
  "runnerPrefix",
  "runnerGroup",
  "runnerBootstrapTimeout",
  "extraSpecs",
  "templateId",
  "enableShell",
  "drain",
] as const;

const ENTITY = ["name", "credentials", "webhookSecret", "webhookSecretFromConfig", "poolBalancerType", "agentMode", "adoptExisting"] as const;
const ENTITY_COMPUTED = ["entityId", "entityKind", "endpointName", "webhookSecretHash", "webhookSecretSalt", "webhookInstalled", "stateVersion"] as const;
/** The webhook secret and the digest derived from it (kept encrypted by the engine, also in older state). */
const ENTITY_SECRETS = ["webhookSecret", "webhookSecretHash", "webhookSecretSalt"] as const;

/** Keeps the row's literal types (its key and output names), which the SDK's types are checked against. */
function row<const R extends KindRow>(r: R): R {
  return r;
}

/** One row per kind. Adding a kind: its folder under provider/kinds, a row here and its binding in implementations.ts. */
export const KINDS = [
  row({
    key: "scaleSet",
    sdkClass: "GarmScaleSet",
    legacyTokens: ["garm:index:ScaleSet"],
    outputs: ["name", ...RUNNER_SETTINGS, "naming", "adoptExisting", "scaleSetId", "liveName", "githubScaleSetId", "stateVersion", "entityKind", "entityName", "endpointName", "garmControllerId"],
    secrets: [],
    importable: true,
  }),
  row({
    key: "garmProvider",
    sdkClass: "GarmProvider",
    legacyTokens: [],
    outputs: ["name", "description", "executable", "configFile", "environmentVariables", "interfaceVersion", "garmConfigPath", "restartCommand", "restartTimeoutSeconds", "connection", "owner", "generation", "stateVersion", "garmControllerId"],
    // The SSH login holds keys and passwords: all of it is kept encrypted in state, where delete and refresh find it.
    secrets: ["connection"],
    importable: true,
  }),
  row({
    key: "endpoint",
    sdkClass: "GarmEndpoint",
    legacyTokens: [],
    outputs: ["forge", "name", "description", "baseUrl", "apiBaseUrl", "uploadBaseUrl", "caCertBundle", "adoptExisting", "stateVersion", "garmControllerId"],
    secrets: [],
    importable: true,
  }),
  row({
    key: "credentials",
    sdkClass: "GarmCredentials",
    legacyTokens: [],
    outputs: ["forge", "name", "description", "endpoint", "token", "tokenFromConfig", "appId", "installationId", "privateKey", "privateKeyFromConfig", "adoptExisting", "credentialsId", "authType", "secretDigest", "secretSalt", "stateVersion", "garmControllerId"],
    // The digest and its salt are derived from the secret: outputs the engine keeps encrypted, also in older state.
    secrets: ["token", "privateKey", "secretDigest", "secretSalt"],
    importable: true,
  }),
  row({
    key: "organization",
    sdkClass: "GarmOrganization",
    legacyTokens: [],
    outputs: [...ENTITY, "installWebhook", "keepWebhookOnDelete", "webhookUrl", ...ENTITY_COMPUTED, "garmControllerId"],
    secrets: ENTITY_SECRETS,
    importable: true,
  }),
  row({
    key: "repository",
    sdkClass: "GarmRepository",
    legacyTokens: [],
    outputs: [...ENTITY, "installWebhook", "keepWebhookOnDelete", "webhookUrl", ...ENTITY_COMPUTED, "garmControllerId"],
    secrets: ENTITY_SECRETS,
    importable: true,
  }),
  row({
    key: "enterprise",
    sdkClass: "GarmEnterprise",
    legacyTokens: [],
    outputs: [...ENTITY, ...ENTITY_COMPUTED, "garmControllerId"],
    secrets: ENTITY_SECRETS,
    importable: true,
  }),
  row({
    key: "controller",
    sdkClass: "GarmController",
    legacyTokens: [],
    outputs: ["metadataUrl", "callbackUrl", "webhookUrl", "minimumJobAgeBackoff", "controllerId", "controllerWebhookUrl", "version", "managed", "stateVersion", "garmControllerId"],
    secrets: [],
    importable: true,
  }),
  row({
    key: "pool",
    sdkClass: "GarmPool",
    legacyTokens: [],
    outputs: [...RUNNER_SETTINGS, "priority", "adoptPoolId", "poolId", "entityKind", "entityName", "stateVersion", "garmControllerId"],
    secrets: [],
    importable: true,
  }),
  row({
    key: "template",
    sdkClass: "GarmTemplate",
    legacyTokens: [],
    outputs: ["name", "description", "osType", "forgeType", "body", "bodyFile", "adoptExisting", "templateId", "owner", "stateVersion", "garmControllerId"],
    secrets: [],
    importable: true,
  }),
] as const;

/** A kind's key, e.g. `scaleSet`. */
export type KindKey = (typeof KINDS)[number]["key"];
export type KindRowOf<K extends KindKey> = Extract<(typeof KINDS)[number], { key: K }>;
/** The names of the properties a program can read from a kind's resource. */
export type OutputOf<K extends KindKey> = KindRowOf<K>["outputs"][number];

/** The row of `key`. */
export function kindRow<K extends KindKey>(key: K): KindRowOf<K> {
  const found = KINDS.find((k) => k.key === key);
  if (!found) throw new Error(`no resource kind ${key}`);
  return found as KindRowOf<K>;
}

/** The plugin token of a row, which schema.json and new state name. */
export function tokenOf(row: Pick<KindRow, "sdkClass">): string {
  return `${TOKEN_PREFIX}${row.sdkClass}`;
}
