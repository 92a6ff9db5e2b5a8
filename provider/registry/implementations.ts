// Each kind's row bound to its implementation: input schema, documented outputs, what replaces it, and
// the methods both front doors serve. Only the front doors and the package schema import this module; the SDK reads
// kinds.ts. It sits above provider/kinds: no kind imports it.
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { nestedSecretPathsOf } from "../common/secret-inputs";
import type { GarmClient } from "../garm/client";
import { GARM_IDENTITY_OUTPUT } from "../common/garm-identity";
import type { Logger } from "../common/log";
import type { ConfigLookup } from "../common/secrets-from-config";
import { importCredentials } from "../kinds/credentials/import";
import type { KindMethods } from "../common/planned-diff";
import { controller, controllerMethodsWith } from "../kinds/controller/resource";
import { controllerInputSchema } from "../kinds/controller/inputs";
import { importController } from "../kinds/controller/import";
import { credentials, credentialsProviderWith } from "../kinds/credentials/resource";
import { credentialsInputSchema } from "../kinds/credentials/inputs";
import { endpoint, endpointProviderWith } from "../kinds/endpoint/resource";
import { endpointInputSchema } from "../kinds/endpoint/inputs";
import { importEndpoint } from "../kinds/endpoint/import";
import { enterprise, entityMethodsWith, organization, repository } from "../kinds/entity/resource";
import { entityInputSchema } from "../kinds/entity/inputs";
import { importEntity } from "../kinds/entity/import";
import { garmProvider, garmProviderWith } from "../kinds/garm-provider/resource";
import { garmProviderInputSchema } from "../kinds/garm-provider/inputs";
import { importGarmProvider, parseGarmProviderImportId } from "../kinds/garm-provider/import";
import type { Importer } from "../dynamic-import";
import { pool, poolMethodsWith } from "../kinds/pool/resource";
import { poolInputSchema } from "../kinds/pool/inputs";
import { importPool } from "../kinds/pool/import";
import { scaleSet, scaleSetMethodsWith } from "../kinds/scaleset/resource";
import { runnerDepsFor } from "../runners/deps";
import { importScaleSet } from "../kinds/scaleset/import";
import { scaleSetPreview } from "../kinds/scaleset/preview";
import { scaleSetInputSchema } from "../kinds/scaleset/inputs";
import { template, templateMethodsWith } from "../kinds/template/resource";
import { readBodyFile } from "../kinds/template/check";
import { templateInputSchema } from "../kinds/template/inputs";
import { importTemplate } from "../kinds/template/import";
import { KINDS, type KindKey, type KindRow } from "./kinds";

type Props = Record<string, unknown>;
export type { KindMethods };

/** What a kind's methods reach GARM and the log through: one plugin instance's connection. */
export interface KindAccess {
  readonly client: () => GarmClient;
  readonly log: Logger;
  /** The instance's cancellation (../common/cancel.ts): the engine's Cancel aborts it, and every wait ends on it. */
  readonly cancel?: AbortSignal;
  /** Stack config by full key (`garm:…`), for secret inputs named by a key (common/secrets-from-config.ts). */
  readonly config?: ConfigLookup;
}

export interface KindImplementation {
  /** The zod schema check validates the inputs with; the package schema's input properties come from it. */
  readonly inputSchema: z.ZodType;
  /** The outputs beyond the inputs, documented here because they have no input schema. */
  readonly computed: z.ZodObject;
  /** Inputs whose change replaces the resource (the schema's willReplaceOnChanges). */
  readonly replaceOnChanges: readonly string[];
  /** The dynamic provider's implementation, `pulumi-garm/provider`'s export under the row's key. */
  readonly dynamic: pulumi.dynamic.ResourceProvider;
  /** The same methods over one plugin instance's connection. */
  readonly methods: (access: KindAccess) => KindMethods;
  /** For an importable kind: the object GARM holds under `id`, as outputs and the inputs that reproduce it. */
  readonly importer?: Importer;
  /** For the `import` option's check: the previous inputs, from the id alone (dynamic-import.ts ImportSupport). */
  readonly importOlds?: (id: string) => Props;
  /** Inputs the plugin takes from the resource's URN where the Node SDK computes them in the program. */
  readonly inputsFromUrn?: (urn: { project: string; stack: string; name: string }) => Props;
  /** Outputs that are a pure function of the inputs, which the plugin shows at preview; every other one is unknown. */
  readonly preview?: (inputs: Props) => Props;
}

const STATE_VERSION = z.number().int().describe("Version of the state shape this resource wrote.");
const ENTITY_KIND = z.enum(["organization", "repository", "enterprise"]);

const entityComputed = z.object({
  entityId: z.string().describe("GARM's id of the entity; also the resource id. A GarmScaleSet takes it as entityId."),
  entityKind: ENTITY_KIND.describe("Kind of the GARM entity."),
  endpointName: z.string().describe("GARM endpoint the entity lives under (its credentials' endpoint)."),
  webhookSecretHash: z.string().describe("Slow salted digest (scrypt) of the webhook secret, to detect a rotation; a secret output, never the secret."),
  webhookSecretSalt: z.string().describe("Salt of webhookSecretHash; a secret output."),
  webhookInstalled: z.boolean().describe("Whether GARM reports its webhook installed in GitHub."),
  stateVersion: STATE_VERSION,
});

function entityImplementation(kind: "organization" | "repository" | "enterprise", dynamic: pulumi.dynamic.ResourceProvider): KindImplementation {
  return {
    inputSchema: entityInputSchema(kind),
    computed: entityComputed,
    replaceOnChanges: ["name"],
    dynamic,
    methods: (access) => entityMethodsWith(kind, access),
    importer: (client, id, config) => importEntity(kind, client, id, config),
  };
}

const runnerDeps = (access: KindAccess) => ({ ...runnerDepsFor(access.client, access.cancel), log: access.log });

/** Every row's implementation; the type makes a row without one, or one without a row, fail to compile. */
export const IMPLEMENTATIONS: Record<KindKey, KindImplementation> = {
  scaleSet: {
    inputSchema: scaleSetInputSchema,
    computed: z.object({
      scaleSetId: z.number().int().describe("GARM's id of the scale set; also the resource id."),
      liveName: z.string().describe("The name GARM and GitHub see, e.g. ci-small-42e04976."),
      labels: z.array(z.string()).describe("Labels as GARM holds them: trimmed, lower-cased, sorted."),
      enabled: z.boolean().describe("Whether GARM runs the scale set."),
      githubScaleSetId: z.number().int().describe("GitHub's id of the scale set; GARM may change it when it re-creates the GitHub side."),
      stateVersion: STATE_VERSION,
      entityKind: ENTITY_KIND.describe("Kind of the GARM entity that owns the scale set."),
      entityId: z.string().describe("GARM id of the owning entity."),
      entityName: z.string().describe("Name of the owning entity (owner/name for repositories)."),
      endpointName: z.string().describe("GARM endpoint of the owning entity."),
      runnerPrefix: z.string().describe("Prefix of runner names as GARM holds it."),
      runnerGroup: z.string().describe("GitHub runner group as GARM holds it."),
      runnerBootstrapTimeout: z.number().int().describe("Bootstrap timeout in minutes as GARM holds it."),
      enableShell: z.boolean().describe("Whether GARM's agent shell is allowed."),
    }),
    replaceOnChanges: ["name", "organization", "repository", "enterprise", "entityId", "endpoint", "providerName", "labels", "naming"],
    dynamic: scaleSet,
    methods: (access) => scaleSetMethodsWith(runnerDeps(access)),
    importer: importScaleSet,
    preview: scaleSetPreview,
  },
  garmProvider: {
    inputSchema: garmProviderInputSchema,
    computed: z.object({
      generation: z
        .string()
        .optional()
        .describe("The random token recorded in the block's owner line when this resource wrote it; a delete removes the block only while it records this one (absent for blocks written before generations)."),
      stateVersion: STATE_VERSION,
    }),
    replaceOnChanges: ["name", "garmConfigPath"],
    dynamic: garmProvider,
    methods: (access) => garmProviderWith(access.client, (line) => access.log.info(line), access.cancel),
    // The TypeScript SDK records the owning stack and resource in the block; through the plugin the URN says who owns it.
    inputsFromUrn: ({ project, stack, name }) => ({ owner: { project, stack, resource: name } }),
    // The file holds no owner for a hand-written entry: the first update records it, with the markers, no restart.
    importer: async (_client, id, config, program) => ({ ...(await importGarmProvider(id, { config, program })), firstUp: ["owner"] }),
    // The import option's check then lets the name a hand-written entry uses pass: that entry is what is imported.
    importOlds: (id) => ({ ...parseGarmProviderImportId(id) }),
  },
  endpoint: {
    inputSchema: endpointInputSchema,
    computed: z.object({ stateVersion: STATE_VERSION }),
    replaceOnChanges: ["forge", "name"],
    dynamic: endpoint,
    methods: (access) => endpointProviderWith(access),
    importer: importEndpoint,
  },
  credentials: {
    inputSchema: credentialsInputSchema,
    computed: z.object({
      credentialsId: z.number().int().describe("GARM's id of the credentials; also the resource id."),
      authType: z.enum(["pat", "app"]).describe('"pat" for a token, "app" for a GitHub App.'),
      secretDigest: z.string().describe("Slow salted digest (scrypt) of the token or private key, so a rotation is seen as a change; a secret output. The secret itself is never an output."),
      secretSalt: z.string().describe("Salt of secretDigest; a secret output."),
      stateVersion: STATE_VERSION,
    }),
    replaceOnChanges: ["forge", "endpoint"],
    dynamic: credentials,
    methods: (access) => credentialsProviderWith(access),
    importer: importCredentials,
  },
  organization: entityImplementation("organization", organization),
  repository: entityImplementation("repository", repository),
  enterprise: entityImplementation("enterprise", enterprise),
  controller: {
    inputSchema: controllerInputSchema,
    computed: z.object({
      controllerId: z.string().describe("GARM's controller id; also the resource id."),
      controllerWebhookUrl: z.string().describe("The URL GitHub delivers this controller's webhooks to: webhookUrl plus the controller id."),
      version: z.string().describe("GARM's version."),
      managed: z.array(z.string()).describe("The settings this resource manages (the inputs given)."),
      stateVersion: STATE_VERSION,
    }),
    replaceOnChanges: [],
    dynamic: controller,
    methods: (access) => controllerMethodsWith(access),
    importer: importController,
  },
  template: {
    inputSchema: templateInputSchema,
    computed: z.object({
      templateId: z.number().int().describe("GARM's id of the template; also the resource id. Pass it to a scale set's or pool's templateId."),
      owner: z.string().describe("The GARM user who owns the template."),
      stateVersion: STATE_VERSION,
    }),
    replaceOnChanges: ["osType", "forgeType"],
    dynamic: template,
    methods: (access) => templateMethodsWith({ ...access, readBody: readBodyFile }),
    importer: importTemplate,
  },
  pool: {
    inputSchema: poolInputSchema,
    computed: z.object({
      poolId: z.string().describe("GARM's id of the pool; also the resource id."),
      labels: z.array(z.string()).describe("Labels as GARM holds them: trimmed, lower-cased, sorted."),
      enabled: z.boolean().describe("Whether GARM runs the pool."),
      entityKind: ENTITY_KIND.describe("Kind of the GARM entity that owns the pool."),
      entityId: z.string().describe("GARM id of the owning entity."),
      entityName: z.string().describe("Name of the owning entity (owner/name for repositories)."),
      stateVersion: STATE_VERSION,
    }),
    replaceOnChanges: ["organization", "repository", "enterprise", "entityId", "endpoint", "providerName"],
    dynamic: pool,
    methods: (access) => poolMethodsWith(runnerDeps(access)),
    importer: importPool,
  },
};

/** The output every kind records (common/garm-identity.ts). */
const GARM_IDENTITY = z.object({
  [GARM_IDENTITY_OUTPUT]: z.string().describe("Controller id of the GARM the object lives in; no operation acts on it through a connection that reaches another GARM."),
});

/** The rows with their implementations, in the table's order. */
export const BOUND_KINDS: readonly (KindRow<KindKey> & { readonly impl: KindImplementation; readonly errorSecrets: readonly string[] })[] = KINDS.map((row) => {
  const impl = IMPLEMENTATIONS[row.key];
  // What errors must not hold: the row's secrets and the secret fields nested in its inputs (a GarmProvider's connection.privateKey).
  const errorSecrets = [...row.secrets, ...(impl.inputSchema instanceof z.ZodObject ? nestedSecretPathsOf(impl.inputSchema) : [])];
  return { ...row, errorSecrets, impl: { ...impl, computed: impl.computed.extend(GARM_IDENTITY.shape) } };
});
