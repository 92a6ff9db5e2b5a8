// A resource's own GARM: a TypeScript resource may name its GARM in the input `garm` instead of the stack's `garm:*`
// config, so one program manages several GARMs (docs/concepts/several-garms.md). The dynamic provider has one process
// for every resource of a run, so the connection travels with each resource: it is an input and an output (kept
// secret by the SDK), and every method runs against the connection the resource holds (connection.ts inConnection):
// check validates it, create and update use the new one, diff the new one (the identity check then compares GARMs),
// read and delete the one stored. No kind sees it.
import type * as pulumi from "@pulumi/pulumi";
import { type Connection, connectionFor, inConnection } from "./common/connection";
import { connectionSettingsOf, sameConnection } from "./common/garm-connection-input";
import { probeGarmOnce } from "./common/garm-probe";
import { consoleLogger } from "./common/log";
import type { PlannedDiff } from "./common/planned-diff";
import { GARM_INPUT as GARM_CONNECTION_INPUT } from "./registry/kinds";

type Props = Record<string, unknown>;

/** The connection's secret, which no error may quote (common/user-facing.ts). */
export const GARM_CONNECTION_SECRET_PATHS: readonly string[] = [`${GARM_CONNECTION_INPUT}.password`];

function connectionIn(props: Props | undefined): unknown {
  return props?.[GARM_CONNECTION_INPUT];
}

function without(props: Props | undefined): Props {
  const { [GARM_CONNECTION_INPUT]: _connection, ...rest } = props ?? {};
  return rest;
}

/** `to` carrying the connection `from` holds, if any. */
function carrying(to: Props | undefined, from: Props | undefined): Props {
  const connection = connectionIn(from);
  return connection === undefined ? { ...(to ?? {}) } : { ...(to ?? {}), [GARM_CONNECTION_INPUT]: connection };
}

/** The connection `props` names, once checked (check refused a bad one at preview); undefined for the stack's. */
async function namedConnection(props: Props | undefined): Promise<Connection | undefined> {
  const given = connectionIn(props);
  if (given === undefined) return undefined;
  const { settings, problems } = connectionSettingsOf(given, GARM_CONNECTION_INPUT);
  if (!settings) {
    const why = problems.length > 0 ? problems.map((p) => `${p.property}: ${p.reason}`).join("; ") : "garm: not known until the resources it comes from exist";
    return connectionFor(new Error(why));
  }
  const connection = connectionFor(settings);
  const client = connection.tryClient();
  if (client) await probeGarmOnce(client, consoleLogger);
  return connection;
}

/** Runs `operation` in the GARM `props` name (their own connection), or in the stack's when they name none. */
async function inGarmOf<T>(props: Props | undefined, operation: () => Promise<T>): Promise<T> {
  const connection = await namedConnection(props);
  return connection ? inConnection(connection, operation) : operation();
}

/** `planned` plus a changed connection: stored by an update, never a replacement (the identity check refuses a move). */
function withConnectionChange(planned: pulumi.dynamic.DiffResult, olds: Props, news: Props): pulumi.dynamic.DiffResult {
  const before = connectionIn(olds) !== undefined;
  const after = connectionIn(news) !== undefined;
  const kind = after ? (before ? "update" : "add") : "delete";
  const fields = { ...((planned as Partial<PlannedDiff>).fields ?? {}), [GARM_CONNECTION_INPUT]: { kind, replaces: false, oldFromInputs: false } };
  return { ...planned, changes: true, fields } as pulumi.dynamic.DiffResult;
}

/** `provider` acting in the GARM each resource names (or the stack's), with the connection kept in its inputs and outputs. */
export function inItsOwnGarm(provider: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const { check, diff, create, update, read, delete: remove } = provider;
  return {
    ...provider,
    check: async (olds, news) => {
      const checked = check ? await check.call(provider, without(olds), without(news)) : { inputs: without(news) };
      const given = connectionIn(news);
      if (given === undefined) return checked;
      const problems = connectionSettingsOf(given, GARM_CONNECTION_INPUT).problems;
      const failures = [...(checked.failures ?? []), ...problems];
      return { ...checked, ...(checked.inputs && { inputs: carrying(checked.inputs, news) }), ...(failures.length > 0 && { failures }) };
    },
    create: (inputs) =>
      inGarmOf(inputs, async () => {
        const result = await create.call(provider, without(inputs));
        return { ...result, outs: carrying(result.outs, inputs) };
      }),
    ...(diff && {
      diff: (id, olds, news) =>
        inGarmOf(news, async () => {
          const planned = await diff.call(provider, id, without(olds), without(news));
          return sameConnection(connectionIn(olds), connectionIn(news)) ? planned : withConnectionChange(planned, olds, news);
        }),
    }),
    ...(update && {
      update: (id, olds, news) =>
        inGarmOf(news, async () => {
          // A new connection alone (a moved URL, a rotated password) is stored, not sent: the kind's diff, which also
          // checks that the new connection reaches the GARM the resource lives in, says whether GARM needs a change.
          const moved = !sameConnection(connectionIn(olds), connectionIn(news));
          if (moved && diff && !(await diff.call(provider, id, without(olds), without(news))).changes) {
            return { outs: carrying(without(olds), news) };
          }
          const result = await update.call(provider, id, without(olds), without(news));
          return { ...result, outs: carrying(result.outs, news) };
        }),
    }),
    ...(read && {
      read: (id, props) =>
        inGarmOf(props, async () => {
          const result = await read.call(provider, id, without(props));
          return result.props ? { ...result, props: carrying(result.props, props) } : result;
        }),
    }),
    ...(remove && { delete: (id, props) => inGarmOf(props, () => remove.call(provider, id, without(props))) }),
  };
}
