// The resources the plugin serves, by token, each backed by the same provider/ methods the dynamic provider runs.
// Only protocol translation lives here: resource names from URNs, import, and the per-instance connection.
import type * as pulumi from "@pulumi/pulumi";
import type { Connection } from "../provider/common/connection";
import { credentialsProviderWith } from "../provider/kinds/credentials/resource";
import { endpointProviderWith } from "../provider/kinds/endpoint/resource";
import { controllerMethodsWith } from "../provider/kinds/controller/resource";
import { entityMethodsWith } from "../provider/kinds/entity/resource";
import { garmProviderWith } from "../provider/kinds/garm-provider/resource";
import { consoleLogger } from "../provider/common/log";
import { poolMethodsWith } from "../provider/kinds/pool/resource";
import { scaleSetDepsFor, scaleSetMethodsWith } from "../provider/kinds/scaleset/resource";
import { readBodyFile } from "../provider/kinds/template/check";
import { templateMethodsWith } from "../provider/kinds/template/resource";
import { userFacing } from "../provider/common/user-facing";
import { importScaleSet } from "./import";
import { urnParts } from "./protocol";
import { KIND_SPECS } from "../provider/kinds/entity/kinds";

type Props = Record<string, unknown>;

/** What the server calls for one resource type; `urn` lets a resource learn its own name. */
export interface PluginResource {
  check(urn: string, olds: Props, news: Props): Promise<{ inputs?: Props; failures?: { property: string; reason: string }[] }>;
  diff(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: Props): Promise<{ id: string; outs: Props }>;
  /** `props` is empty for `pulumi import`; the answer then carries the inputs that reproduce the resource. */
  read(id: string, props: Props): Promise<{ id?: string; props?: Props; inputs?: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs?: Props }>;
  delete(id: string, props: Props): Promise<void>;
}

export const SCALE_SET = "garm:index:ScaleSet";
// Not `garm:index:Provider`: every generated SDK already has a `Provider` class, the package's provider resource.
export const GARM_PROVIDER = "garm:index:GarmProvider";
export const ENDPOINT = "garm:index:GarmEndpoint";
export const CREDENTIALS = "garm:index:GarmCredentials";

/**
 * Resources other than scale sets have no import path: they are taken over by declaring them, with `adoptExisting`
 * (which also sets what GARM never shows back, such as a secret), `adoptPoolId`, or, for the controller, by itself.
 */
function notImportable(type: string, resource: PluginResource, instead = "declare it in the program with adoptExisting: true and `pulumi up` takes it over"): PluginResource {
  return {
    ...resource,
    read: (id, props) => {
      if (Object.keys(props).length === 0) throw new Error(`${type} cannot be imported: ${instead}`);
      return resource.read(id, props);
    },
  };
}

function adapt(methods: Omit<pulumi.dynamic.ResourceProvider, "configure">): PluginResource {
  const m = userFacing(methods as pulumi.dynamic.ResourceProvider);
  return {
    check: async (_urn, olds, news) => (await m.check!(olds, news)) as { inputs?: Props },
    diff: (id, olds, news) => m.diff!(id, olds, news),
    create: (inputs) => m.create(inputs) as Promise<{ id: string; outs: Props }>,
    read: (id, props) => m.read!(id, props) as Promise<{ id?: string; props?: Props }>,
    update: (id, olds, news) => m.update!(id, olds, news) as Promise<{ outs?: Props }>,
    delete: (id, props) => m.delete!(id, props),
  };
}

/** The plugin's resources over one provider instance's connection. */
export function pluginResources(connection: Connection): ReadonlyMap<string, PluginResource> {
  const client = () => connection.client();
  const scaleSet = adapt(scaleSetMethodsWith(scaleSetDepsFor(client)));
  const garmProvider = adapt(garmProviderWith(client));
  const forgeDeps = { client, log: consoleLogger };
  return new Map<string, PluginResource>([
    [ENDPOINT, notImportable("GarmEndpoint", adapt(endpointProviderWith(forgeDeps)))],
    [CREDENTIALS, notImportable("GarmCredentials", adapt(credentialsProviderWith(forgeDeps)))],
    [
      SCALE_SET,
      {
        ...scaleSet,
        read: (id, props) => (Object.keys(props).length === 0 ? importScaleSet(connection.client(), id) : scaleSet.read(id, props)),
      },
    ],
    [
      GARM_PROVIDER,
      {
        ...garmProvider,
        // The TypeScript SDK records the owning stack and resource in the block; here the URN says who owns it.
        check: (urn, olds, news) => {
          const { project, stack, name } = urnParts(urn);
          return garmProvider.check(urn, olds, { ...news, owner: { project, stack, resource: name } });
        },
        read: (id, props) => {
          if (Object.keys(props).length === 0) {
            throw new Error("GarmProvider cannot be imported: declare it in the program and `pulumi up` takes over its block");
          }
          return garmProvider.read(id, props);
        },
      },
    ],
    ...(["organization", "repository", "enterprise"] as const).map((kind): [string, PluginResource] => {
      const token = `garm:index:${KIND_SPECS[kind].resource}`;
      return [token, notImportable(KIND_SPECS[kind].resource, adapt(entityMethodsWith(kind, forgeDeps)))];
    }),
    ["garm:index:GarmController", notImportable("GarmController", adapt(controllerMethodsWith(forgeDeps)), "declare it in the program and `pulumi up` takes over GARM's controller")],
    ["garm:index:GarmTemplate", notImportable("GarmTemplate", adapt(templateMethodsWith({ ...forgeDeps, readBody: readBodyFile })))],
    [
      "garm:index:GarmPool",
      notImportable("GarmPool", adapt(poolMethodsWith(scaleSetDepsFor(client))), "declare it in the program with adoptPoolId set to its id and `pulumi up` takes it over"),
    ],
  ]);
}
