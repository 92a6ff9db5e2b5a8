// The input schema of GarmOrganization, GarmRepository and GarmEnterprise: one source for check's type rules, the
// defaults and schema.json's documentation. The kinds differ only in what `name` holds.
import { z } from "zod";
import type { EntityKind } from "../../garm/client";
import { secretInput } from "../../common/secret-inputs";

/** GARM's pool balancers; "" is stored when none is given and means round-robin (params/params.go L67-78). */
export const POOL_BALANCERS = ["roundrobin", "pack"] as const;
export type PoolBalancer = (typeof POOL_BALANCERS)[number];

const NAME_DOC: Record<EntityKind, string> = {
  organization: "GitHub organization name, as GARM and GitHub know it. Changing it replaces the organization; a change of case only updates in place (GARM keeps its spelling).",
  repository: "GitHub repository as owner/name. Changing it replaces the repository; a change of case only updates in place (GARM keeps its spelling).",
  enterprise: "GitHub enterprise slug. Changing it replaces the enterprise; a change of case only updates in place (GARM keeps its spelling).",
};

const schemas = new Map<EntityKind, ReturnType<typeof schemaOf>>();

/** The kind's input schema (one instance per kind). */
export function entityInputSchema(kind: EntityKind) {
  let schema = schemas.get(kind);
  if (!schema) schemas.set(kind, (schema = schemaOf(kind)));
  return schema;
}

function schemaOf(kind: EntityKind) {
  return z
    .object({
      name: z.string().describe(NAME_DOC[kind]),
      credentials: z
        .string()
        .describe(
          "Name of the GARM credentials the entity uses (pass a GarmCredentials' name output so Pulumi orders them). Changing it updates in place when the new credentials are on the same endpoint, and replaces otherwise.",
        ),
      webhookSecret: secretInput(
        z
          .string()
          .optional()
          .describe("Secret GitHub signs webhook deliveries with; stored as a Pulumi secret. Changing it updates in place (and reinstalls a webhook this resource installed)."),
      ),
      webhookSecretFromConfig: z
        .string()
        .optional()
        .describe(
          'Instead of webhookSecret: the stack config key holding it, in the garm: namespace (set with `pulumi config set --secret`). `pulumi import` writes this, since GARM never returns the secret.',
        ),
      poolBalancerType: z.enum(POOL_BALANCERS).optional().describe('How GARM spreads jobs over the entity\'s pools: "roundrobin" or "pack". Defaults to "roundrobin".'),
      agentMode: z.boolean().optional().describe("GARM's agent mode for the entity's runners. Defaults to false."),
      ...(kind === "enterprise"
        ? {}
        : {
            installWebhook: z
              .boolean()
              .optional()
              .describe("Install GARM's webhook in GitHub through GARM (needs enable_webhook_management in GARM's config), and remove it on delete. Defaults to false."),
            keepWebhookOnDelete: z.boolean().optional().describe("Leave the installed webhook in GitHub when the entity is deleted. Defaults to false."),
            webhookUrl: z
              .string()
              .optional()
              .describe(
                "The webhook URL of GARM's controller the installed webhook follows: pass a GarmController's webhookUrl output. When it changes, preview shows an update of this entity, and the update makes sure GitHub's hook points at GARM's new URL (the GarmController's update moves the hooks; this installs one still missing).",
              ),
          }),
      adoptExisting: z.boolean().optional().describe("Manage an entity of the same name that already exists in GARM instead of failing. Defaults to false."),
    })
    .strict();
}

export type EntityInputs = z.output<ReturnType<typeof entityInputSchema>> & { installWebhook?: boolean; keepWebhookOnDelete?: boolean; webhookUrl?: string };

/** The inputs with every default filled in, as check returns them and the other methods receive them. */
export interface CheckedEntityInputs {
  name: string;
  credentials: string;
  webhookSecret: string;
  /** The config key the secret came from (common/secrets-from-config.ts); kept so state and program inputs agree. */
  webhookSecretFromConfig?: string;
  poolBalancerType: PoolBalancer;
  agentMode: boolean;
  installWebhook: boolean;
  keepWebhookOnDelete: boolean;
  /** The controller webhook URL the hook follows, when given; recorded so that a new one shows as a change. */
  webhookUrl?: string;
  adoptExisting: boolean;
}

export function withDefaults(inputs: EntityInputs): CheckedEntityInputs {
  return {
    name: inputs.name,
    credentials: inputs.credentials,
    webhookSecret: inputs.webhookSecret ?? "",
    ...(inputs.webhookSecretFromConfig !== undefined ? { webhookSecretFromConfig: inputs.webhookSecretFromConfig } : {}),
    poolBalancerType: inputs.poolBalancerType ?? "roundrobin",
    agentMode: inputs.agentMode ?? false,
    installWebhook: inputs.installWebhook ?? false,
    keepWebhookOnDelete: inputs.keepWebhookOnDelete ?? false,
    ...(inputs.webhookUrl !== undefined ? { webhookUrl: inputs.webhookUrl } : {}),
    adoptExisting: inputs.adoptExisting ?? false,
  };
}
