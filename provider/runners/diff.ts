// The diff rules scale sets and pools share: whether new inputs name the entity GARM already has them under (neither
// can move to another entity in GARM), and whether the install template GARM holds is the one the inputs mean.
import { containsUnknown } from "../common/unknown";
import { type TemplateForge, isSystemTemplateName } from "./templates";
import type { StoredEntityFields } from "./state";

/** The inputs that name the entity; a change of what they resolve to replaces the scale set or pool. */
export const ENTITY_INPUTS = ["organization", "repository", "enterprise", "entityId", "endpoint"] as const;

type EntityInputs = Partial<Record<(typeof ENTITY_INPUTS)[number], string>>;

/** Whether the new inputs name the entity the scale set or pool already lives under. */
export function sameEntity(olds: StoredEntityFields, news: Record<string, unknown>): boolean {
  // GARM's ids are UUIDs, which GARM parses in either case.
  if (news.entityId !== undefined) return typeof news.entityId === "string" && news.entityId.toLowerCase() === olds.entityId.toLowerCase();
  const kind = news.organization !== undefined ? "organization" : news.repository !== undefined ? "repository" : "enterprise";
  const name = (news.organization ?? news.repository ?? news.enterprise) as string | undefined;
  if (name === undefined) return false;
  // Entity names are GitHub names, which ignore case.
  const sameName = kind === olds.entityKind && name.toLowerCase() === olds.entityName.toLowerCase();
  // GARM keys endpoints by name ignoring case (database/sql/models.go L464: collate nocase).
  const sameEndpoint = news.endpoint === undefined || (typeof news.endpoint === "string" && news.endpoint.toLowerCase() === olds.endpointName.toLowerCase());
  return sameName && sameEndpoint;
}

/**
 * The entity inputs to mark replaced: none when they resolve to the same entity, else every one given now or before.
 * The stored entityId is the resolved id, an output whether or not the program gave it, so only a given one counts.
 */
export function entityReplacements(olds: StoredEntityFields & EntityInputs, news: Record<string, unknown>): string[] {
  if (!ENTITY_INPUTS.some((f) => containsUnknown(news[f])) && sameEntity(olds, news)) return [];
  return ENTITY_INPUTS.filter((f) => news[f] !== undefined || (f !== "entityId" && olds[f] !== undefined));
}

/** What the template rule reads of the stored outputs. */
export interface HeldTemplate {
  osType: string;
  templateId?: number;
  /** GARM's name of the template, e.g. github_linux; absent in state written before it was kept. */
  templateName?: string;
  /** The forge of the entity's endpoint, whose system templates GARM picks from; absent in state written before it was kept. */
  forgeType?: TemplateForge;
}

/**
 * Whether the template GARM holds differs from the one the inputs mean. GARM keeps the template when only os_type
 * changes (database/sql/util.go L611-628), so an OS change sends the template too: the system one for the new
 * OS when templateId is omitted, or the pinned one, which GARM then checks against the OS.
 */
export function templateChanged(olds: HeldTemplate, news: Record<string, unknown>): boolean {
  const { templateId, osType } = news;
  if (containsUnknown(templateId) || containsUnknown(osType)) return true;
  const osChanged = osType !== undefined && osType !== olds.osType;
  if (templateId !== undefined) return osChanged || templateId !== olds.templateId;
  if (osChanged) return true;
  // State written before template names were kept says nothing about which template GARM holds.
  return olds.templateName !== undefined && !isSystemTemplateName(olds.templateName, (osType ?? olds.osType) as string, olds.forgeType);
}
