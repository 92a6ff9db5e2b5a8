// getEndpoint and getCredentials: a forge endpoint and the credentials GARM holds for one, by name. GARM lists each
// forge's endpoints and credentials apart (garm-behaviour.md §2.5), so a function reads the list of the forge asked.
import { z } from "zod";
import { sameCredentialsName, sameEndpointName } from "../garm/names";
import { FORGE, defineFunction, optionalText } from "./define";
import { pickOne } from "./matching";

const forgeArg = FORGE.default("github").describe("The forge: github (GitHub and GitHub Enterprise Server) or gitea. Defaults to github.");

export const getEndpoint = defineFunction({
  name: "getEndpoint",
  description: "Reads a forge endpoint GARM holds, by name (compared ignoring case, as GARM does): the name GARM's entities and credentials give as endpoint.",
  args: z.object({
    name: z.string().min(1).describe("The endpoint's name, e.g. github.com."),
    forge: forgeArg,
  }),
  result: z.object({
    name: z.string().describe("The name as GARM stores it."),
    forge: z.string().describe("github or gitea."),
    description: z.string().describe("The endpoint's description."),
    baseUrl: z.string().describe("The forge's web URL."),
    apiBaseUrl: z.string().describe("The forge's API URL."),
    uploadBaseUrl: z.string().describe("The forge's upload URL (GitHub only)."),
  }),
  read: async (garm, args) => {
    const endpoints = await garm.listEndpoints(args.forge);
    const found = pickOne(args.name, endpoints, () => true, {
      what: `${args.forge} endpoint`,
      nameOf: (e) => e.name,
      same: sameEndpointName,
      missHint: `if it is a ${otherForge(args.forge)} endpoint, give forge: ${otherForge(args.forge)}`,
    });
    return { name: found.name, forge: found.forge, description: found.description, baseUrl: found.baseUrl, apiBaseUrl: found.apiBaseUrl, uploadBaseUrl: found.uploadBaseUrl };
  },
});

export const getCredentials = defineFunction({
  name: "getCredentials",
  description:
    "Reads forge credentials GARM holds, by name (unique per forge, compared ignoring case): the name an organization, repository or " +
    "enterprise gives as credentials. Never a secret: GARM does not answer with tokens or keys.",
  args: z.object({
    name: z.string().min(1).describe("The credentials' name."),
    forge: forgeArg,
    endpoint: optionalText("The endpoint the credentials must be for; a look-up that finds them for another endpoint fails."),
  }),
  result: z.object({
    id: z.number().int().describe("GARM's id of the credentials (numbered per forge)."),
    name: z.string().describe("The name as GARM stores it."),
    forge: z.string().describe("github or gitea."),
    endpoint: z.string().describe("The endpoint the credentials are for."),
    description: z.string().describe("The credentials' description."),
    authType: z.string().describe("pat or app."),
  }),
  read: async (garm, args) => {
    const held = await garm.listCredentials(args.forge);
    const found = pickOne(args.name, held, (c) => args.endpoint === undefined || sameEndpointName(c.endpoint, args.endpoint), {
      what: `${args.forge} credentials`,
      nameOf: (c) => c.name,
      same: sameCredentialsName,
      placeOf: (c) => `endpoint ${c.endpoint}`,
      scope: args.endpoint === undefined ? undefined : `for endpoint "${args.endpoint}"`,
      missHint: `if they are ${otherForge(args.forge)} credentials, give forge: ${otherForge(args.forge)}`,
    });
    return { id: found.id, name: found.name, forge: found.forge, endpoint: found.endpoint, description: found.description, authType: found.authType };
  },
});

function otherForge(forge: z.output<typeof FORGE>): z.output<typeof FORGE> {
  return forge === "github" ? "gitea" : "github";
}
