// The provider objects handed to pulumi.dynamic.Resource. Pulumi serializes them into state and calls the stored copy
// for refresh, pending deletes and destroy (pulumi-dynamic-providers.md §3.4), so each method only forwards to the
// implementation installed at run time: fixes reach old resources, and nothing live or secret is ever captured.
import type * as pulumi from "@pulumi/pulumi";

/** The resource kinds `pulumi-garm/provider` implements. */
export type ResourceKind = "scaleSet" | "garmProvider" | "template" | "pool";

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

/** One provider object per kind, so Pulumi's per-object serialization cache is hit (§3.1). */
export const scaleSetProvider = forwardingProvider("scaleSet");
export const garmProviderProvider = forwardingProvider("garmProvider");
export const templateProvider = forwardingProvider("template");
export const poolProvider = forwardingProvider("pool");
