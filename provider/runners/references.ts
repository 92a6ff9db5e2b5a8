// Preview-time check of what a scale set refers to in GARM: its provider and its organization, repository or
// enterprise. GARM itself accepts a scale set for a provider it has not loaded (§4.4, §9.3) and an unknown entity fails
// only at `up`; reading GARM here (GETs only, through the planning gate, with the run-wide lookups so 100 scale sets
// cost one GET per distinct reference) turns both into check failures. A value not yet known at preview is checked by
// the check `up` runs once it is known, which comes before any write.
import { isDeepStrictEqual } from "node:util";
import type { EntityKind } from "../garm/client";
import { containsUnknown } from "../common/unknown";
import { type LookupSource, declarationsFor, lookupsFor } from "../garm/lookups";
import type { GatedRead } from "./drained";
import type { RunnerSettings } from "./inputs";

type Failure = { property: string; reason: string };
type Gate = <T>(read: () => Promise<T>) => Promise<GatedRead<T>>;
type LookupClient = LookupSource;

export interface ReferenceDeps {
  /** Throws when the connection settings are missing or bad: then nothing is checked here. */
  readonly client: () => LookupClient;
  readonly gate: Gate;
}

const ENTITY_FIELDS = [
  ["organization", "organization"],
  ["repository", "repository"],
  ["enterprise", "enterprise"],
] as const satisfies readonly (readonly [keyof RunnerSettings, EntityKind])[];

/** Check failures for references GARM does not have; none when GARM cannot be asked. */
export async function referenceFailures(
  inputs: Partial<RunnerSettings>,
  known: (field: string) => boolean,
  /** Differs from the resource's previous inputs: an unchanged reference of an existing scale set is not asked about. */
  isNew: (field: string) => boolean,
  deps: ReferenceDeps,
): Promise<Failure[]> {
  let client: LookupClient;
  try {
    client = deps.client();
  } catch {
    return []; // Connection settings not known: `up` reports them.
  }
  const lookups = lookupsFor(client);
  const declared = declarationsFor(client);
  const checks: Promise<Failure | undefined>[] = [];

  const providerName = inputs.providerName;
  if (known("providerName") && isNew("providerName") && typeof providerName === "string" && !declared.isDeclaredProvider(providerName)) {
    checks.push(
      deps.gate(() => lookups.providersIncluding(providerName)).then((read) => {
        if (!read.ok || read.value.some((p) => p.name === providerName)) return undefined;
        const has = read.value.map((p) => p.name).join(", ") || "none";
        return {
          property: "providerName",
          reason:
            `providerName ${JSON.stringify(providerName)} is not a provider GARM has loaded (it has: ${has}); add it to GARM's config and ` +
            "restart GARM, or, when a GarmProvider in this program adds it, pass that resource's name output (providerName: provider.name)",
        };
      }),
    );
  }

  if (known("endpoint")) {
    for (const [field, kind] of ENTITY_FIELDS) {
      const name = inputs[field];
      if (!known(field) || typeof name !== "string" || !(isNew(field) || isNew("endpoint"))) continue;
      if (declared.isDeclaredEntity(kind, name)) continue;
      const endpoint = inputs.endpoint;
      checks.push(
        deps.gate(() => lookups.findEntities(kind, name, endpoint)).then((read) => {
          if (!read.ok || read.value.length > 0) return undefined;
          const where = endpoint ? ` under endpoint ${endpoint}` : "";
          return {
            property: field,
            reason: `${field} ${JSON.stringify(name)}${where} is not known to GARM (it has no ${kind} of that name): add it first (garm-cli ${kind} add), or fix the name`,
          };
        }),
      );
    }
  }
  // An id is GARM's own, so no entity this run creates can have it before it exists: a known one must be in GARM now.
  const entityId = inputs.entityId;
  if (known("entityId") && typeof entityId === "string" && isNew("entityId")) {
    checks.push(
      deps.gate(() => lookups.entityById(entityId)).then((read) => {
        if (!read.ok || read.value !== undefined) return undefined;
        return {
          property: "entityId",
          reason:
            `entityId ${JSON.stringify(entityId)} is not an organization, repository or enterprise known to GARM: pass the entityId output ` +
            "of a GarmOrganization, GarmRepository or GarmEnterprise, or an id `garm-cli organization list` shows",
        };
      }),
    );
  }
  return (await Promise.all(checks)).filter((f): f is Failure => f !== undefined);
}

/** A passed check, with its references then asked about: only those this run would use anew (isNew). */
export async function withReferenceChecks(
  checked: { inputs: Record<string, unknown>; failures: Failure[] },
  olds: Record<string, unknown> | undefined,
  news: Record<string, unknown>,
  deps: ReferenceDeps,
): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
  if (checked.failures.length > 0) return checked;
  const inputs = checked.inputs;
  const known = (field: string) => !containsUnknown(inputs[field]);
  // An existing resource keeps its provider and entity: asking again would fail a plan once GARM lost them.
  const isNew = (field: string) => !isDeepStrictEqual(olds?.[field], inputs[field]);
  const failures = await referenceFailures(inputs, known, isNew, deps);
  return failures.length > 0 ? { inputs: news, failures } : checked;
}
