// The provider objects handed to pulumi.dynamic.Resource. Pulumi serializes them into state and calls the stored copy
// for refresh, pending deletes and destroy (pulumi-behaviour.md §3.4), so each method only forwards to the
// implementation installed at run time: fixes reach old resources, and nothing live or secret is ever captured.
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import type { KindKey } from "../../provider/registry/kinds";

/** The resource kinds `pulumi-garm/provider` implements: the registry's keys, which state names. */
export type ResourceKind = KindKey;

/** Builds the seven-method forwarding provider for one resource kind. */
export function forwardingProvider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  return {
    configure: (req) => require("pulumi-garm/provider")[kind].configure(req),
    check: (olds, news) => require("pulumi-garm/provider")[kind].check(olds, news),
    diff: (id, olds, news) => require("pulumi-garm/provider")[kind].diff(id, olds, news),
    create: (inputs) => require("pulumi-garm/provider")[kind].create(inputs),
    read: (id, props) => require("pulumi-garm/provider")[kind].read(id, props),
    update: (id, olds, news) => require("pulumi-garm/provider")[kind].update(id, olds, news),
    delete: (id, props) => require("pulumi-garm/provider")[kind].delete(id, props),
  };
}

/** One provider object per kind, so Pulumi's per-object serialization cache is hit (pulumi-behaviour.md §3.1). */
export const scaleSetProvider = forwardingProvider("scaleSet");
export const garmProviderProvider = forwardingProvider("garmProvider");
export const endpointProvider = forwardingProvider("endpoint");
export const credentialsProvider = forwardingProvider("credentials");
export const organizationProvider = forwardingProvider("organization");
export const repositoryProvider = forwardingProvider("repository");
export const enterpriseProvider = forwardingProvider("enterprise");
export const controllerProvider = forwardingProvider("controller");

export const templateProvider = forwardingProvider("template");
export const poolProvider = forwardingProvider("pool");
const forwarding: Partial<Record<ResourceKind, pulumi.dynamic.ResourceProvider>> = { scaleSet: scaleSetProvider, garmProvider: garmProviderProvider };
// The kinds a stack holds by the dozen or hundred; a stack's one endpoint or controller gains nothing from it.
const byReference: Partial<Record<ResourceKind, string>> = { scaleSet: "./dynamic/scaleset", garmProvider: "./dynamic/garm-provider" };
const chosen: Partial<Record<ResourceKind, pulumi.dynamic.ResourceProvider>> = {};

/**
 * The provider the SDK classes hand to pulumi.dynamic.Resource. Installed as a package (node_modules/pulumi-garm), the
 * module of dynamic/ whose exports are the provider: the serializer writes it as a require of its export path, a
 * tenth of the forwarding object's size in every resource's state. Anywhere else (this repository's tests, a layout
 * whose real path puts another directory after node_modules, as pnpm's store does) the serializer could not name it,
 * so the forwarding object, serialized by value.
 */
export function providerFor(kind: "scaleSet" | "garmProvider"): pulumi.dynamic.ResourceProvider {
  let provider = chosen[kind];
  if (!provider) {
    const file = require.resolve(byReference[kind]!);
    provider = namedByPackage(file) ? (require(file) as pulumi.dynamic.ResourceProvider) : forwarding[kind]!;
    chosen[kind] = provider;
  }
  return provider;
}

/**
 * Whether Pulumi's serializer names `file` by package: it takes the path from the working directory and requires what
 * follows its first node_modules segment, which must then be this package.
 */
export function namedByPackage(file: string, cwd = process.cwd()): boolean {
  const parts = path.relative(cwd, file).split(path.sep);
  const at = parts.indexOf("node_modules");
  return at >= 0 && parts[at + 1] === "pulumi-garm";
}
