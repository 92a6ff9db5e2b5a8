// getOrganization, getRepository and getEnterprise: a GARM entity by name and endpoint, answering the id scale sets
// and pools take as entityId. One list of the kind per call; names compare ignoring case, as GARM's look-up does.
import { z } from "zod";
import type { EntityKind } from "../garm/client";
import { sameEndpointName, sameEntityName } from "../garm/names";
import { defineFunction, optionalText } from "./define";
import { pickOne } from "./matching";

const entityResult = z.object({
  id: z.string().describe("GARM's id of the entity: what a scale set or pool takes as entityId."),
  name: z.string().describe("The name as GARM stores it (owner/name for a repository)."),
  endpoint: z.string().describe("The endpoint the entity is on."),
  credentials: z.string().describe("The name of the credentials GARM uses for it."),
  poolBalancerType: z.string().describe("roundrobin or pack."),
  agentMode: z.boolean().describe("Whether GARM runs its runners in agent mode."),
});

function entityFunction(kind: EntityKind, name: string, example: string) {
  return defineFunction({
    name,
    description:
      `Reads ${kind === "repository" ? "a" : "an"} ${kind} GARM holds, by name (compared ignoring case, as GARM does) and, where two endpoints hold that name, endpoint: ` +
      `its id, which scale sets and pools take as entityId, and its settings. Refer to a ${kind} another stack manages.`,
    args: z.object({
      name: z.string().min(1).describe(`The ${kind}'s name, e.g. ${example}.`),
      endpoint: optionalText("The endpoint the entity is on; needed only when two endpoints hold the name."),
    }),
    result: entityResult,
    read: async (garm, args) => {
      const held = await garm.listEntities(kind);
      return pickOne(args.name, held, (e) => args.endpoint === undefined || sameEndpointName(e.endpoint, args.endpoint), {
        what: kind,
        nameOf: (e) => e.name,
        same: sameEntityName,
        placeOf: (e) => `endpoint ${e.endpoint}`,
        narrowWith: "endpoint",
        scope: args.endpoint === undefined ? undefined : `on endpoint "${args.endpoint}"`,
      });
    },
  });
}

export const getOrganization = entityFunction("organization", "getOrganization", "acme");
export const getRepository = entityFunction("repository", "getRepository", "acme/app");
export const getEnterprise = entityFunction("enterprise", "getEnterprise", "acme-ent");
