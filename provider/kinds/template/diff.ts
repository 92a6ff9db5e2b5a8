// Decides what an input change does to a GarmTemplate. GARM's update takes only name, description and data
// (params/requests.go L910-914, database/sql/templates.go L190-244), so the OS and forge type replace it; the name is
// unique per user (database/sql/models.go L96-97), so a replacement under the same name deletes the old one first.
import { containsUnknown, withoutProviderKey } from "../../common/unknown";
import { type PlannedDiff, plannedDiff } from "../../common/planned-diff";
import type { TemplateOutputs } from "./state";
import { sameTemplateName } from "../../garm/names";

/** Inputs GARM changes in place, with the key its update takes. */
export const TEMPLATE_UPDATABLE = { name: "name", description: "description", body: "data" } as const;
export type TemplateUpdatableField = keyof typeof TEMPLATE_UPDATABLE;
const REPLACING = ["osType", "forgeType"] as const;

/** Why each replaced field replaces, for the plan's log line. */
export const REPLACE_REASONS: Record<(typeof REPLACING)[number], string> = {
  osType: "GARM cannot change a template's OS type",
  forgeType: "GARM cannot change a template's forge type",
};

const differs = (held: unknown, wanted: unknown) => wanted !== undefined && (containsUnknown(wanted) || held !== wanted);

/** Updatable fields whose new value differs from what GARM holds. */
export function changedTemplateFields(olds: Partial<TemplateOutputs>, news: Record<string, unknown>): TemplateUpdatableField[] {
  return (Object.keys(TEMPLATE_UPDATABLE) as TemplateUpdatableField[]).filter((f) => differs(olds[f], news[f]));
}

export function diffTemplate(olds: Partial<TemplateOutputs>, newProps: Record<string, unknown>): PlannedDiff {
  const news = withoutProviderKey(newProps);
  const replaces = REPLACING.filter((f) => differs(olds[f], news[f]));
  const updates = changedTemplateFields(olds, news);
  const options = (["bodyFile", "adoptExisting"] as const).filter((f) => olds[f] !== news[f]);
  // A new template of the same name would be refused while the old one exists (409, database/sql/templates.go L180-183).
  const sameName = !differs(olds.name, news.name) || (typeof news.name === "string" && sameTemplateName(news.name, olds.name ?? ""));
  return plannedDiff({ olds, news, replaces, updates: [...updates, ...options], deleteBeforeReplace: sameName, stables: replaces.length ? undefined : ["templateId"] });
}

/** The PUT body for the changed fields: only those, with the body as base64. */
export function templateUpdateBody(news: { name: string; description: string; body: string }, fields: readonly TemplateUpdatableField[]) {
  const body: { name?: string; description?: string; data?: string } = {};
  if (fields.includes("name")) body.name = news.name;
  if (fields.includes("description")) body.description = news.description;
  if (fields.includes("body")) body.data = Buffer.from(news.body, "utf8").toString("base64");
  return body;
}
