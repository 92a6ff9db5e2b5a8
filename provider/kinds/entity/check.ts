// Input rules of the entity resources, run by `check` during preview. GARM checks only that name, credentials and
// secret are not empty (params/requests.go L53-148), and answers a missing secret with a bare 500 in v0.2.1
// (garm-behaviour.md §1.7), so the rules here say what is wrong before anything is sent.
import type { EntityKind } from "../../garm/client";
import { type CheckOutcome, type Failure, type InputCheck, checkInputs, fail, show } from "../../common/input-check";
import { type EntityInputs, entityInputSchema, withDefaults } from "./inputs";
import { KIND_SPECS } from "./kinds";
import { type ConfigLookup, type SecretFromConfig, secretsFromConfig } from "../../common/secrets-from-config";

/** The secret that may be named by a stack config key instead (what `pulumi import` writes). */
export const ENTITY_SECRETS_FROM_CONFIG: readonly SecretFromConfig[] = [{ secret: "webhookSecret", keyInput: "webhookSecretFromConfig", what: "webhook secret" }];

function secretGiven(p: Partial<EntityInputs>): Failure[] {
  return p.webhookSecret === undefined ? [fail("webhookSecret", "webhookSecret is required (or webhookSecretFromConfig, the stack config key holding it)")] : [];
}

function nameFailures(kind: EntityKind, name: string | undefined): Failure[] {
  if (name === undefined) return [];
  if (name.trim() === "") return [fail("name", "name must not be empty")];
  if (/\s/.test(name)) return [fail("name", `name ${show(name)} must not contain spaces`)];
  if (kind === "repository" && !/^[^/]+\/[^/]+$/.test(name)) {
    return [fail("name", `name ${show(name)} must be "owner/name", e.g. "acme/app"`)];
  }
  if (kind !== "repository" && name.includes("/")) {
    return [fail("name", `name ${show(name)} must be a single name without "/" (a repository is a GarmRepository)`)];
  }
  return [];
}

function notEmpty(field: "credentials" | "webhookSecret", value: string | undefined): Failure[] {
  if (value === undefined || value.trim() !== "") return [];
  return [fail(field, `${field} must not be empty`)];
}

const NO_ENTERPRISE_WEBHOOK = (field: string) =>
  `${field} is not available for an enterprise: GARM has no webhook route for enterprises; install the enterprise webhook in GitHub yourself`;

const checks = new Map<EntityKind, InputCheck<EntityInputs>>();

function checkOf(kind: EntityKind): InputCheck<EntityInputs> {
  let check = checks.get(kind);
  if (!check) {
    const spec = KIND_SPECS[kind];
    check = {
      schema: entityInputSchema(kind),
      resource: spec.resource,
      notTaken: spec.webhooks
        ? {}
        : { installWebhook: NO_ENTERPRISE_WEBHOOK("installWebhook"), keepWebhookOnDelete: NO_ENTERPRISE_WEBHOOK("keepWebhookOnDelete"), webhookUrl: NO_ENTERPRISE_WEBHOOK("webhookUrl") },
      rules: [(p) => [...nameFailures(kind, p.name), ...notEmpty("credentials", p.credentials), ...notEmpty("webhookSecret", p.webhookSecret)], (p, known) => (known("webhookSecret") ? secretGiven(p) : [])],
      withDefaults: (p) => ({ ...withDefaults(p as EntityInputs) }),
    };
    checks.set(kind, check);
  }
  return check;
}

export type EntityCheckOutcome = CheckOutcome;

/** Validates raw inputs; with no failures, returns them with defaults filled in and unknowns kept as they were. */
export function checkEntityInputs(kind: EntityKind, news: Record<string, unknown>, config?: ConfigLookup): EntityCheckOutcome {
  const resolved = secretsFromConfig(`${KIND_SPECS[kind].resource} ${String(news.name ?? "")}`, news, ENTITY_SECRETS_FROM_CONFIG, config);
  if (resolved.failures.length > 0) return { inputs: news, failures: resolved.failures };
  return checkInputs(checkOf(kind), resolved.news);
}
