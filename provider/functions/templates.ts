// getTemplate and getTemplates: runner install templates, by id, by name, or GARM's system template for a forge and OS
// (the one a scale set or pool without templateId gets). One template list per call.
import { z } from "zod";
import { sameTemplateName } from "../garm/names";
import type { TemplateView } from "../garm/client";
import { OS_TYPES } from "../runners/inputs";
import { systemTemplate } from "../runners/templates";
import { FORGE, defineFunction, optionalText } from "./define";
import { LookupError, nearestText, pickOne } from "./matching";

const templateResult = z.object({
  id: z.number().int().describe("GARM's id of the template: what a scale set or pool takes as templateId."),
  name: z.string().describe("The template's name."),
  osType: z.string().describe("linux or windows."),
  forgeType: z.string().describe("github or gitea."),
  owner: z.string().describe("\"system\" for GARM's own templates, else the id of the user who made it."),
});

const forgeFilter = FORGE.optional().describe("Only templates for this forge: github or gitea.");
const osFilter = z.enum(OS_TYPES).optional().describe("Only templates for this OS: linux or windows.");

const describeTemplate = { what: "template", nameOf: (t: TemplateView) => t.name, placeOf: (t: TemplateView) => `id ${t.id}, ${t.forgeType} ${t.osType}, owner ${t.owner}` };

export const getTemplate = defineFunction({
  name: "getTemplate",
  description:
    "Reads one runner install template: by id, by name (compared exactly, as GARM does), or, given only forge and osType, GARM's system " +
    "template for them, the one a scale set or pool without templateId gets.",
  args: z.object({
    id: z.number().int().positive().optional().describe("The template's GARM id."),
    name: optionalText("The template's name; forge and osType narrow it when several templates have it."),
    forge: forgeFilter,
    osType: osFilter,
  }),
  result: templateResult,
  read: async (garm, args) => {
    if (args.id === undefined && args.name === undefined) {
      if (args.forge === undefined || args.osType === undefined) {
        throw new LookupError("give id, name, or forge and osType (for GARM's system template), e.g. forge: github, osType: linux");
      }
      return systemTemplate(garm, args.forge, args.osType);
    }
    const held = await garm.listTemplates(args.osType, args.forge);
    const filters = [args.forge, args.osType].filter((f) => f !== undefined).join(" ");
    if (args.id !== undefined) {
      const found = held.find((t) => t.id === args.id && (args.name === undefined || sameTemplateName(t.name, args.name)));
      if (found) return found;
      throw new LookupError(`GARM has no ${filters ? `${filters} ` : ""}template with id ${args.id}${args.name ? ` named "${args.name}"` : ""}; ${nearestText(args.name ?? "", held, describeTemplate)}`);
    }
    return pickOne(args.name!, held, () => true, {
      ...describeTemplate,
      same: sameTemplateName,
      narrowWith: "forge and osType, or id",
      scope: filters ? `for ${filters}` : undefined,
    });
  },
});

export const getTemplates = defineFunction({
  name: "getTemplates",
  description: "Lists the runner install templates GARM holds, by id, optionally only those of one forge and OS.",
  args: z.object({ forge: forgeFilter, osType: osFilter }),
  result: z.object({ templates: z.array(templateResult).describe("The templates, by id.") }),
  read: async (garm, args) => ({ templates: (await garm.listTemplates(args.osType, args.forge)).sort((a, b) => a.id - b.id) }),
});
