// Which GARM a resource lives in. GARM ids are its database's (scale set ids count up from 1 in every GARM), so an id
// read through a connection that now reaches another GARM names somebody else's object. Every resource records the
// controller id of the GARM that holds it (garm-behaviour.md §1.4), and no operation acts on it through a connection
// that reaches a different GARM: the same GARM behind a new URL is no change, another GARM is refused by name.
import type * as pulumi from "@pulumi/pulumi";
import { GarmClient } from "../garm/client";
import type { ControllerView } from "../garm/views";
import { SharedAnswers, perClient } from "../garm/per-client";
import type { ConnectionSettings } from "./config";

type Props = Record<string, unknown>;

/** The output every kind records: GARM's controller id (GET /controller's `controller_id`). */
export const GARM_IDENTITY_OUTPUT = "garmControllerId";

/** Bound on one identity read where an answer is optional, so an unreachable GARM delays a step by this much at most. */
export const IDENTITY_TIMEOUT_MS = 5000;

const answers = perClient((_client: GarmClient) => new SharedAnswers<ControllerView>());

/** GARM's controller info, read once per client however many operations ask (a failed read is asked again). */
export function controllerInfoOf(client: GarmClient): Promise<ControllerView> {
  return answers(client).get("", () => client.getController());
}

/** GARM's controller info, or undefined when it does not answer within `timeoutMs`; a failed read throws. */
export async function controllerInfoWithin(client: GarmClient, timeoutMs: number): Promise<ControllerView | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([controllerInfoOf(client), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The controller id of the GARM `client` reaches, or undefined when GARM does not answer within `timeoutMs`. */
export async function garmIdentityOf(client: GarmClient, timeoutMs = IDENTITY_TIMEOUT_MS): Promise<string | undefined> {
  try {
    return (await controllerInfoWithin(client, timeoutMs))?.controllerId || undefined;
  } catch {
    return undefined;
  }
}

/** Refused: the resource lives in one GARM, and the connection reaches another. */
export class OtherGarmError extends Error {
  override readonly name = "OtherGarmError";
  constructor(
    readonly recorded: string,
    readonly reached: string,
    url: string,
    id: string,
    urlSetting = "garm:url",
  ) {
    super(
      `this resource (GARM id ${id}) lives in GARM ${recorded}, but ${urlSetting} ${url} reaches GARM ${reached}: ` +
        `pulumi-garm will not read, change or delete it there. Point ${urlSetting} back at the GARM that holds it; ` +
        "to move the stack, run `pulumi destroy` against the old GARM first (with the garm plugin, a provider whose " +
        "garm:url reaches another GARM replaces its resources); to leave it where it is, `pulumi state delete` its URN",
    );
  }
}

function recordedIn(props: Props | undefined): string | undefined {
  const value = props?.[GARM_IDENTITY_OUTPUT];
  return typeof value === "string" && value ? value : undefined;
}

/**
 * The GARM `client` reaches, after refusing when `props` record a different one. Resources recorded before this
 * output existed, and a GARM that does not answer (the operation itself then says why), are not refused.
 */
export async function reachedGarm(client: () => GarmClient, id: string, props: Props | undefined): Promise<string | undefined> {
  let reaching: GarmClient;
  try {
    reaching = client();
  } catch {
    // A setting is wrong: the operation says which (diff at preview needs no GARM and goes on).
    return undefined;
  }
  const reached = await garmIdentityOf(reaching);
  const recorded = recordedIn(props);
  if (reached && recorded && reached !== recorded) throw new OtherGarmError(recorded, reached, reaching.garmUrl, id, reaching.urlSetting);
  return reached;
}

/** `outs` with the GARM they live in: the one reached, else what was recorded before. */
export function withGarmIdentity(outs: Props | undefined, reached: string | undefined, before?: Props): Props {
  const identity = reached ?? recordedIn(before);
  return identity ? { ...(outs ?? {}), [GARM_IDENTITY_OUTPUT]: identity } : { ...(outs ?? {}) };
}

/**
 * `provider` acting only in the GARM each resource lives in, and recording it in the outputs. A create records the GARM
 * after it succeeded, never failing for it: GarmProvider's create may start GARM, and a created object must reach state.
 */
export function keptInItsGarm(provider: pulumi.dynamic.ResourceProvider, client: () => GarmClient): pulumi.dynamic.ResourceProvider {
  const { create, read, diff, update, delete: remove } = provider;
  return {
    ...provider,
    create: async (inputs) => {
      const result = await create.call(provider, inputs);
      return { ...result, outs: withGarmIdentity(result.outs, await reachedGarm(client, result.id, undefined)) };
    },
    ...(read && {
      read: async (id, props) => {
        const reached = await reachedGarm(client, id, props);
        const result = await read.call(provider, id, props);
        return result.props ? { ...result, props: withGarmIdentity(result.props, reached, props) } : result;
      },
    }),
    ...(diff && {
      diff: async (id, olds, news) => {
        await reachedGarm(client, id, olds);
        return diff.call(provider, id, olds, news);
      },
    }),
    ...(update && {
      update: async (id, olds, news) => {
        const reached = await reachedGarm(client, id, olds);
        const result = await update.call(provider, id, olds, news);
        return { ...result, outs: withGarmIdentity(result.outs, reached, olds) };
      },
    }),
    ...(remove && {
      delete: async (id, props) => {
        await reachedGarm(client, id, props);
        await remove.call(provider, id, props);
      },
    }),
  };
}

/** Whether two connections reach one GARM: "unknown" when either does not answer, or a setting is not known yet. */
export type GarmMove = { readonly kind: "same" | "unknown" } | { readonly kind: "other"; readonly from: string; readonly to: string };

/** Compares the GARMs behind two sets of connection settings by their controller ids. */
export async function garmMove(from: ConnectionSettings | undefined, to: ConnectionSettings | undefined): Promise<GarmMove> {
  if (!from || !to) return { kind: "unknown" };
  const [a, b] = await Promise.all([garmIdentityOf(new GarmClient(from)), garmIdentityOf(new GarmClient(to))]);
  if (!a || !b) return { kind: "unknown" };
  return a === b ? { kind: "same" } : { kind: "other", from: a, to: b };
}
