// Input rules of the entity resources, run by `check` during preview. GARM checks only that name, credentials and
// secret are not empty (params/requests.go L53-148), and answers a missing secret with a bare 500 in v0.2.1
// (garm-behaviour.md §1.7), so the rules here say what is wrong before anything is sent.
import type * as pulumi from "@pulumi/pulumi";
import type { EntityKind } from "../../garm/client";
import { parseKnown } from "../../common/input-check";
import { type EntityInputs, entityInputSchema, withDefaults } from "./inputs";
import { KIND_SPECS } from "./kinds";

type Failure = pulumi.dynamic.CheckFailure;

const show = (value: unknown) => JSON.stringify(value);

function nameFailures(kind: EntityKind, name: string | undefined): Failure[] {
  if (name === undefined) return [];
  if (name.trim() === "") return [{ property: "name", reason: "name must not be empty" }];
  if (/\s/.test(name)) return [{ property: "name", reason: `name ${show(name)} must not contain spaces` }];
  if (kind === "repository" && !/^[^/]+\/[^/]+$/.test(name)) {
    return [{ property: "name", reason: `name ${show(name)} must be "owner/name", e.g. "acme/app"` }];
  }
  if (kind !== "repository" && name.includes("/")) {
    return [{ property: "name", reason: `name ${show(name)} must be a single name without "/" (a repository is a GarmRepository)` }];
  }
  return [];
}

function notEmpty(field: "credentials" | "webhookSecret", value: string | undefined): Failure[] {
  if (value === undefined || value.trim() !== "") return [];
  // Never repeat the secret's value: an empty one has none to repeat.
  return [{ property: field, reason: `${field} must not be empty` }];
}

export interface EntityCheckOutcome {
  readonly inputs: Record<string, unknown>;
  readonly failures: Failure[];
}

/** Validates raw inputs; with no failures, returns them with defaults filled in and unknowns kept as they were. */
export function checkEntityInputs(kind: EntityKind, news: Record<string, unknown>): EntityCheckOutcome {
  const spec = KIND_SPECS[kind];
  if (!spec.webhooks && (news.installWebhook !== undefined || news.keepWebhookOnDelete !== undefined)) {
    const field = news.installWebhook !== undefined ? "installWebhook" : "keepWebhookOnDelete";
    return {
      inputs: news,
      failures: [{ property: field, reason: `${field} is not available for an enterprise: GARM has no webhook route for enterprises; install the enterprise webhook in GitHub yourself` }],
    };
  }
  const checked = parseKnown(entityInputSchema(kind), news, ["name", "credentials", "webhookSecret"], spec.resource);
  if (checked.failures.length > 0 || !checked.parsed) return { inputs: news, failures: checked.failures };
  const p = checked.parsed;
  const failures = [...nameFailures(kind, p.name), ...notEmpty("credentials", p.credentials), ...notEmpty("webhookSecret", p.webhookSecret)];
  if (failures.length > 0) return { inputs: news, failures };
  const unknowns = Object.fromEntries(Object.keys(checked.raw).filter((k) => !checked.known(k)).map((k) => [k, checked.raw[k]]));
  return { inputs: { ...withDefaults(p as EntityInputs), ...unknowns }, failures: [] };
}
