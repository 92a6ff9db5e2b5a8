// What differs between GARM's three entity kinds, in one table: every other part of provider/entity serves all three.
import type { EntityKind } from "../../garm/client";

export interface KindSpec {
  readonly kind: EntityKind;
  /** The Pulumi resource type, which messages name. */
  readonly resource: "GarmOrganization" | "GarmRepository" | "GarmEnterprise";
  /** GARM has webhook routes for organizations and repositories only (apiserver/routers/routers.go L384-394, L442-452). */
  readonly webhooks: boolean;
  /** How garm-cli names the kind, for remedies. */
  readonly cliNoun: string;
}

export const KIND_SPECS: Record<EntityKind, KindSpec> = {
  organization: { kind: "organization", resource: "GarmOrganization", webhooks: true, cliNoun: "organization" },
  repository: { kind: "repository", resource: "GarmRepository", webhooks: true, cliNoun: "repository" },
  enterprise: { kind: "enterprise", resource: "GarmEnterprise", webhooks: false, cliNoun: "enterprise" },
};
