// The resources the plugin serves, by token: every row of the registry, under its token and its legacy tokens, backed
// by the same provider/ methods the dynamic provider runs. Only protocol translation lives here: resource names from
// URNs, import, and the per-instance connection.
import type * as pulumi from "@pulumi/pulumi";
import type { Connection } from "../provider/common/connection";
import type { GarmClient } from "../provider/garm/client";
import { keptInItsGarm, reachedGarm, withGarmIdentity } from "../provider/common/garm-identity";
import { type Logger, consoleLogger } from "../provider/common/log";
import type { PlannedDiff } from "../provider/common/planned-diff";
import { userFacing } from "../provider/common/user-facing";
import { BOUND_KINDS, type KindImplementation, type KindMethods } from "../provider/registry/implementations";
import { type KindKey, type KindRow, kindRow, tokenOf } from "../provider/registry/kinds";
import { urnParts } from "./protocol";

type Props = Record<string, unknown>;

/** What the server calls for one resource type; `urn` lets a resource learn its own name. */
export interface PluginResource {
  check(urn: string, olds: Props, news: Props): Promise<{ inputs?: Props; failures?: { property: string; reason: string }[] }>;
  /** Compares `news` with the outputs `olds`, by the kind's rules, field by field. */
  diff(id: string, olds: Props, news: Props): Promise<PlannedDiff>;
  create(inputs: Props): Promise<{ id: string; outs: Props }>;
  /** `props` is empty for `pulumi import`; the answer then carries the inputs that reproduce the resource. */
  read(id: string, props: Props): Promise<{ id?: string; props?: Props; inputs?: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs?: Props }>;
  delete(id: string, props: Props): Promise<void>;
  /** Outputs that are a pure function of the inputs, known at preview; the server marks every other output unknown. */
  preview?(inputs: Props): Props;
  /** Top-level keys the server marks secret in inputs and outputs: the row's secrets, inputs and derived outputs alike. */
  readonly secrets?: readonly string[];
}

/** The token a kind's resources are served and generated under. */
export const tokenOfKind = (key: KindKey): string => tokenOf(kindRow(key));
export const SCALE_SET = tokenOfKind("scaleSet");
export const GARM_PROVIDER = tokenOfKind("garmProvider");
export const ENDPOINT = tokenOfKind("endpoint");
export const CREDENTIALS = tokenOfKind("credentials");

function adapt(methods: KindMethods, connection: Connection, secrets: readonly string[]): PluginResource {
  const m = userFacing(keptInItsGarm(methods as pulumi.dynamic.ResourceProvider, () => connection.client()), secrets);
  return {
    check: async (_urn, olds, news) => (await m.check!(olds, news)) as { inputs?: Props },
    // keptInItsGarm and userFacing hand the kind's answer back as it is.
    diff: (id, olds, news) => m.diff!(id, olds, news) as Promise<PlannedDiff>,
    create: (inputs) => m.create(inputs) as Promise<{ id: string; outs: Props }>,
    read: (id, props) => m.read!(id, props) as Promise<{ id?: string; props?: Props }>,
    update: (id, olds, news) => m.update!(id, olds, news) as Promise<{ outs?: Props }>,
    delete: (id, props) => m.delete!(id, props),
  };
}

/** One row's resource: an empty read is `pulumi import`, served by the kind's importer or refused with the way instead. */
function served(row: KindRow & { impl: KindImplementation; errorSecrets: readonly string[] }, connection: Connection, log: Logger, cancel?: AbortSignal): PluginResource {
  const client = () => connection.client();
  const secrets = row.secrets;
  const config = (key: string) => connection.configValue(key);
  const resource = adapt(row.impl.methods({ client, log, cancel, config }), connection, row.errorSecrets);
  const { importable } = row;
  const importer = row.impl.importer;
  const fromUrn = row.impl.inputsFromUrn;
  return {
    ...resource,
    preview: row.impl.preview,
    secrets,
    check: fromUrn ? (urn, olds, news) => resource.check(urn, olds, { ...news, ...fromUrn(urnParts(urn)) }) : resource.check,
    read: (id, props) => {
      if (Object.keys(props).length > 0) return resource.read(id, props);
      // A row marked importable has an importer (test/unit/registry.test.ts).
      if (importable === true) return imported(importer!(client(), id, config), client, id);
      throw new Error(`${row.sdkClass} cannot be imported: ${importable.instead}`);
    },
  };
}

/** An import's answer, recording the GARM the object was read from as every read does. */
async function imported(answer: Promise<{ id: string; props: Props; inputs: Props }>, client: () => GarmClient, id: string) {
  const reached = await reachedGarm(client, id, undefined);
  const found = await answer;
  return { ...found, props: withGarmIdentity(found.props, reached) };
}

/**
 * The plugin's resources over one provider instance's connection, under every token a row answers to; `log` takes the
 * lines users see, and `cancel` (the instance's cancellation) ends their waits.
 */
export function pluginResources(connection: Connection, log: Logger = consoleLogger, cancel?: AbortSignal): ReadonlyMap<string, PluginResource> {
  return new Map(
    BOUND_KINDS.flatMap((row) => {
      const resource = served(row, connection, log, cancel);
      return [tokenOf(row), ...row.legacyTokens].map((token): [string, PluginResource] => [token, resource]);
    }),
  );
}
