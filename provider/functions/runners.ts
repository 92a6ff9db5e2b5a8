// getScaleSet, getPool and getRunners: a scale set (by id, or by name under an entity), a pool (by id: GARM's pools have
// no name) with their settings and counts, and the runners of either. One list or GET per call.
import { z } from "zod";
import type { EntityKind, InstanceView, ScaleSetView } from "../garm/client";
import { isGarmError } from "../garm/errors";
import { sameEndpointName, sameEntityName } from "../garm/names";
import { hashedBase } from "../runners/naming";
import { defineFunction, optionalText } from "./define";
import { LookupError, pickOne } from "./matching";

const runnerSettings = {
  entityKind: z.string().describe("organization, repository or enterprise."),
  entityId: z.string().describe("GARM's id of the entity it belongs to."),
  entityName: z.string().describe("The entity's name (owner/name for a repository)."),
  providerName: z.string().describe("The GARM provider its runners come from."),
  image: z.string().describe("The runner image."),
  flavor: z.string().describe("The runner flavor."),
  osType: z.string().describe("linux or windows."),
  osArch: z.string().describe("amd64, arm64, ..."),
  labels: z.array(z.string()).describe("Its labels, as GARM holds them."),
  enabled: z.boolean().describe("Whether GARM starts runners for it."),
  minIdleRunners: z.number().int().describe("Idle runners GARM keeps ready."),
  maxRunners: z.number().int().describe("The most runners it may have."),
  runnerPrefix: z.string().describe("The prefix of its runners' names."),
  runnerGroup: z.string().describe("The GitHub runner group; empty for the default group."),
  runnerBootstrapTimeout: z.number().int().describe("Minutes a runner may take to come up."),
  extraSpecs: z.string().describe("The extra specs as compact JSON; empty when none are set."),
  templateId: z.number().int().describe("GARM's id of its runner install template; 0 when GARM answered none."),
  enableShell: z.boolean().describe("Whether GARM's shell into its runners is enabled."),
};

function entityFields(entity: { kind: EntityKind; id: string; name: string } | undefined) {
  return { entityKind: entity?.kind ?? "", entityId: entity?.id ?? "", entityName: entity?.name ?? "" };
}

function extraSpecsText(specs: unknown): string {
  return specs === undefined || specs === null ? "" : JSON.stringify(specs);
}

/** What scale sets and pools both answer. */
type RunnerSettingsView = Pick<
  ScaleSetView,
  | "entity"
  | "providerName"
  | "image"
  | "flavor"
  | "osType"
  | "osArch"
  | "labels"
  | "enabled"
  | "minIdleRunners"
  | "maxRunners"
  | "runnerPrefix"
  | "runnerGroup"
  | "runnerBootstrapTimeout"
  | "extraSpecs"
  | "templateId"
  | "enableShell"
>;

function settingsOf(s: RunnerSettingsView) {
  return {
    ...entityFields(s.entity),
    providerName: s.providerName,
    image: s.image,
    flavor: s.flavor,
    osType: s.osType,
    osArch: s.osArch,
    labels: s.labels,
    enabled: s.enabled,
    minIdleRunners: s.minIdleRunners,
    maxRunners: s.maxRunners,
    runnerPrefix: s.runnerPrefix,
    runnerGroup: s.runnerGroup,
    runnerBootstrapTimeout: s.runnerBootstrapTimeout,
    extraSpecs: extraSpecsText(s.extraSpecs),
    templateId: s.templateId ?? 0,
    enableShell: s.enableShell,
  };
}

/** A GET by id that GARM answers 404 for names nothing: said as a look-up failure, with what was asked. */
async function byId<T>(what: string, id: string | number, get: () => Promise<T>): Promise<T> {
  try {
    return await get();
  } catch (err) {
    if (isGarmError(err, "not-found")) throw new LookupError(`GARM has no ${what} with id ${id}`);
    throw err;
  }
}

export const getScaleSet = defineFunction({
  name: "getScaleSet",
  description:
    "Reads a scale set: by GARM id, or by name, its live name or the name a GarmScaleSet was given (whose live name adds a label hash), " +
    "narrowed by its entity and endpoint when several scale sets have it. Its settings and runner counts.",
  args: z.object({
    id: z.number().int().positive().optional().describe("The scale set's GARM id."),
    name: optionalText("The scale set's name in GARM, or the name its GarmScaleSet was given."),
    organization: optionalText("Only a scale set of this organization."),
    repository: optionalText("Only a scale set of this repository (owner/name)."),
    enterprise: optionalText("Only a scale set of this enterprise."),
    endpoint: optionalText("Only a scale set of an entity on this endpoint."),
  }),
  result: z.object({
    id: z.number().int().describe("GARM's id of the scale set."),
    name: z.string().describe("Its name in GARM (the live name)."),
    endpoint: z.string().describe("The endpoint of its entity."),
    ...runnerSettings,
    desiredRunnerCount: z.number().int().describe("How many runners GitHub last asked for."),
    githubScaleSetId: z.number().int().describe("GitHub's id of the scale set (which can change)."),
  }),
  read: async (garm, args) => {
    const view = args.id !== undefined ? await byId("scale set", args.id, () => garm.getScaleSet(args.id!)) : await scaleSetNamed(garm, args);
    return { id: view.id, name: view.name, endpoint: view.endpoint, ...settingsOf(view), desiredRunnerCount: view.desiredRunnerCount, githubScaleSetId: view.githubScaleSetId };
  },
});

type ScaleSetArgs = { name?: string; organization?: string; repository?: string; enterprise?: string; endpoint?: string };

async function scaleSetNamed(garm: { listScaleSets(): Promise<ScaleSetView[]> }, args: ScaleSetArgs): Promise<ScaleSetView> {
  if (args.name === undefined) throw new LookupError("give id or name");
  const asked = args.name;
  const held = await garm.listScaleSets();
  // A live name GARM holds wins over the generations of a GarmScaleSet of that name.
  const exact = held.some((s) => s.name === asked);
  const owners: [EntityKind, string | undefined][] = [
    ["organization", args.organization],
    ["repository", args.repository],
    ["enterprise", args.enterprise],
  ];
  const given = owners.filter(([, name]) => name !== undefined);
  const inScope = (s: ScaleSetView) =>
    given.every(([kind, name]) => s.entity?.kind === kind && sameEntityName(s.entity.name, name!)) && (args.endpoint === undefined || sameEndpointName(s.endpoint, args.endpoint));
  const scope = [...given.map(([kind, name]) => `${kind} "${name}"`), ...(args.endpoint ? [`endpoint "${args.endpoint}"`] : [])].join(", ");
  return pickOne(asked, held, inScope, {
    what: "scale set",
    nameOf: (s) => s.name,
    same: exact ? (a, b) => a === b : (live, base) => hashedBase(live) === base,
    placeOf: (s) => `id ${s.id}, ${s.entity?.kind ?? "entity"} ${s.entity?.name ?? "?"}, endpoint ${s.endpoint}`,
    narrowWith: "organization, repository or enterprise, endpoint, or id",
    scope: scope ? `of ${scope}` : undefined,
  });
}

export const getPool = defineFunction({
  name: "getPool",
  description: "Reads a pool by its GARM id (GARM's pools have no name): its settings and how many runners it has.",
  args: z.object({ id: z.string().min(1).describe("The pool's GARM id (a UUID).") }),
  result: z.object({
    id: z.string().describe("GARM's id of the pool."),
    ...runnerSettings,
    priority: z.number().int().describe("When several pools match a job, the higher priority gets it."),
    runnerCount: z.number().int().describe("How many runners it has, in any state."),
  }),
  read: async (garm, args) => {
    const pool = await byId("pool", args.id, () => garm.getPool(args.id));
    return { id: pool.id, ...settingsOf(pool), priority: pool.priority, runnerCount: pool.instances.length };
  },
});

const runnerResult = z.object({
  name: z.string().describe("The runner's name."),
  status: z.string().describe("GARM's status of the instance: pending_create, running, pending_delete, error, ..."),
  runnerStatus: z.string().describe("What the runner reports: installing, idle, active, ..."),
  createdAt: z.string().describe("When GARM made it (RFC 3339); empty when GARM did not say."),
  updatedAt: z.string().describe("When GARM last changed it (RFC 3339); empty when GARM did not say."),
});

export const getRunners = defineFunction({
  name: "getRunners",
  description: "Lists the runners of a scale set or a pool, by name. GARM answers an empty list for a scale set id it does not have.",
  args: z.object({
    scaleSetId: z.number().int().positive().optional().describe("The scale set's GARM id."),
    poolId: optionalText("The pool's GARM id."),
  }),
  result: z.object({ runners: z.array(runnerResult).describe("The runners, by name.") }),
  read: async (garm, args) => {
    if ((args.scaleSetId === undefined) === (args.poolId === undefined)) throw new LookupError("give either scaleSetId or poolId");
    const runners: InstanceView[] =
      args.scaleSetId !== undefined ? await garm.listScaleSetInstances(args.scaleSetId) : await byId("pool", args.poolId!, () => garm.listPoolInstances(args.poolId!));
    return {
      runners: runners
        .map((r) => ({ name: r.name, status: r.status, runnerStatus: r.runnerStatus, createdAt: r.createdAt ?? "", updatedAt: r.updatedAt ?? "" }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  },
});
