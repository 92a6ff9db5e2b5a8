// getController and getProviders: what GARM is (its id, URLs and version) and which external providers it has loaded.
import { z } from "zod";
import { defineFunction } from "./define";

export const getController = defineFunction({
  name: "getController",
  description:
    "Reads GARM's controller: its id, the URLs runners and GitHub reach it at, and its version. Wire `controllerWebhookUrl` into the " +
    "GitHub webhook another provider manages.",
  args: z.object({}),
  result: z.object({
    controllerId: z.string().describe("GARM's controller id, the same for as long as its database lives."),
    metadataUrl: z.string().describe("The URL runners fetch their metadata from; empty until set."),
    callbackUrl: z.string().describe("The URL runners report their status to; empty until set."),
    webhookUrl: z.string().describe("The webhook base URL; empty until set."),
    controllerWebhookUrl: z.string().describe("The URL GitHub delivers this GARM's webhooks to: webhookUrl plus the controller id."),
    minimumJobAgeBackoff: z.number().int().describe("Seconds GARM waits after a job is queued before it starts a runner for it."),
    version: z.string().describe("GARM's version, e.g. v0.2.1."),
  }),
  read: (garm) => garm.getController(),
});

const providerResult = z.object({
  name: z.string().describe("The name scale sets and pools give as providerName."),
  type: z.string().describe("\"external\" for a provider executable GARM runs."),
  description: z.string().describe("The description from GARM's config file."),
});

export const getProviders = defineFunction({
  name: "getProviders",
  description: "Lists the providers GARM has loaded from its config file, sorted by name: the names a scale set's or pool's providerName can take.",
  args: z.object({}),
  result: z.object({ providers: z.array(providerResult).describe("GARM's loaded providers.") }),
  // GARM lists them in random order (garm-behaviour.md §2.3); sorted, a stack output does not change between runs.
  read: async (garm) => ({ providers: (await garm.listProviders()).sort((a, b) => a.name.localeCompare(b.name)) }),
});
