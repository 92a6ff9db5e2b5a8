// GARM's system runner install templates: the template a scale set or pool gets when templateId is omitted, found the
// way GARM's findTemplate finds it, by OS, by the forge of the entity's credentials and by the "system" owner
// (runner/repositories.go L208-246). A Gitea pool gets gitea_linux, a GitHub one github_linux.
import type { GarmClient, TemplateView } from "../garm/client";

/** The forges GARM has system templates for. */
export const TEMPLATE_FORGES = ["github", "gitea"] as const;
export type TemplateForge = (typeof TEMPLATE_FORGES)[number];
const SYSTEM_OWNER = "system";

/** The forge GARM reports for a scale set's or pool's endpoint; GitHub when it says nothing (scale sets exist only there). */
export function forgeOf(endpointType: string | undefined): TemplateForge {
  return endpointType === "gitea" ? "gitea" : "github";
}

/** The name GARM gives its system template for a forge and OS, e.g. "gitea_linux" (§2.6). */
export function systemTemplateName(forge: TemplateForge, osType: string): string {
  return `${forge}_${osType}`;
}

/**
 * Whether `name` is the system template for this OS on `forge`; with the forge unknown (state written before it was
 * kept), on either forge.
 */
export function isSystemTemplateName(name: string, osType: string, forge: TemplateForge | undefined): boolean {
  const forges = forge === undefined ? TEMPLATE_FORGES : [forge];
  return forges.some((f) => systemTemplateName(f, osType) === name);
}

/** GARM's id of the system template for `forge` and `osType`. Throws when GARM has none (it would refuse a create as well). */
export async function systemTemplateId(client: Pick<GarmClient, "listTemplates">, forge: TemplateForge, osType: string): Promise<number> {
  return (await systemTemplate(client, forge, osType)).id;
}

/** GARM's system template for `forge` and `osType`, from one list. Throws when GARM has none. */
export async function systemTemplate(client: Pick<GarmClient, "listTemplates">, forge: TemplateForge, osType: string): Promise<TemplateView> {
  const templates = await client.listTemplates(osType, forge);
  const system = templates.find((t) => t.osType === osType && t.forgeType === forge && t.owner === SYSTEM_OWNER);
  if (system === undefined) {
    throw new Error(
      `GARM has no ${forge} system runner install template for osType ${osType}; set templateId to one of its ${forge} ${osType} templates ` +
        "(garm-cli template list), or restore the system templates (garm-cli template restore)",
    );
  }
  return system;
}
