// Decides what an input change does to an entity: nothing, an in-place update, or a replacement. GARM's update takes
// only credentials, webhook secret, pool balancer and agent mode (UpdateEntityParams, params/requests.go L300-306), so a
// new name replaces, but not a change of case only: GARM and GitHub take those as one name (garm/names.ts); credentials
// on another endpoint replace too (database/sql/util.go L1184-1186, "endpoint mismatch").
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { type PlannedDiff, plannedDiff } from "../../common/planned-diff";
import type { EntityUpdate } from "../../garm/client";
import type { CheckedEntityInputs } from "./inputs";
import { secretMatches } from "../../common/secret-digest";
import { type EntityOutputs, storedSecret } from "./state";
import { sameCredentialsName, sameEndpointName, sameEntityName } from "../../garm/names";

/** Inputs GARM updates in place, with the key UpdateEntityParams takes. */
export const UPDATABLE = {
  credentials: "credentials_name",
  webhookSecret: "webhook_secret",
  poolBalancerType: "pool_balancer_type",
  agentMode: "agent_mode",
} as const satisfies Record<string, keyof EntityUpdate>;
export type UpdatableField = keyof typeof UPDATABLE;

/** Inputs only this provider reads. */
const PROVIDER_OPTIONS = ["installWebhook", "keepWebhookOnDelete", "adoptExisting"] as const;

const DEFAULTS: Partial<CheckedEntityInputs> = { poolBalancerType: "roundrobin", agentMode: false, installWebhook: false, keepWebhookOnDelete: false, adoptExisting: false };

function wanted(news: Record<string, unknown>, field: string): unknown {
  return news[field] ?? (DEFAULTS as Record<string, unknown>)[field];
}

/** Whether the new webhook secret differs from the one whose hash the state holds. */
export async function secretChanged(olds: EntityOutputs, news: Record<string, unknown>): Promise<boolean> {
  const secret = news.webhookSecret;
  if (containsUnknown(secret)) return true;
  if (typeof secret !== "string") return false;
  return !(await secretMatches(storedSecret(olds), secret));
}

/** GARM-side fields whose new input differs from what the state holds. */
export async function changedFields(olds: EntityOutputs, news: Record<string, unknown>): Promise<UpdatableField[]> {
  const rotated = await secretChanged(olds, news);
  return (Object.keys(UPDATABLE) as UpdatableField[]).filter((field) => {
    if (field === "webhookSecret") return rotated;
    const value = wanted(news, field);
    if (containsUnknown(value)) return true;
    // GARM answers with its own spelling of credentials it matched ignoring case (database/sql/github.go L302-331).
    if (field === "credentials" && typeof value === "string") return !sameCredentialsName(value, olds.credentials);
    return value !== undefined && value !== olds[field];
  });
}

/** Whether the webhook this resource manages must be installed or removed. */
export function webhookChange(olds: EntityOutputs, news: Record<string, unknown>): "install" | "remove" | undefined {
  const install = wanted(news, "installWebhook");
  if (containsUnknown(install)) return "install";
  if (install === true && !olds.webhookInstalled) return "install";
  if (install === false && olds.installWebhook === true && olds.webhookInstalled) return "remove";
  return undefined;
}

/**
 * Whether the controller webhook URL the hook follows changed while the inputs ask for the hook: the update then makes
 * sure GitHub's hook points at GARM's URL (garm-behaviour.md §2.4). Not given now, the URL is no reason for an update.
 */
export function webhookFollows(olds: EntityOutputs, news: Record<string, unknown>): boolean {
  const url = news.webhookUrl;
  if (url === undefined || wanted(news, "installWebhook") !== true) return false;
  return containsUnknown(url) || url !== olds.webhookUrl;
}

/**
 * The pure part of diff. `newCredentialsEndpoint` is the endpoint of the new credentials when diff could look it up
 * (undefined when unchanged, unknown, or not found): another endpoint than the entity's means a replacement.
 */
export async function diffEntity(olds: EntityOutputs, newsWithProvider: Record<string, unknown>, newCredentialsEndpoint?: string): Promise<PlannedDiff> {
  const news = withoutProviderKey(newsWithProvider);
  const replaces: string[] = [];
  // GARM's duplicate check and look-up by name ignore case (garm/names.ts), and so does GitHub: a change of case only is
  // the same entity, recorded in the new spelling while GARM keeps its own. Replacing it would have to delete it first,
  // which GARM refuses while it has pools or scale sets.
  const caseOnly = typeof news.name === "string" && news.name !== olds.name && sameEntityName(news.name, olds.name);
  if (containsUnknown(news.name) || (news.name !== olds.name && !caseOnly)) replaces.push("name");
  if (newCredentialsEndpoint !== undefined && olds.endpointName && !sameEndpointName(newCredentialsEndpoint, olds.endpointName)) replaces.push("credentials");
  const fields = await changedFields(olds, news);
  const options = PROVIDER_OPTIONS.filter((o) => wanted(news, o) !== olds[o]);
  // GARM reports the webhook missing (a refresh saw it) or the program stops managing it: installWebhook says so.
  const webhook = webhookChange(olds, news) !== undefined ? ["installWebhook"] : [];
  const follows = webhookFollows(olds, news) ? ["webhookUrl"] : [];
  // No replacement deletes first: GARM refuses a second entity whose name matches ignoring case only under the same
  // endpoint (runner/organizations.go L56-63, database/sql/organizations.go L285 COLLATE NOCASE), and under the same
  // endpoint only another name replaces; a new endpoint holds no entity of the old one.
  return plannedDiff({
    olds,
    news,
    replaces,
    updates: [...fields, ...options, ...webhook, ...follows, ...(caseOnly ? ["name"] : [])],
    // The outputs keep the webhook secret's digest only.
    digested: olds.webhookSecretHash ? ["webhookSecret"] : [],
  });
}

/** The update body: only the fields that changed. */
export function updateBody(inputs: CheckedEntityInputs, fields: readonly UpdatableField[]): EntityUpdate {
  const body: EntityUpdate = {};
  for (const field of fields) {
    switch (field) {
      case "credentials":
        body.credentials_name = inputs.credentials;
        break;
      case "webhookSecret":
        body.webhook_secret = inputs.webhookSecret;
        break;
      case "poolBalancerType":
        body.pool_balancer_type = inputs.poolBalancerType;
        break;
      case "agentMode":
        body.agent_mode = inputs.agentMode;
        break;
    }
  }
  return body;
}
