// GARM's system runner install templates (garm-behaviour.md §2.6, §4.4): the template a scale set gets when templateId is
// omitted, found the way GARM's findTemplate finds it, by OS, forge and the "system" owner.
import type { GarmClient } from "../garm/client";

/** Scale sets exist only under GitHub entities (§4.4), so the system templates they use are GitHub's. */
const FORGE = "github";
const SYSTEM_OWNER = "system";

/** The name GARM gives its system template for an OS, e.g. "github_windows" (§2.6). */
export function systemTemplateName(osType: string): string {
  return `${FORGE}_${osType}`;
}

/** GARM's id of the system template for `osType`. Throws when GARM has none (it would refuse a create as well). */
export async function systemTemplateId(client: Pick<GarmClient, "listTemplates">, osType: string): Promise<number> {
  const templates = await client.listTemplates(osType, FORGE);
  const system = templates.find((t) => t.osType === osType && t.forgeType === FORGE && t.owner === SYSTEM_OWNER);
  if (system === undefined) {
    throw new Error(
      `GARM has no system runner install template for osType ${osType}; set templateId to one of its ${osType} templates ` +
        "(garm-cli template list), or restore the system templates (garm-cli template restore)",
    );
  }
  return system.id;
}
